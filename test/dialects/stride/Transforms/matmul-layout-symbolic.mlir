// stride-matmul-layout over symbolic sizes (python-free-docs/symbolic-sizes.md,
// "Library calls over symbolic sizes"): a product over symbolic rows reads
// its operands in place at their layouts at the symbols' largest values,
// with no row classes, aligned copies or padded result rows (an unaligned
// N is padded: it depends on the weight alone); a
// product stride-check-symbolic-sizes would refuse is refused here too. The
// skinny product kernel, which takes a static row count, is not chosen.
// RUN: stride-opt %s -split-input-file -verify-diagnostics --stride-matmul-layout=skinny-products=generated | FileCheck %s

// CHECK-LABEL: func.func @rows
// CHECK: stride.matmul %arg0, %arg1 {lhs_layout = #stride.matmul_operand<transposed = false, ld = 64, batch_stride = 0>, rhs_layout = #stride.matmul_operand<transposed = false, ld = 256, batch_stride = 0>}
// CHECK-NEXT: return
func.func @rows(%x: !stride.tensor<[rows, 64], f32>, %w: !stride.tensor<64x256xf32>) -> !stride.tensor<[rows, 256], f32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 1024]>]} {
  %y = stride.matmul %x, %w : !stride.tensor<[rows, 64], f32>, !stride.tensor<64x256xf32> -> !stride.tensor<[rows, 256], f32>
  return %y : !stride.tensor<[rows, 256], f32>
}

// -----

// bf16 rows of 50 elements (100 bytes, not a multiple of 16): a static
// product would be written in row classes or copied into aligned rows;
// over symbolic rows the library reads the activations as they are, and
// the weight gets zero columns up to N = 56 (16-byte rows), the product is
// written [rows, 56] and its first 50 columns copied into the result.
// CHECK-LABEL: func.func @unaligned_bf16
// CHECK: %[[Z:.*]] = stride.full 0.000000e+00 : <6x50xbf16
// CHECK: %[[P:.*]] = stride.matmul %arg0, %{{.*}} {lhs_layout = #stride.matmul_operand<transposed = false, ld = 50, batch_stride = 0>, rhs_layout = #stride.matmul_operand<transposed = true, ld = 50, batch_stride = 0>} : {{.*}} -> <[rows, 56], bf16, strides = [56, 1], offset = 0>
// CHECK: %[[S:.*]] = stride.slice %[[P]] dim 1 start 0 end 50 step 1 : {{.*}} -> <[rows, 50], bf16, strides = [56, 1], offset = 0>
// CHECK: %[[C:.*]] = stride.clone %[[S]]
// CHECK: return %[[C]]
func.func @unaligned_bf16(%x: !stride.tensor<[rows, 50], bf16>, %w: !stride.tensor<50x50xbf16, strides = [1, 50]>) -> !stride.tensor<[rows, 50], bf16>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 4096]>]} {
  %y = stride.matmul %x, %w : !stride.tensor<[rows, 50], bf16>, !stride.tensor<50x50xbf16, strides = [1, 50]> -> !stride.tensor<[rows, 50], bf16>
  return %y : !stride.tensor<[rows, 50], bf16>
}

// -----

// A transposed activation over symbolic rows: its stride is symbolic.
func.func @transposed(%xt: !stride.tensor<[64, rows], f32>, %w: !stride.tensor<64x32xf32>) -> !stride.tensor<[rows, 32], f32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 1024]>]} {
  %x = stride.permute %xt dims [1, 0] : !stride.tensor<[64, rows], f32> -> !stride.tensor<[rows, 64], f32, strides = [1, rows]>
  // expected-error @+1 {{'stride.matmul' op over symbolic sizes is not built: not yet for products whose operands or result have symbolic strides or offsets (cuBLASLt reads them at one leading dimension and batch stride for the whole range) (stride-check-symbolic-sizes refuses it first)}}
  %y = stride.matmul %x, %w : !stride.tensor<[rows, 64], f32, strides = [1, rows]>, !stride.tensor<64x32xf32> -> !stride.tensor<[rows, 32], f32>
  return %y : !stride.tensor<[rows, 32], f32>
}
