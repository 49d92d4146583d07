// stride-matmul-layout's choice between cuBLASLt and Stride's skinny
// product kernel (python-free-docs/matmul.md, "Skinny products"), under
// each policy: a product it takes is marked stride.skinny_product and keeps
// its operands and result as they are (no library layouts, no copies, no
// padding); every other product gets its library layouts.
// RUN: stride-opt --stride-matmul-layout -split-input-file %s | FileCheck %s --check-prefixes=CHECK,AUTO
// RUN: stride-opt --stride-matmul-layout=skinny-products=auto -split-input-file %s | FileCheck %s --check-prefixes=CHECK,AUTO
// RUN: stride-opt --stride-matmul-layout=skinny-products=generated -split-input-file %s | FileCheck %s --check-prefixes=CHECK,GEN
// RUN: stride-opt --stride-matmul-layout=skinny-products=library -split-input-file %s | FileCheck %s --check-prefixes=CHECK,LIB
// RUN: not stride-opt --stride-matmul-layout=skinny-products=cublas %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// The pipeline's option reaches the pass:
// RUN: stride-opt --stride-pipeline -split-input-file %s | FileCheck %s --check-prefix=PIPE
// RUN: stride-opt --stride-pipeline=skinny-products=library -split-input-file %s | FileCheck %s --check-prefix=PIPE-LIB

// PIPE: func.func @decode_linear
// PIPE: stride.skinny_product
// PIPE-LIB: func.func @decode_linear
// PIPE-LIB-NOT: stride.skinny_product
// PIPE-LIB: func.func @marked

// UNKNOWN: stride-matmul-layout: unknown skinny-products policy 'cublas'; expected auto, library or generated

// A batch-1 decode step's linear layer: one row against an nn.Linear
// weight [N, K] read through a permute (K contiguous). The bf16 row of 24
// columns (48 bytes) would be padded to 32 columns for cuBLASLt; the
// kernel writes it as it is.
// CHECK-LABEL: func.func @decode_linear
// AUTO: stride.matmul %arg0, %{{.*}} {stride.skinny_product} : <1x64xbf16, strides = [64, 1], offset = 0>, <64x24xbf16, strides = [1, 64], offset = 0> -> <1x24xbf16, strides = [24, 1], offset = 0>
// GEN: stride.matmul %arg0, %{{.*}} {stride.skinny_product} : <1x64xbf16, strides = [64, 1], offset = 0>, <64x24xbf16, strides = [1, 64], offset = 0> -> <1x24xbf16, strides = [24, 1], offset = 0>
// LIB-NOT: stride.skinny_product
// LIB: stride.matmul {{.*}}lhs_layout
// CHECK: return
func.func @decode_linear(%x: !stride.tensor<1x64xbf16>, %w: !stride.tensor<24x64xbf16>)
    -> !stride.tensor<1x24xbf16> {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<24x64xbf16>
      -> !stride.tensor<64x24xbf16, strides = [1, 64], offset = 0>
  %p = stride.matmul %x, %wt : !stride.tensor<1x64xbf16>,
      !stride.tensor<64x24xbf16, strides = [1, 64], offset = 0> -> !stride.tensor<1x24xbf16>
  return %p : !stride.tensor<1x24xbf16>
}

// -----

// The default takes 1 row only (@decode_linear); 8 rows (a batch-8 step)
// and 16 only `generated` takes, and 33 none.
// CHECK-LABEL: func.func @row_bounds
// AUTO: stride.matmul %arg0, %{{.*}} {lhs_layout
// AUTO: stride.matmul %arg1, %{{.*}} {lhs_layout
// AUTO: stride.matmul %arg2, %{{.*}} {lhs_layout
// GEN: stride.matmul %arg0, %{{.*}} {stride.skinny_product} : <8x64xf32
// GEN: stride.matmul %arg1, %{{.*}} {stride.skinny_product} : <16x64xf32
// GEN: stride.matmul %arg2, %{{.*}} {lhs_layout
// LIB-NOT: stride.skinny_product
// CHECK: return
func.func @row_bounds(%x8: !stride.tensor<8x64xf32>, %x16: !stride.tensor<16x64xf32>,
                      %x33: !stride.tensor<33x64xf32>, %w: !stride.tensor<32x64xf32>)
    -> (!stride.tensor<8x32xf32>, !stride.tensor<16x32xf32>, !stride.tensor<33x32xf32>) {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<32x64xf32>
      -> !stride.tensor<64x32xf32, strides = [1, 64], offset = 0>
  %p8 = stride.matmul %x8, %wt : !stride.tensor<8x64xf32>,
      !stride.tensor<64x32xf32, strides = [1, 64], offset = 0> -> !stride.tensor<8x32xf32>
  %p16 = stride.matmul %x16, %wt : !stride.tensor<16x64xf32>,
      !stride.tensor<64x32xf32, strides = [1, 64], offset = 0> -> !stride.tensor<16x32xf32>
  %p33 = stride.matmul %x33, %wt : !stride.tensor<33x64xf32>,
      !stride.tensor<64x32xf32, strides = [1, 64], offset = 0> -> !stride.tensor<33x32xf32>
  return %p8, %p16, %p33 : !stride.tensor<8x32xf32>, !stride.tensor<16x32xf32>, !stride.tensor<33x32xf32>
}

// -----

// Layouts the kernel refuses stay library calls under every policy: a
// row-major weight [K, N] (its K elements N apart), a weight read every
// other element along K, activations read down a column (a transposed
// lhs), a batched product, f64, and the GELU epilogue.
// CHECK-LABEL: func.func @refused
// CHECK-NOT: stride.skinny_product
// CHECK: stride.matmul {{.*}}lhs_layout
// CHECK-NOT: stride.skinny_product
// CHECK: stride.matmul {{.*}}lhs_layout
// CHECK-NOT: stride.skinny_product
// CHECK: stride.matmul {{.*}}lhs_layout
// CHECK-NOT: stride.skinny_product
// CHECK: stride.matmul {{.*}}lhs_layout
// CHECK-NOT: stride.skinny_product
// CHECK: stride.matmul {{.*}}lhs_layout
// CHECK-NOT: stride.skinny_product
// CHECK: stride.matmul {{.*}}epilogue gelu_tanh {lhs_layout
// CHECK-NOT: stride.skinny_product
// CHECK: return
func.func @refused(%x: !stride.tensor<2x64xf32>, %kn: !stride.tensor<64x32xf32>,
                   %w2: !stride.tensor<32x128xf32>, %xt: !stride.tensor<64x2xf32>,
                   %w: !stride.tensor<32x64xf32>, %xb: !stride.tensor<3x2x64xf32>,
                   %x64: !stride.tensor<2x64xf64>, %w64: !stride.tensor<64x32xf64>)
    -> (!stride.tensor<2x32xf32>, !stride.tensor<2x32xf32>, !stride.tensor<2x32xf32>,
        !stride.tensor<3x2x32xf32>, !stride.tensor<2x32xf64>, !stride.tensor<2x32xf32>) {
  %a = stride.matmul %x, %kn : !stride.tensor<2x64xf32>, !stride.tensor<64x32xf32>
      -> !stride.tensor<2x32xf32>
  %ws = stride.slice %w2 dim 1 start 0 end 128 step 2 : !stride.tensor<32x128xf32>
      -> !stride.tensor<32x64xf32, strides = [128, 2], offset = 0>
  %wst = stride.permute %ws dims [1, 0] : !stride.tensor<32x64xf32, strides = [128, 2], offset = 0>
      -> !stride.tensor<64x32xf32, strides = [2, 128], offset = 0>
  %b = stride.matmul %x, %wst : !stride.tensor<2x64xf32>,
      !stride.tensor<64x32xf32, strides = [2, 128], offset = 0> -> !stride.tensor<2x32xf32>
  %xtt = stride.permute %xt dims [1, 0] : !stride.tensor<64x2xf32>
      -> !stride.tensor<2x64xf32, strides = [1, 2], offset = 0>
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<32x64xf32>
      -> !stride.tensor<64x32xf32, strides = [1, 64], offset = 0>
  %c = stride.matmul %xtt, %wt : !stride.tensor<2x64xf32, strides = [1, 2], offset = 0>,
      !stride.tensor<64x32xf32, strides = [1, 64], offset = 0> -> !stride.tensor<2x32xf32>
  %we = stride.expand %wt : !stride.tensor<64x32xf32, strides = [1, 64], offset = 0>
      -> !stride.tensor<3x64x32xf32, strides = [0, 1, 64], offset = 0>
  %d = stride.matmul %xb, %we : !stride.tensor<3x2x64xf32>,
      !stride.tensor<3x64x32xf32, strides = [0, 1, 64], offset = 0> -> !stride.tensor<3x2x32xf32>
  %e = stride.matmul %x64, %w64 : !stride.tensor<2x64xf64>, !stride.tensor<64x32xf64>
      -> !stride.tensor<2x32xf64>
  %f = stride.matmul %x, %wt epilogue gelu_tanh : !stride.tensor<2x64xf32>,
      !stride.tensor<64x32xf32, strides = [1, 64], offset = 0> -> !stride.tensor<2x32xf32>
  return %a, %b, %c, %d, %e, %f : !stride.tensor<2x32xf32>, !stride.tensor<2x32xf32>,
      !stride.tensor<2x32xf32>, !stride.tensor<3x2x32xf32>, !stride.tensor<2x32xf64>,
      !stride.tensor<2x32xf32>
}

// -----

// A mark written on the op stands, whatever the policy.
// CHECK-LABEL: func.func @marked
// CHECK: stride.matmul %arg0, %{{.*}} {stride.skinny_product} :
// CHECK-NOT: lhs_layout
// CHECK: return
func.func @marked(%x: !stride.tensor<1x64xf32>, %w: !stride.tensor<32x64xf32>)
    -> !stride.tensor<1x32xf32> {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<32x64xf32>
      -> !stride.tensor<64x32xf32, strides = [1, 64], offset = 0>
  %p = stride.matmul %x, %wt {stride.skinny_product} : !stride.tensor<1x64xf32>,
      !stride.tensor<64x32xf32, strides = [1, 64], offset = 0> -> !stride.tensor<1x32xf32>
  return %p : !stride.tensor<1x32xf32>
}
