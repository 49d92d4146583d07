// stride-outer-products (ProductPasses.td): a product whose contraction is
// one element becomes a multiply of its operands broadcast by expand, with
// the product's type; products with a bias, an epilogue, a layout
// decision or K > 1 stay products.
// RUN: stride-opt --stride-outer-products -split-input-file %s | FileCheck %s
// In the pipeline, the multiply is fused with its reader (no library call):
// RUN: stride-opt --stride-pipeline -split-input-file %s | FileCheck %s --check-prefix=PIPE

// LLaMA's rotary angles: inv_freq [1, 8, 1] times the positions [1, 1, 4].
// CHECK-LABEL: func.func @rotary_angles
// CHECK-NEXT: %[[A:.*]] = stride.expand %arg0 : <1x8x1xf32, strides = [8, 1, 1], offset = 0> -> <1x8x4xf32, strides = [8, 1, 0], offset = 0>
// CHECK-NEXT: %[[B:.*]] = stride.expand %arg1 : <1x1x4xf32, strides = [4, 4, 1], offset = 0> -> <1x8x4xf32, strides = [4, 0, 1], offset = 0>
// CHECK-NEXT: %[[P:.*]] = stride.mul %[[A]], %[[B]] : {{.*}} -> <1x8x4xf32, strides = [32, 4, 1], offset = 0>
// CHECK-NEXT: %[[C:.*]] = stride.cos %[[P]]
// CHECK-NOT: stride.matmul
// PIPE-LABEL: func.func @rotary_angles
// PIPE-NOT: stride.matmul
// PIPE: stride.kernel
// PIPE: stride.mul
// PIPE: stride.cos
// PIPE-NOT: stride.kernel
// PIPE: return
func.func @rotary_angles(%f: !stride.tensor<1x8x1xf32>, %p: !stride.tensor<1x1x4xf32>) -> !stride.tensor<1x8x4xf32> {
  %a = stride.matmul %f, %p : !stride.tensor<1x8x1xf32>, !stride.tensor<1x1x4xf32> -> !stride.tensor<1x8x4xf32>
  %c = stride.cos %a : !stride.tensor<1x8x4xf32> -> !stride.tensor<1x8x4xf32>
  return %c : !stride.tensor<1x8x4xf32>
}

// -----

// A 2-D bf16 outer product of a transposed operand (read through its
// strides by the expand).
// CHECK-LABEL: func.func @transposed_bf16
// CHECK-NEXT: %[[T:.*]] = stride.permute
// CHECK-NEXT: %[[A:.*]] = stride.expand %[[T]] : <3x1xbf16, strides = [1, 3], offset = 0> -> <3x5xbf16, strides = [1, 0], offset = 0>
// CHECK-NEXT: %[[B:.*]] = stride.expand %arg1 : <1x5xbf16, strides = [5, 1], offset = 0> -> <3x5xbf16, strides = [0, 1], offset = 0>
// CHECK-NEXT: stride.mul %[[A]], %[[B]] : {{.*}} -> <3x5xbf16, strides = [5, 1], offset = 0>
func.func @transposed_bf16(%x: !stride.tensor<1x3xbf16>, %y: !stride.tensor<1x5xbf16>) -> !stride.tensor<3x5xbf16> {
  %t = stride.permute %x dims [1, 0] : !stride.tensor<1x3xbf16> -> !stride.tensor<3x1xbf16, strides = [1, 3], offset = 0>
  %p = stride.matmul %t, %y : !stride.tensor<3x1xbf16, strides = [1, 3], offset = 0>, !stride.tensor<1x5xbf16> -> !stride.tensor<3x5xbf16>
  return %p : !stride.tensor<3x5xbf16>
}

// -----

// Left alone: K = 2, a bias (addmm rounds the sum once), an epilogue.
// CHECK-LABEL: func.func @stays
// CHECK-COUNT-3: stride.matmul
// CHECK-NOT: stride.mul
func.func @stays(%x: !stride.tensor<4x2xf32>, %w: !stride.tensor<2x8xf32>, %a: !stride.tensor<4x1xf32>, %b: !stride.tensor<1x8xf32>, %bias: !stride.tensor<8xf32>) -> (!stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>) {
  %p = stride.matmul %x, %w : !stride.tensor<4x2xf32>, !stride.tensor<2x8xf32> -> !stride.tensor<4x8xf32>
  %q = stride.matmul %a, %b bias %bias : !stride.tensor<4x1xf32>, !stride.tensor<1x8xf32>, !stride.tensor<8xf32> -> !stride.tensor<4x8xf32>
  %r = stride.matmul %a, %b epilogue relu : !stride.tensor<4x1xf32>, !stride.tensor<1x8xf32> -> !stride.tensor<4x8xf32>
  return %p, %q, %r : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
}

// -----

// Over a symbolic token count (LLaMA's rotary angles of a dynamic
// export): the expands take the result's symbolic sizes; in the pipeline
// the multiply is fused with its reader as over static sizes.
// CHECK-LABEL: func.func @symbolic_angles
// CHECK-NEXT: %[[A:.*]] = stride.expand %arg0 : <1x8x1xf32, strides = [8, 1, 1], offset = 0> -> <[1, 8, tokens], f32, strides = [8, 1, 0], offset = 0>
// CHECK-NEXT: %[[B:.*]] = stride.expand %arg1 : <[1, 1, tokens], f32, strides = [tokens, tokens, 1], offset = 0> -> <[1, 8, tokens], f32, strides = [tokens, 0, 1], offset = 0>
// CHECK-NEXT: %[[P:.*]] = stride.mul %[[A]], %[[B]] : {{.*}} -> <[1, 8, tokens], f32, strides = [tokens*8, tokens, 1], offset = 0>
// CHECK-NEXT: stride.cos %[[P]]
// PIPE-LABEL: func.func @symbolic_angles
// PIPE-NOT: stride.matmul
// PIPE: stride.kernel
// PIPE: stride.mul
// PIPE: stride.cos
// PIPE-NOT: stride.kernel
// PIPE: return
func.func @symbolic_angles(%f: !stride.tensor<1x8x1xf32>, %p: !stride.tensor<[1, 1, tokens], f32>)
    -> !stride.tensor<[1, 8, tokens], f32>
    attributes {stride.symbols = [#stride.symbol<"tokens", range = [1, 4096]>]} {
  %a = stride.matmul %f, %p : !stride.tensor<1x8x1xf32>, !stride.tensor<[1, 1, tokens], f32> -> !stride.tensor<[1, 8, tokens], f32>
  %c = stride.cos %a : !stride.tensor<[1, 8, tokens], f32> -> !stride.tensor<[1, 8, tokens], f32>
  return %c : !stride.tensor<[1, 8, tokens], f32>
}
