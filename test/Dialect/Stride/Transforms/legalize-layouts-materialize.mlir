// A module never returns an alias of its input: function results that are
// views or arguments are cloned into fresh row-major buffers; results of
// functional ops are returned as they are.
// RUN: stride-opt %s --stride-legalize-layouts | FileCheck %s

// CHECK-LABEL: func.func @returns_views
// CHECK-SAME: -> (!stride.tensor<8x4xf32, strides = [4, 1], offset = 0>, !stride.tensor<4x8xf32, strides = [8, 1], offset = 0>, !stride.tensor<4x8xf32, strides = [8, 1], offset = 0>)
// CHECK: %[[T:.*]] = stride.permute %arg0
// CHECK: %[[E:.*]] = stride.exp %arg0
// CHECK: %[[C0:.*]] = stride.clone %[[T]] : <8x4xf32, strides = [1, 8], offset = 0> -> <8x4xf32, strides = [4, 1], offset = 0>
// CHECK: %[[C1:.*]] = stride.clone %arg0
// CHECK: return %[[C0]], %[[C1]], %[[E]]
func.func @returns_views(%x: !stride.tensor<4x8xf32>)
    -> (!stride.tensor<8x4xf32, strides = [1, 8]>, !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>) {
  %t = stride.permute %x dims [1, 0] : !stride.tensor<4x8xf32>
      -> !stride.tensor<8x4xf32, strides = [1, 8]>
  %e = stride.exp %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  return %t, %x, %e : !stride.tensor<8x4xf32, strides = [1, 8]>, !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
}
