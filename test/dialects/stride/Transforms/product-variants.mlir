// stride-product-variants (python-free-docs/symbolic-sizes.md, "Variants
// selected at run time"): a product over symbolic rows that the skinny
// product kernel computes at one row gets that kernel as a variant, a
// stride.kernel guarded by `when` whose body is the product at one row,
// and a stride.select_variant between it and the library call. The other
// products are left as they are.
// RUN: stride-opt --stride-matmul-layout --stride-product-variants -split-input-file %s | FileCheck %s
// RUN: stride-opt --stride-matmul-layout --stride-product-variants=skinny-products=generated -split-input-file %s | FileCheck %s
// RUN: stride-opt --stride-matmul-layout=skinny-products=library --stride-product-variants=skinny-products=library -split-input-file %s | FileCheck %s --check-prefix=LIBRARY
// RUN: not stride-opt --stride-product-variants=skinny-products=cublas %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// The pipeline runs it after fusion, with its skinny-products policy:
// RUN: stride-opt --stride-pipeline=form-kernels -split-input-file %s | FileCheck %s --check-prefix=PIPE
// RUN: stride-opt --stride-pipeline="form-kernels skinny-products=library" -split-input-file %s | FileCheck %s --check-prefix=PIPE-LIB

// UNKNOWN: stride-product-variants: unknown skinny-products policy 'cublas'; expected auto, library or generated

// A linear layer over symbolic tokens with a bias: the variant computes
// the product and the bias at one token, through the permuted weight's
// layout; the library call keeps its layouts; the readers read the
// select.
// CHECK-LABEL: func.func @linear
// CHECK: %[[WT:.*]] = stride.permute
// CHECK: %[[K:.*]] = stride.kernel "matmul_skinny" ins(%arg0, %[[WT]], %arg2 : !stride.tensor<[tokens, 64], bf16, strides = [64, 1], offset = 0>, !stride.tensor<64x32xbf16, strides = [1, 64], offset = 0>, !stride.tensor<32xbf16, strides = [1], offset = 0>) attributes {when = [#stride.symbol<"tokens", range = [1, 1]>]} -> (!stride.tensor<1x32xbf16, strides = [32, 1], offset = 0>) {
// CHECK-NEXT: ^bb0(%[[A:.*]]: !stride.tensor<1x64xbf16, strides = [64, 1], offset = 0>, %[[B:.*]]: !stride.tensor<64x32xbf16, strides = [1, 64], offset = 0>, %[[C:.*]]: !stride.tensor<32xbf16, strides = [1], offset = 0>):
// CHECK-NEXT: stride.matmul %[[A]], %[[B]] bias %[[C]] {stride.skinny_product} : <1x64xbf16, strides = [64, 1], offset = 0>, <64x32xbf16, strides = [1, 64], offset = 0>, !stride.tensor<32xbf16, strides = [1], offset = 0> -> <1x32xbf16, strides = [32, 1], offset = 0>
// CHECK: %[[L:.*]] = stride.matmul %arg0, %[[WT]] bias %arg2 {lhs_layout = {{.*}}, rhs_layout = {{.*}}} : <[tokens, 64], bf16
// CHECK-NEXT: %[[S:.*]] = stride.select_variant %[[K]] : <1x32xbf16, strides = [32, 1], offset = 0> when [#stride.symbol<"tokens", range = [1, 1]>] else %[[L]] : <[tokens, 32], bf16, strides = [32, 1], offset = 0>
// CHECK-NEXT: %[[R:.*]] = stride.relu %[[S]]
// CHECK: return %[[R]]
// LIBRARY-LABEL: func.func @linear
// LIBRARY-NOT: stride.kernel
// LIBRARY-NOT: select_variant
// PIPE-LABEL: func.func @linear
// PIPE: stride.kernel "matmul_skinny"{{.*}}attributes {when = [#stride.symbol<"tokens", range = [1, 1]>]}
// PIPE: stride.select_variant
// PIPE-LIB-LABEL: func.func @linear
// PIPE-LIB-NOT: select_variant
func.func @linear(%x: !stride.tensor<[tokens, 64], bf16>,
                  %w: !stride.tensor<32x64xbf16>, %b: !stride.tensor<32xbf16>)
    -> !stride.tensor<[tokens, 32], bf16>
    attributes {stride.symbols = [#stride.symbol<"tokens", range = [1, 128]>]} {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<32x64xbf16>
      -> !stride.tensor<64x32xbf16, strides = [1, 64], offset = 0>
  %p = stride.matmul %x, %wt bias %b : !stride.tensor<[tokens, 64], bf16>,
      !stride.tensor<64x32xbf16, strides = [1, 64], offset = 0>,
      !stride.tensor<32xbf16> -> !stride.tensor<[tokens, 32], bf16>
  %r = stride.relu %p : !stride.tensor<[tokens, 32], bf16> -> !stride.tensor<[tokens, 32], bf16>
  return %r : !stride.tensor<[tokens, 32], bf16>
}

// -----

// Rows of batch x tokens: the variant pins both symbols to 1.
// CHECK-LABEL: func.func @two_symbols
// CHECK: stride.kernel "matmul_skinny"{{.*}}attributes {when = [#stride.symbol<"batch", range = [1, 1]>, #stride.symbol<"tokens", range = [1, 1]>]} -> (!stride.tensor<1x16xf32, strides = [16, 1], offset = 0>)
// CHECK: stride.select_variant
func.func @two_symbols(%x: !stride.tensor<[batch*tokens, 8], f32>,
                       %w: !stride.tensor<16x8xf32>)
    -> !stride.tensor<[batch*tokens, 16], f32>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 4]>,
                                  #stride.symbol<"tokens", range = [1, 64]>]} {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<16x8xf32>
      -> !stride.tensor<8x16xf32, strides = [1, 8], offset = 0>
  %p = stride.matmul %x, %wt : !stride.tensor<[batch*tokens, 8], f32>,
      !stride.tensor<8x16xf32, strides = [1, 8], offset = 0>
      -> !stride.tensor<[batch*tokens, 16], f32>
  return %p : !stride.tensor<[batch*tokens, 16], f32>
}

// -----

// No variant: rows that are never one (2*tokens; a symbol from 2 on; a
// multiple of 8), a weight read with a stride along K (a row-major [K, N]
// weight: the kernel streams K-contiguous weights).
// CHECK-LABEL: func.func @no_variant
// CHECK-NOT: stride.kernel
// CHECK-NOT: select_variant
// CHECK: return
func.func @no_variant(%x: !stride.tensor<[2*tokens, 8], f32>,
                      %y: !stride.tensor<[wide, 8], f32>,
                      %z: !stride.tensor<[eights, 8], f32>,
                      %u: !stride.tensor<[tokens, 8], f32>,
                      %w: !stride.tensor<16x8xf32>,
                      %wk: !stride.tensor<8x16xf32>)
    -> (!stride.tensor<[2*tokens, 16], f32>, !stride.tensor<[wide, 16], f32>,
        !stride.tensor<[eights, 16], f32>, !stride.tensor<[tokens, 16], f32>)
    attributes {stride.symbols = [#stride.symbol<"tokens", range = [1, 64]>,
                                  #stride.symbol<"wide", range = [2, 64]>,
                                  #stride.symbol<"eights", range = [8, 64], multiple_of = 8>]} {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<16x8xf32>
      -> !stride.tensor<8x16xf32, strides = [1, 8], offset = 0>
  %a = stride.matmul %x, %wt : !stride.tensor<[2*tokens, 8], f32>,
      !stride.tensor<8x16xf32, strides = [1, 8], offset = 0>
      -> !stride.tensor<[2*tokens, 16], f32>
  %b = stride.matmul %y, %wt : !stride.tensor<[wide, 8], f32>,
      !stride.tensor<8x16xf32, strides = [1, 8], offset = 0>
      -> !stride.tensor<[wide, 16], f32>
  %c = stride.matmul %z, %wt : !stride.tensor<[eights, 8], f32>,
      !stride.tensor<8x16xf32, strides = [1, 8], offset = 0>
      -> !stride.tensor<[eights, 16], f32>
  %d = stride.matmul %u, %wk : !stride.tensor<[tokens, 8], f32>,
      !stride.tensor<8x16xf32> -> !stride.tensor<[tokens, 16], f32>
  return %a, %b, %c, %d : !stride.tensor<[2*tokens, 16], f32>,
      !stride.tensor<[wide, 16], f32>, !stride.tensor<[eights, 16], f32>,
      !stride.tensor<[tokens, 16], f32>
}
