// A matrix product is a kernel boundary: it never joins a kernel, its
// producers fuse into the kernels before it and its consumers into the
// kernels after it (but for the epilogue folded into it,
// fuse-matmul-epilogues.mlir), and views of its operands stay outside (the
// library reads them through their layouts).
// RUN: stride-opt --stride-fuse -split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @boundary
// CHECK:      %[[K:.*]] = stride.kernel "neg_exp" ins(%arg0 :
// CHECK:      %[[T:.*]] = stride.permute %arg1
// CHECK:      %[[P:.*]] = stride.matmul %[[K]], %[[T]] bias %arg2 :
// CHECK:      %[[E:.*]] = stride.kernel "tanh_kernel" ins(%[[P]] :
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   stride.tanh
// CHECK-NEXT:   stride.yield
// CHECK:      return %[[E]]
func.func @boundary(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<5x8xf32>,
    %c: !stride.tensor<5xf32>) -> !stride.tensor<4x5xf32> {
  %n = stride.neg %a : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %x = stride.exp %n : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %bt = stride.permute %b dims [1, 0] : !stride.tensor<5x8xf32>
      -> !stride.tensor<8x5xf32, strides = [1, 8], offset = 0>
  %p = stride.matmul %x, %bt : !stride.tensor<4x8xf32>,
      !stride.tensor<8x5xf32, strides = [1, 8], offset = 0> -> !stride.tensor<4x5xf32>
  %ce = stride.expand %c : !stride.tensor<5xf32>
      -> !stride.tensor<4x5xf32, strides = [0, 1], offset = 0>
  %s = stride.add %p, %ce : !stride.tensor<4x5xf32>,
      !stride.tensor<4x5xf32, strides = [0, 1], offset = 0> -> !stride.tensor<4x5xf32>
  %t = stride.tanh %s : !stride.tensor<4x5xf32> -> !stride.tensor<4x5xf32>
  return %t : !stride.tensor<4x5xf32>
}

// -----

// A value read by a matmul and by a kernel is materialized once, by the
// kernel of its other reader; two matmuls in a chain have nothing between
// them.
// CHECK-LABEL: func.func @shared_operand
// CHECK:      %[[K:.*]]:2 = stride.kernel "sigmoid_mul" ins(%arg0 :
// CHECK:      %[[P:.*]] = stride.matmul %[[K]]#0, %arg1
// CHECK-NEXT: %[[Q:.*]] = stride.matmul %[[P]], %arg1
// CHECK:      return %[[Q]], %[[K]]#1
func.func @shared_operand(%a: !stride.tensor<4x4xf32>, %w: !stride.tensor<4x4xf32>)
    -> (!stride.tensor<4x4xf32>, !stride.tensor<4x4xf32>) {
  %s = stride.sigmoid %a : !stride.tensor<4x4xf32> -> !stride.tensor<4x4xf32>
  %m = stride.mul %s, %s : !stride.tensor<4x4xf32>, !stride.tensor<4x4xf32>
      -> !stride.tensor<4x4xf32>
  %p = stride.matmul %s, %w : !stride.tensor<4x4xf32>, !stride.tensor<4x4xf32>
      -> !stride.tensor<4x4xf32>
  %q = stride.matmul %p, %w : !stride.tensor<4x4xf32>, !stride.tensor<4x4xf32>
      -> !stride.tensor<4x4xf32>
  return %q, %m : !stride.tensor<4x4xf32>, !stride.tensor<4x4xf32>
}
