// Function results that are views of part of a fresh buffer, or states,
// are cloned into fresh row-major buffers; results of functional ops are
// returned as they are, and so are arguments and views of them (aliased
// outputs: the module hands the caller's storage back), unless a result
// writes the argument back or the argument is a state.
// RUN: stride-opt %s --stride-legalize-layouts -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @returns_views
// CHECK-SAME: -> (!stride.tensor<8x4xf32, strides = [1, 8], offset = 0>, !stride.tensor<4x8xf32, strides = [8, 1], offset = 0>, !stride.tensor<4x8xf32, strides = [8, 1], offset = 0>)
// CHECK: %[[T:.*]] = stride.permute %arg0
// CHECK: %[[E:.*]] = stride.exp %arg0
// CHECK-NOT: stride.clone
// CHECK: return %[[T]], %arg0, %[[E]]
func.func @returns_views(%x: !stride.tensor<4x8xf32>)
    -> (!stride.tensor<8x4xf32, strides = [1, 8]>, !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>) {
  %t = stride.permute %x dims [1, 0] : !stride.tensor<4x8xf32>
      -> !stride.tensor<8x4xf32, strides = [1, 8]>
  %e = stride.exp %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  return %t, %x, %e : !stride.tensor<8x4xf32, strides = [1, 8]>, !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
}

// -----

// A state returned as it is is cloned (the next run rewrites its storage),
// and so is a mutated input's old value (the plan writes its storage) and
// a value written back into an argument; an argument that nothing writes
// back is not.
// CHECK-LABEL: func.func @written_arguments
// CHECK: %[[S:.*]] = stride.clone %arg0
// CHECK: %[[OLD:.*]] = stride.clone %arg1
// CHECK: %[[BACK:.*]] = stride.clone %arg2
// CHECK-NOT: stride.clone
// CHECK: return %[[S]], %[[OLD]], %[[BACK]], %arg2
func.func @written_arguments(
    %s: !stride.tensor<4xf32> {stride.name = "s", stride.state = dense<0.0> : tensor<4xf32>},
    %m: !stride.tensor<4xf32> {stride.name = "m"},
    %y: !stride.tensor<4xf32> {stride.name = "y"})
    -> (!stride.tensor<4xf32>, !stride.tensor<4xf32>,
        !stride.tensor<4xf32> {stride.writes = "m"}, !stride.tensor<4xf32>) {
  return %s, %m, %y, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32>, !stride.tensor<4xf32>, !stride.tensor<4xf32>
}

// -----

// A view that is the whole of a functional op's result under another shape
// (both row-major, offset 0, as many elements) is that result's buffer: it
// is returned as it is, twice too (the plan copies the second). A view of
// part of a result is cloned; a reshape of an argument is not.
// CHECK-LABEL: func.func @returns_reshapes
// CHECK: %[[E:.*]] = stride.exp %arg0
// CHECK: %[[V:.*]] = stride.view %[[E]]
// CHECK: %[[S:.*]] = stride.slice %[[E]]
// CHECK: %[[A:.*]] = stride.view %arg0
// CHECK: %[[CS:.*]] = stride.clone %[[S]]
// CHECK-NOT: stride.clone
// CHECK: return %[[V]], %[[V]], %[[CS]], %[[A]]
func.func @returns_reshapes(%x: !stride.tensor<4x8xf32>)
    -> (!stride.tensor<32xf32>, !stride.tensor<32xf32>, !stride.tensor<2x8xf32, strides = [8, 1]>, !stride.tensor<32xf32>) {
  %e = stride.exp %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %v = stride.view %e : !stride.tensor<4x8xf32> -> !stride.tensor<32xf32>
  %s = stride.slice %e dim 0 start 0 end 2 step 1 : !stride.tensor<4x8xf32>
      -> !stride.tensor<2x8xf32, strides = [8, 1]>
  %a = stride.view %x : !stride.tensor<4x8xf32> -> !stride.tensor<32xf32>
  return %v, %v, %s, %a : !stride.tensor<32xf32>, !stride.tensor<32xf32>, !stride.tensor<2x8xf32, strides = [8, 1]>, !stride.tensor<32xf32>
}
