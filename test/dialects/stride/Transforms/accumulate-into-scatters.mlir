// stride-accumulate-into-scatters (Passes.td): an add of an accumulating
// scatter into zeros (index_add, scatter_add) becomes the scatter into the
// add's other operand, with the add's result type; a scatter into a value
// that is not zero, a scatter that is read twice and a plain scatter stay.
// RUN: stride-opt --stride-accumulate-into-scatters -split-input-file %s | FileCheck %s

// A tied embedding's gradient: the product plus the embedding's index_add.
// CHECK-LABEL: func.func @tied_embedding
// CHECK-NEXT: %[[P:.*]] = stride.matmul
// CHECK-NEXT: %[[R:.*]] = stride.index_add %[[P]], %arg2, %arg3 dim 0 : <24x8xf32, strides = [8, 1], offset = 0>, <16xi64, strides = [1], offset = 0>, <16x8xf32, strides = [8, 1], offset = 0> -> <24x8xf32, strides = [8, 1], offset = 0>
// CHECK-NEXT: return %[[R]]
func.func @tied_embedding(%g: !stride.tensor<24x16xf32>, %h: !stride.tensor<16x8xf32>,
                          %tok: !stride.tensor<16xi64>, %d: !stride.tensor<16x8xf32>)
    -> !stride.tensor<24x8xf32> {
  %p = stride.matmul %g, %h : !stride.tensor<24x16xf32>, !stride.tensor<16x8xf32>
      -> !stride.tensor<24x8xf32>
  %z = stride.full 0.0 : !stride.tensor<24x8xf32>
  %s = stride.index_add %z, %tok, %d dim 0 : !stride.tensor<24x8xf32>,
      !stride.tensor<16xi64>, !stride.tensor<16x8xf32> -> !stride.tensor<24x8xf32>
  %r = stride.add %p, %s : !stride.tensor<24x8xf32>, !stride.tensor<24x8xf32>
      -> !stride.tensor<24x8xf32>
  return %r : !stride.tensor<24x8xf32>
}

// -----

// The scatter on the add's left, into a transposed view: the scatter's
// input is the view, its result the add's (row-major) type; the zeros,
// also read by the other output, stay.
// CHECK-LABEL: func.func @scatter_add_on_the_left
// CHECK-NEXT: %[[Z:.*]] = stride.full 0.0
// CHECK-NEXT: %[[S:.*]] = stride.scatter_add %arg0, %arg1, %arg2 dim 0 : <4x5xf32, strides = [1, 4], offset = 0>, {{.*}} -> <4x5xf32, strides = [5, 1], offset = 0>
// CHECK-NEXT: return %[[S]], %[[Z]]
func.func @scatter_add_on_the_left(
    %xt: !stride.tensor<4x5xf32, strides = [1, 4], offset = 0>,
    %idx: !stride.tensor<3x5xi64>, %src: !stride.tensor<3x5xf32>)
    -> (!stride.tensor<4x5xf32>, !stride.tensor<4x5xf32>) {
  %z = stride.full 0.0 : !stride.tensor<4x5xf32>
  %s = stride.scatter_add %z, %idx, %src dim 0 : !stride.tensor<4x5xf32>,
      !stride.tensor<3x5xi64>, !stride.tensor<3x5xf32> -> !stride.tensor<4x5xf32>
  %r = stride.add %s, %xt : !stride.tensor<4x5xf32>,
      !stride.tensor<4x5xf32, strides = [1, 4], offset = 0> -> !stride.tensor<4x5xf32>
  return %r, %z : !stride.tensor<4x5xf32>, !stride.tensor<4x5xf32>
}

// -----

// Left alone: a scatter into ones, a scatter read twice, a scatter whose
// writes replace (one of them wins; no sum to move).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: stride.add
// CHECK-NOT: stride.add
func.func @left_alone(%x: !stride.tensor<4x5xf32>, %idx: !stride.tensor<3x5xi64>,
                      %src: !stride.tensor<3x5xf32>)
    -> (!stride.tensor<4x5xf32>, !stride.tensor<4x5xf32>, !stride.tensor<4x5xf32>,
        !stride.tensor<4x5xf32>) {
  %one = stride.full 1.0 : !stride.tensor<4x5xf32>
  %a = stride.scatter_add %one, %idx, %src dim 0 : !stride.tensor<4x5xf32>,
      !stride.tensor<3x5xi64>, !stride.tensor<3x5xf32> -> !stride.tensor<4x5xf32>
  %ra = stride.add %x, %a : !stride.tensor<4x5xf32>, !stride.tensor<4x5xf32>
      -> !stride.tensor<4x5xf32>
  %z = stride.full 0.0 : !stride.tensor<4x5xf32>
  %b = stride.scatter_add %z, %idx, %src dim 0 : !stride.tensor<4x5xf32>,
      !stride.tensor<3x5xi64>, !stride.tensor<3x5xf32> -> !stride.tensor<4x5xf32>
  %rb = stride.add %x, %b : !stride.tensor<4x5xf32>, !stride.tensor<4x5xf32>
      -> !stride.tensor<4x5xf32>
  %c = stride.scatter %z, %idx, %src dim 0 : !stride.tensor<4x5xf32>,
      !stride.tensor<3x5xi64>, !stride.tensor<3x5xf32> -> !stride.tensor<4x5xf32>
  %rc = stride.add %x, %c : !stride.tensor<4x5xf32>, !stride.tensor<4x5xf32>
      -> !stride.tensor<4x5xf32>
  return %ra, %rb, %b, %rc : !stride.tensor<4x5xf32>, !stride.tensor<4x5xf32>,
      !stride.tensor<4x5xf32>, !stride.tensor<4x5xf32>
}
