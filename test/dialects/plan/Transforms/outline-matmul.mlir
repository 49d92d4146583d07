// stride-outline-executable turns each stride.matmul into a cuBLASLt library
// call with the descriptor of python-free-docs/matmul.md: cuBLASLt's A is the rhs and
// its B the lhs (the row-major product as a column-major one), m = N,
// n = M, the operands' transpose flags, leading dimensions, batch strides
// and offsets, and a 32 MiB workspace that all calls share. (Products of
// few rows are cuBLASLt calls here: skinny-products=library.)
// RUN: stride-opt --stride-pipeline=skinny-products=library --stride-schedule-kernels --stride-outline-executable -split-input-file %s | FileCheck %s
// RUN: stride-opt --stride-pipeline=skinny-products=library --stride-schedule-kernels --stride-outline-executable=allow-tf32 -split-input-file %s | FileCheck %s --check-prefix=TF32

// A linear layer without bias, x[4, 8] @ w[5, 8]^T, then a product whose
// lhs is a window of every other row of y[4, 32] (offset 24, leading
// dimension 64).
// CHECK-LABEL: func.func @linear(
// CHECK-NEXT: %[[X:.*]] = plan.input %arg0
// CHECK-NEXT: %[[W:.*]] = plan.input %arg1
// CHECK-NEXT: %[[Y:.*]] = plan.input %arg2
// CHECK-NEXT: %[[P:.*]] = plan.alloc 80 bytes
// CHECK-NEXT: %[[WS:.*]] = plan.alloc 33554432 bytes
// CHECK-NEXT: plan.library_call "cublaslt.matmul"(%[[W]], %[[X]], %[[P]], %[[WS]]) descriptor {batch = 1 : i64, compute = "32f", dtype = "f32", epilogue = "default", k = 8 : i64, lda = 8 : i64, ldb = 8 : i64, ldd = 5 : i64, m = 5 : i64, n = 4 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_bias = 0 : i64, offset_d = 0 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_d = 20 : i64, transa = 1 : i64, transb = 0 : i64, workspace_bytes = 33554432 : i64}
// CHECK-NEXT: %[[Q:.*]] = plan.alloc 48 bytes
// CHECK-NEXT: plan.library_call "cublaslt.matmul"(%[[P]], %[[Y]], %[[Q]], %[[WS]]) descriptor {batch = 1 : i64, compute = "32f", dtype = "f32", epilogue = "default", k = 4 : i64, lda = 5 : i64, ldb = 64 : i64, ldd = 5 : i64, m = 5 : i64, n = 2 : i64, offset_a = 0 : i64, offset_b = 24 : i64, offset_bias = 0 : i64, offset_d = 0 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_d = 10 : i64, transa = 0 : i64, transb = 0 : i64, workspace_bytes = 33554432 : i64}
// CHECK-NEXT: %[[R:.*]] = plan.output %[[Q]]
// TF32-LABEL: func.func @linear(
// TF32: compute = "32f_fast_tf32"
// TF32: compute = "32f_fast_tf32"
func.func @linear(%x: !stride.tensor<4x8xf32>, %w: !stride.tensor<5x8xf32>,
    %y: !stride.tensor<4x32xf32>) -> !stride.tensor<2x5xf32> {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<5x8xf32>
      -> !stride.tensor<8x5xf32, strides = [1, 8], offset = 0>
  %p = stride.matmul %x, %wt : !stride.tensor<4x8xf32>,
      !stride.tensor<8x5xf32, strides = [1, 8], offset = 0> -> !stride.tensor<4x5xf32>
  %rows = stride.slice %y dim 0 start 0 end 4 step 2 : !stride.tensor<4x32xf32>
      -> !stride.tensor<2x32xf32, strides = [64, 1], offset = 0>
  %window = stride.slice %rows dim 1 start 24 end 28 step 1
      : !stride.tensor<2x32xf32, strides = [64, 1], offset = 0>
      -> !stride.tensor<2x4xf32, strides = [64, 1], offset = 24>
  %q = stride.matmul %window, %p : !stride.tensor<2x4xf32, strides = [64, 1], offset = 24>,
      !stride.tensor<4x5xf32> -> !stride.tensor<2x5xf32>
  return %q : !stride.tensor<2x5xf32>
}

// -----

// bf16, batched, with the weight broadcast over the batch (batch stride 0),
// a bias and ReLU: the "relu_bias" epilogue, the bias after the operands.
// f64 computes in 64f, also with allow-tf32.
// CHECK-LABEL: func.func @batched(
// CHECK:      plan.library_call "cublaslt.matmul"(%{{.*}}, %{{.*}}, %[[B:.*]], %{{.*}}, %{{.*}}) descriptor {batch = 3 : i64, compute = "32f", dtype = "bf16", epilogue = "relu_bias", k = 8 : i64, lda = 16 : i64, ldb = 8 : i64, ldd = 16 : i64, m = 16 : i64, n = 4 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_bias = 0 : i64, offset_d = 0 : i64, stride_a = 0 : i64, stride_b = 32 : i64, stride_d = 64 : i64, transa = 0 : i64, transb = 0 : i64, workspace_bytes = 33554432 : i64}
// CHECK:      plan.library_call "cublaslt.matmul"({{.*}}) descriptor {batch = 1 : i64, compute = "64f", dtype = "f64", epilogue = "default"
// TF32-LABEL: func.func @batched(
// TF32: compute = "32f", dtype = "bf16"
// TF32: compute = "64f", dtype = "f64"
func.func @batched(%x: !stride.tensor<3x4x8xbf16>, %w: !stride.tensor<8x16xbf16>,
    %bias: !stride.tensor<16xbf16>, %d: !stride.tensor<2x2xf64>)
    -> (!stride.tensor<3x4x16xbf16>, !stride.tensor<2x2xf64>) {
  %we = stride.expand %w : !stride.tensor<8x16xbf16>
      -> !stride.tensor<3x8x16xbf16, strides = [0, 16, 1], offset = 0>
  %p = stride.matmul %x, %we bias %bias epilogue relu : !stride.tensor<3x4x8xbf16>,
      !stride.tensor<3x8x16xbf16, strides = [0, 16, 1], offset = 0>, !stride.tensor<16xbf16>
      -> !stride.tensor<3x4x16xbf16>
  %q = stride.matmul %d, %d : !stride.tensor<2x2xf64>, !stride.tensor<2x2xf64>
      -> !stride.tensor<2x2xf64>
  return %p, %q : !stride.tensor<3x4x16xbf16>, !stride.tensor<2x2xf64>
}

// -----

// A product over K = 0 is zeros: a fill, no library call (cuBLASLt takes
// K >= 1); one with no elements has no step at all.
// CHECK-LABEL: func.func @no_k(
// CHECK:      %[[P:.*]] = plan.alloc 80 bytes
// CHECK-NEXT: plan.fill %[[P]] with 0
// CHECK-NEXT: %[[E:.*]] = plan.alloc 16 bytes
// CHECK-NEXT: plan.output %[[P]]
// CHECK-NOT:  plan.library_call
func.func @no_k(%a: !stride.tensor<4x0xf32>, %b: !stride.tensor<0x5xf32>,
    %c: !stride.tensor<0x3xf32>, %d: !stride.tensor<3x5xf32>)
    -> (!stride.tensor<4x5xf32>, !stride.tensor<0x5xf32>) {
  %p = stride.matmul %a, %b : !stride.tensor<4x0xf32>, !stride.tensor<0x5xf32>
      -> !stride.tensor<4x5xf32>
  %e = stride.matmul %c, %d : !stride.tensor<0x3xf32>, !stride.tensor<3x5xf32>
      -> !stride.tensor<0x5xf32>
  return %p, %e : !stride.tensor<4x5xf32>, !stride.tensor<0x5xf32>
}

// -----

// A bf16 product [11, 17] written in 8 row classes (set by hand here; the
// pipeline keeps it), with its bias folded into the calls: class j is rows
// j, j + 8 (ldb = 8 * 8, ldd = 8 * 17) from column c_j = -17j mod 8, its
// element 17j + c_j a multiple of 8, over 16 or 8 columns; the first 7 and
// the last 7 columns follow over all 11 rows (ldd = 17). Each call moves
// the offsets of A (c_j columns of the transposed weight, c_j * 8), B (j
// rows of x, j * 8), the bias (c_j) and D (17j + c_j).
// CHECK-LABEL: func.func @row_classes(
// CHECK:      plan.library_call "cublaslt.matmul"({{.*}}) descriptor {batch = 1 : i64, compute = "32f", dtype = "bf16", epilogue = "bias", k = 8 : i64, lda = 8 : i64, ldb = 64 : i64, ldd = 136 : i64, m = 16 : i64, n = 2 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_bias = 0 : i64, offset_d = 0 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_d = 272 : i64, transa = 1 : i64, transb = 0 : i64, workspace_bytes = 33554432 : i64}
// CHECK-NEXT: plan.library_call "cublaslt.matmul"({{.*}}) descriptor {batch = 1 : i64, compute = "32f", dtype = "bf16", epilogue = "bias", k = 8 : i64, lda = 8 : i64, ldb = 64 : i64, ldd = 136 : i64, m = 8 : i64, n = 2 : i64, offset_a = 56 : i64, offset_b = 8 : i64, offset_bias = 7 : i64, offset_d = 24 : i64, stride_a = 0 : i64, stride_b = 0 : i64, stride_d = 272 : i64, transa = 1 : i64, transb = 0 : i64, workspace_bytes = 33554432 : i64}
// CHECK-NEXT: plan.library_call "cublaslt.matmul"({{.*}}) descriptor {{{.*}} m = 8 : i64, n = 2 : i64, offset_a = 48 : i64, offset_b = 16 : i64, offset_bias = 6 : i64, offset_d = 40 : i64,
// CHECK-NEXT: plan.library_call "cublaslt.matmul"({{.*}}) descriptor {{{.*}} m = 8 : i64, n = 1 : i64, offset_a = 40 : i64, offset_b = 24 : i64, offset_bias = 5 : i64, offset_d = 56 : i64,
// CHECK-NEXT: plan.library_call "cublaslt.matmul"({{.*}}) descriptor {{{.*}} m = 8 : i64, n = 1 : i64, offset_a = 32 : i64, offset_b = 32 : i64, offset_bias = 4 : i64, offset_d = 72 : i64,
// CHECK-NEXT: plan.library_call "cublaslt.matmul"({{.*}}) descriptor {{{.*}} m = 8 : i64, n = 1 : i64, offset_a = 24 : i64, offset_b = 40 : i64, offset_bias = 3 : i64, offset_d = 88 : i64,
// CHECK-NEXT: plan.library_call "cublaslt.matmul"({{.*}}) descriptor {{{.*}} m = 8 : i64, n = 1 : i64, offset_a = 16 : i64, offset_b = 48 : i64, offset_bias = 2 : i64, offset_d = 104 : i64,
// CHECK-NEXT: plan.library_call "cublaslt.matmul"({{.*}}) descriptor {{{.*}} m = 16 : i64, n = 1 : i64, offset_a = 8 : i64, offset_b = 56 : i64, offset_bias = 1 : i64, offset_d = 120 : i64,
// CHECK-NEXT: plan.library_call "cublaslt.matmul"({{.*}}) descriptor {{{.*}} ldb = 8 : i64, ldd = 17 : i64, m = 7 : i64, n = 11 : i64, offset_a = 0 : i64, offset_b = 0 : i64, offset_bias = 0 : i64, offset_d = 0 : i64,
// CHECK-NEXT: plan.library_call "cublaslt.matmul"({{.*}}) descriptor {{{.*}} ldb = 8 : i64, ldd = 17 : i64, m = 7 : i64, n = 11 : i64, offset_a = 80 : i64, offset_b = 0 : i64, offset_bias = 10 : i64, offset_d = 10 : i64,
// CHECK-NEXT: plan.output
func.func @row_classes(%x: !stride.tensor<11x8xbf16>, %w: !stride.tensor<17x8xbf16>,
    %bias: !stride.tensor<17xbf16>) -> !stride.tensor<11x17xbf16> {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<17x8xbf16>
      -> !stride.tensor<8x17xbf16, strides = [1, 8], offset = 0>
  %p = stride.matmul %x, %wt {row_classes = 8 : i64} : !stride.tensor<11x8xbf16>,
      !stride.tensor<8x17xbf16, strides = [1, 8], offset = 0> -> !stride.tensor<11x17xbf16>
  %be = stride.expand %bias : !stride.tensor<17xbf16>
      -> !stride.tensor<11x17xbf16, strides = [0, 1], offset = 0>
  %s = stride.add %p, %be : !stride.tensor<11x17xbf16>,
      !stride.tensor<11x17xbf16, strides = [0, 1], offset = 0> -> !stride.tensor<11x17xbf16>
  return %s : !stride.tensor<11x17xbf16>
}
