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

// A view that is the whole of a functional op's result under another shape
// (both row-major, offset 0, as many elements) is that result's buffer: it
// is returned as it is, twice too (the plan copies the second). A view of
// part of a result, and a reshape of an argument, are cloned.
// CHECK-LABEL: func.func @returns_reshapes
// CHECK: %[[E:.*]] = stride.exp %arg0
// CHECK: %[[V:.*]] = stride.view %[[E]]
// CHECK: %[[S:.*]] = stride.slice %[[E]]
// CHECK: %[[A:.*]] = stride.view %arg0
// CHECK: %[[CS:.*]] = stride.clone %[[S]]
// CHECK: %[[CA:.*]] = stride.clone %[[A]]
// CHECK: return %[[V]], %[[V]], %[[CS]], %[[CA]]
func.func @returns_reshapes(%x: !stride.tensor<4x8xf32>)
    -> (!stride.tensor<32xf32>, !stride.tensor<32xf32>, !stride.tensor<2x8xf32, strides = [8, 1]>, !stride.tensor<32xf32>) {
  %e = stride.exp %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %v = stride.view %e : !stride.tensor<4x8xf32> -> !stride.tensor<32xf32>
  %s = stride.slice %e dim 0 start 0 end 2 step 1 : !stride.tensor<4x8xf32>
      -> !stride.tensor<2x8xf32, strides = [8, 1]>
  %a = stride.view %x : !stride.tensor<4x8xf32> -> !stride.tensor<32xf32>
  return %v, %v, %s, %a : !stride.tensor<32xf32>, !stride.tensor<32xf32>, !stride.tensor<2x8xf32, strides = [8, 1]>, !stride.tensor<32xf32>
}
