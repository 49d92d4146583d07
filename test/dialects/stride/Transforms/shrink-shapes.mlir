// stride-shrink-shapes: dims tied across ops shrink together, to 1 where the
// graph still verifies, otherwise to half; arguments and fresh buffers get
// dense layouts in their old dim order, views are re-inferred, a whole-dim
// slice follows its dim, a splat constant is resized, and what an op's
// attributes or a constant's values fix stays.
// RUN: stride-opt --stride-shrink-shapes -split-input-file %s | FileCheck %s
// (shrink-shapes-one-class.mlir picks one class and a size.)

// Every class to 1.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%{{.*}}: !stride.tensor<1x1xf32, strides = [1, 1], offset = 0>, %{{.*}}: !stride.tensor<1x1xf32, strides = [1, 1], offset = 0>)
// CHECK: stride.add {{.*}} -> <1x1xf32, strides = [1, 1], offset = 0>
func.func @transpose(%x: !stride.tensor<4x8xf32>, %y: !stride.tensor<8x4xf32>)
    -> !stride.tensor<4x8xf32> {
  %t = stride.permute %y dims [1, 0] : !stride.tensor<8x4xf32>
      -> !stride.tensor<4x8xf32, strides = [1, 4], offset = 0>
  %s = stride.add %x, %t : !stride.tensor<4x8xf32>,
      !stride.tensor<4x8xf32, strides = [1, 4], offset = 0>
      -> !stride.tensor<4x8xf32>
  return %s : !stride.tensor<4x8xf32>
}

// -----

// The rows (4) shrink to 1 and %b's 8s too; the row sum's broadcast keeps
// stride 0, the whole-dim slice ends at the new size, and the slice [2, 5)
// keeps dim 1 of %x at 8 (half, 4, would not hold it).
// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[X:.*]]: !stride.tensor<1x8xf32, strides = [8, 1], offset = 0>, %[[B:.*]]: !stride.tensor<1xf32, strides = [1], offset = 0>)
// CHECK: %[[S:.*]] = stride.sum %[[X]] dims [1] keepdim : <1x8xf32, strides = [8, 1], offset = 0> -> <1x1xf32, strides = [1, 1], offset = 0>
// CHECK: stride.expand %[[B]] : <1xf32, strides = [1], offset = 0> -> <1x1xf32, strides = [0, 1], offset = 0>
// CHECK: stride.slice %{{.*}} dim 1 start 0 end 1 step 1 : <1x1xf32, strides = [1, 1], offset = 0> -> <1x1xf32, strides = [1, 1], offset = 0>
// CHECK: stride.slice %[[X]] dim 1 start 2 end 5 step 1 : <1x8xf32, strides = [8, 1], offset = 0> -> <1x3xf32, strides = [8, 1], offset = 2>
func.func @rows(%x: !stride.tensor<4x8xf32>, %b: !stride.tensor<8xf32>)
    -> (!stride.tensor<4x8xf32>,
        !stride.tensor<4x3xf32, strides = [8, 1], offset = 2>) {
  %s = stride.sum %x dims [1] keepdim
      : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %e = stride.expand %s : !stride.tensor<4x1xf32>
      -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %bb = stride.expand %b : !stride.tensor<8xf32>
      -> !stride.tensor<4x8xf32, strides = [0, 1], offset = 0>
  %d = stride.sub %e, %bb
      : !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>,
        !stride.tensor<4x8xf32, strides = [0, 1], offset = 0>
      -> !stride.tensor<4x8xf32>
  %all = stride.slice %d dim 1 start 0 end 8 step 1 : !stride.tensor<4x8xf32>
      -> !stride.tensor<4x8xf32, strides = [8, 1], offset = 0>
  %some = stride.slice %x dim 1 start 2 end 5 step 1 : !stride.tensor<4x8xf32>
      -> !stride.tensor<4x3xf32, strides = [8, 1], offset = 2>
  %c = stride.clone %all : !stride.tensor<4x8xf32, strides = [8, 1], offset = 0>
      -> !stride.tensor<4x8xf32>
  return %c, %some : !stride.tensor<4x8xf32>,
      !stride.tensor<4x3xf32, strides = [8, 1], offset = 2>
}

// -----

// A constant of several values pins its shape (and the add's); a splat
// constant takes the new shape.
// CHECK-LABEL: func.func @constants
// CHECK-SAME: (%{{.*}}: !stride.tensor<2x3xf32, strides = [3, 1], offset = 0>, %{{.*}}: !stride.tensor<1x1xf32, strides = [1, 1], offset = 0>)
// CHECK: stride.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32> : <2x3xf32, strides = [3, 1], offset = 0>
// CHECK: stride.constant dense<5.000000e-01> : tensor<1x1xf32> : <1x1xf32, strides = [1, 1], offset = 0>
func.func @constants(%x: !stride.tensor<2x3xf32>, %y: !stride.tensor<6x5xf32>)
    -> (!stride.tensor<2x3xf32>, !stride.tensor<6x5xf32>) {
  %c = stride.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]>
      : tensor<2x3xf32> : !stride.tensor<2x3xf32>
  %a = stride.add %x, %c : !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>
      -> !stride.tensor<2x3xf32>
  %h = stride.constant dense<0.5> : tensor<6x5xf32> : !stride.tensor<6x5xf32>
  %m = stride.mul %y, %h : !stride.tensor<6x5xf32>, !stride.tensor<6x5xf32>
      -> !stride.tensor<6x5xf32>
  return %a, %m : !stride.tensor<2x3xf32>, !stride.tensor<6x5xf32>
}

// -----

// A matrix product ties batch dims, rows, columns and the contracted dim;
// the views regroup the batch and the rows (2x4 <-> 8), which therefore
// keep their sizes, while the contracted 8s (tied through the views' last
// dim) and the columns shrink to 1.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%{{.*}}: !stride.tensor<2x4x1xf32, strides = [4, 1, 1], offset = 0>, %{{.*}}: !stride.tensor<2x1x1xf32, strides = [1, 1, 1], offset = 0>) -> !stride.tensor<2x4x1xf32, strides = [4, 1, 1], offset = 0>
// CHECK: stride.view %{{.*}} -> <8x1xf32, strides = [1, 1], offset = 0>
// CHECK: stride.matmul {{.*}} -> <2x4x1xf32, strides = [4, 1, 1], offset = 0>
func.func @matmul(%a: !stride.tensor<2x4x8xf32>, %b: !stride.tensor<2x8x6xf32>)
    -> !stride.tensor<2x4x6xf32> {
  %v = stride.view %a : !stride.tensor<2x4x8xf32>
      -> !stride.tensor<8x8xf32, strides = [8, 1], offset = 0>
  %u = stride.view %v : !stride.tensor<8x8xf32, strides = [8, 1], offset = 0>
      -> !stride.tensor<2x4x8xf32, strides = [32, 8, 1], offset = 0>
  %p = stride.matmul %u, %b
      : !stride.tensor<2x4x8xf32, strides = [32, 8, 1], offset = 0>,
        !stride.tensor<2x8x6xf32> -> !stride.tensor<2x4x6xf32>
  return %p : !stride.tensor<2x4x6xf32>
}

// -----

// A kernel's inputs, its body's arguments and its results move together.
// CHECK-LABEL: func.func @kernel
// CHECK-SAME: (%{{.*}}: !stride.tensor<1x1xf32, strides = [1, 1], offset = 0>) -> !stride.tensor<1xf32, strides = [1], offset = 0>
// CHECK: stride.kernel "exp_sum" ins(%{{.*}} : !stride.tensor<1x1xf32, strides = [1, 1], offset = 0>) -> (!stride.tensor<1xf32, strides = [1], offset = 0>)
// CHECK: ^bb0(%{{.*}}: !stride.tensor<1x1xf32, strides = [1, 1], offset = 0>):
// CHECK: stride.sum %{{.*}} dims [1] : <1x1xf32, strides = [1, 1], offset = 0> -> <1xf32, strides = [1], offset = 0>
func.func @kernel(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4xf32> {
  %k = stride.kernel "exp_sum" ins(%x : !stride.tensor<4x8xf32>)
      -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    %e = stride.exp %a : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    %s = stride.sum %e dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
    stride.yield %s : !stride.tensor<4xf32>
  }
  return %k : !stride.tensor<4xf32>
}
