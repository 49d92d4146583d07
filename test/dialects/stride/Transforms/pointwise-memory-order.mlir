// stride-pointwise-memory-order: a pointwise result packed in a permuted
// order is computed over its permuted shape, row-major, between permutes;
// row-major results, graph outputs and results of other ops stay as they
// are (python-free-docs/layouts.md).
// RUN: stride-opt --stride-pointwise-memory-order -split-input-file %s | FileCheck %s

!cl = !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>
// CHECK-LABEL: func.func @channels_last
// CHECK:      %[[A:.*]] = stride.permute %arg0 dims [0, 2, 3, 1] : {{.*}} -> <2x4x4x8xbf16, strides = [128, 32, 8, 1], offset = 0>
// CHECK-NEXT: %[[B:.*]] = stride.permute %arg1 dims [0, 2, 3, 1]
// CHECK-NEXT: %[[S:.*]] = stride.add %[[A]], %[[B]] : {{.*}} -> <2x4x4x8xbf16, strides = [128, 32, 8, 1], offset = 0>
// CHECK-NEXT: %[[SB:.*]] = stride.permute %[[S]] dims [0, 3, 1, 2] : {{.*}} -> <2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>
// CHECK-NEXT: %[[R:.*]] = stride.permute %[[SB]] dims [0, 2, 3, 1]
// CHECK-NEXT: %[[RELU:.*]] = stride.relu %[[R]] : {{.*}} -> <2x4x4x8xbf16, strides = [128, 32, 8, 1], offset = 0>
// CHECK-NEXT: %[[RB:.*]] = stride.permute %[[RELU]] dims [0, 3, 1, 2]
// CHECK-NEXT: stride.sum %[[RB]] dims [2, 3]
func.func @channels_last(%x: !cl, %y: !cl) -> !stride.tensor<2x8xbf16> {
  %s = stride.add %x, %y : !cl, !cl -> !cl
  %r = stride.relu %s : !cl -> !cl
  %m = stride.sum %r dims [2, 3] : !cl -> !stride.tensor<2x8xbf16>
  return %m : !stride.tensor<2x8xbf16>
}

// -----

// Row-major results, a graph output and a result with gaps are left alone.
!cl = !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>
!gaps = !stride.tensor<2x8x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:  stride.permute
// CHECK:      return
func.func @left_alone(%x: !cl, %r: !stride.tensor<2x8x4x4xbf16>) -> (!cl, !stride.tensor<2x8x4x4xbf16>, !stride.tensor<2x8xbf16>) {
  %out = stride.relu %x : !cl -> !cl
  %row = stride.relu %r : !stride.tensor<2x8x4x4xbf16> -> !stride.tensor<2x8x4x4xbf16>
  %g = stride.relu %x : !cl -> !gaps
  %m = stride.sum %g dims [2, 3] : !gaps -> !stride.tensor<2x8xbf16>
  return %out, %row, %m : !cl, !stride.tensor<2x8x4x4xbf16>, !stride.tensor<2x8xbf16>
}
