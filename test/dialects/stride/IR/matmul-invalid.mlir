// stride.matmul rejects what cuBLASLt and PyTorch's matmul cannot take, with
// a note at the operand that is wrong.
// RUN: stride-opt %s -split-input-file -verify-diagnostics

func.func @f(%a: !stride.tensor<4x8xi32>, %b: !stride.tensor<8x5xi32>) {
  // expected-error @+1 {{'stride.matmul' op takes f16, bf16, f32 or f64 operands, but lhs has element type 'i32'; integer matrix products are not supported}}
  %0 = stride.matmul %a, %b : !stride.tensor<4x8xi32>, !stride.tensor<8x5xi32> -> !stride.tensor<4x5xi32>
  return
}
// -----
// expected-note @+1 {{rhs is defined here}}
func.func @f(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<8x5xf16>) {
  // expected-error @+1 {{'stride.matmul' op rhs has element type 'f16' but lhs has 'f32'; both operands and the result have one element type (convert with stride.cast)}}
  %0 = stride.matmul %a, %b : !stride.tensor<4x8xf32>, !stride.tensor<8x5xf16> -> !stride.tensor<4x5xf32>
  return
}
// -----
func.func @f(%a: !stride.tensor<4x8xbf16>, %b: !stride.tensor<8x5xbf16>) {
  // expected-error @+2 {{'stride.matmul' op result has element type 'f32' but lhs has 'bf16'}}
  // expected-note @+1 {{result is defined here}}
  %0 = stride.matmul %a, %b : !stride.tensor<4x8xbf16>, !stride.tensor<8x5xbf16> -> !stride.tensor<4x5xf32>
  return
}
// -----
// expected-note @+1 {{lhs is defined here}}
func.func @f(%a: !stride.tensor<8xf32>, %b: !stride.tensor<8x5xf32>) {
  // expected-error @+1 {{'stride.matmul' op lhs has shape [8], but a matrix product needs operands of rank 2 or more (unsqueeze a vector into a matrix)}}
  %0 = stride.matmul %a, %b : !stride.tensor<8xf32>, !stride.tensor<8x5xf32> -> !stride.tensor<5xf32>
  return
}
// -----
// expected-note @+1 {{rhs is defined here}}
func.func @f(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<5x5xf32>) {
  // expected-error @+1 {{'stride.matmul' op contracts lhs dim 1 of size 8 with rhs dim 0 of size 5; the sizes must be equal}}
  %0 = stride.matmul %a, %b : !stride.tensor<4x8xf32>, !stride.tensor<5x5xf32> -> !stride.tensor<4x5xf32>
  return
}
// -----
// expected-note @+1 {{rhs is defined here}}
func.func @f(%a: !stride.tensor<2x4x8xf32>, %b: !stride.tensor<3x8x5xf32>) {
  // expected-error @+1 {{'stride.matmul' op batch dim 0 has size 2 in lhs but 3 in rhs; batch dims must be equal (broadcast with stride.expand)}}
  %0 = stride.matmul %a, %b : !stride.tensor<2x4x8xf32>, !stride.tensor<3x8x5xf32> -> !stride.tensor<2x4x5xf32>
  return
}
// -----
// expected-note @+1 {{rhs is defined here}}
func.func @f(%a: !stride.tensor<2x4x8xf32>, %b: !stride.tensor<8x5xf32>) {
  // expected-error @+1 {{'stride.matmul' op lhs has rank 3 but rhs has rank 2; batch dims must be explicit in both operands (broadcast with stride.expand)}}
  %0 = stride.matmul %a, %b : !stride.tensor<2x4x8xf32>, !stride.tensor<8x5xf32> -> !stride.tensor<2x4x5xf32>
  return
}
// -----
func.func @f(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<8x5xf32>) {
  // expected-error @+1 {{'stride.matmul' op result has shape [5, 4], expected [4, 5] (lhs's batch dims and rows, rhs's columns)}}
  %0 = stride.matmul %a, %b : !stride.tensor<4x8xf32>, !stride.tensor<8x5xf32> -> !stride.tensor<5x4xf32>
  return
}
// -----
func.func @f(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<8x5xf32>) {
  // expected-error @+1 {{'stride.matmul' op result type '!stride.tensor<4x5xf32, strides = [1, 4], offset = 0>' is not rows of consecutive elements at offset 0, matrices one after the other; a matrix product writes such a layout (dense row-major, or with rows padded for the library)}}
  %0 = stride.matmul %a, %b : !stride.tensor<4x8xf32>, !stride.tensor<8x5xf32> -> !stride.tensor<4x5xf32, strides = [1, 4]>
  return
}
// -----
func.func @f(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<8x5xf32>, %c: !stride.tensor<4xf32>) {
  // expected-error @+1 {{'stride.matmul' op bias has shape [4], expected [5] (one element per column of the product)}}
  %0 = stride.matmul %a, %b bias %c : !stride.tensor<4x8xf32>, !stride.tensor<8x5xf32>, !stride.tensor<4xf32> -> !stride.tensor<4x5xf32>
  return
}
// -----
func.func @f(%a: !stride.tensor<4x8xf64>, %b: !stride.tensor<8x5xf64>) {
  // expected-error @+1 {{'stride.matmul' op has a bias, an addend or an epilogue on f64 operands; f64 matrix products take none}}
  %0 = stride.matmul %a, %b epilogue relu : !stride.tensor<4x8xf64>, !stride.tensor<8x5xf64> -> !stride.tensor<4x5xf64>
  return
}
// -----
func.func @f(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<8x5xf32>) {
  // expected-error @+1 {{'stride.matmul' op rhs_layout #stride.matmul_operand<transposed = true, ld = 8, batch_stride = 0> does not match the rhs layout: expected #stride.matmul_operand<transposed = false, ld = 5, batch_stride = 0>}}
  %0 = stride.matmul %a, %b {rhs_layout = #stride.matmul_operand<transposed = true, ld = 8, batch_stride = 0>} : !stride.tensor<4x8xf32>, !stride.tensor<8x5xf32> -> !stride.tensor<4x5xf32>
  return
}
// -----
func.func @f(%a: !stride.tensor<4x8xf32, strides = [16, 2]>, %b: !stride.tensor<8x5xf32>) {
  // expected-error @+1 {{'stride.matmul' op lhs_layout #stride.matmul_operand<transposed = false, ld = 16, batch_stride = 0> is recorded, but the lhs layout '!stride.tensor<4x8xf32, strides = [16, 2], offset = 0>' cannot be read in place (stride-matmul-layout copies it)}}
  %0 = stride.matmul %a, %b {lhs_layout = #stride.matmul_operand<transposed = false, ld = 16, batch_stride = 0>} : !stride.tensor<4x8xf32, strides = [16, 2]>, !stride.tensor<8x5xf32> -> !stride.tensor<4x5xf32>
  return
}
// -----
// Row classes: a 2-D product only, of an lhs read row-major into a dense
// result; at least 2 classes.
func.func @f(%a: !stride.tensor<2x4x8xbf16>, %b: !stride.tensor<2x8x17xbf16>) {
  // expected-error @+1 {{'stride.matmul' op has row_classes = 8 on a product of rank 3; only a 2-D product is written in row classes}}
  %0 = stride.matmul %a, %b {row_classes = 8 : i64} : !stride.tensor<2x4x8xbf16>, !stride.tensor<2x8x17xbf16> -> !stride.tensor<2x4x17xbf16>
  return
}
// -----
func.func @f(%a: !stride.tensor<8x4xbf16, strides = [1, 8], offset = 0>, %b: !stride.tensor<4x17xbf16>) {
  // expected-error @+1 {{'stride.matmul' op has row_classes = 8 but its lhs is read transposed (#stride.matmul_operand<transposed = true, ld = 8, batch_stride = 0>); a class of rows is a row-major matrix of every 8th row}}
  %0 = stride.matmul %a, %b {lhs_layout = #stride.matmul_operand<transposed = true, ld = 8, batch_stride = 0>, row_classes = 8 : i64} : !stride.tensor<8x4xbf16, strides = [1, 8], offset = 0>, !stride.tensor<4x17xbf16> -> !stride.tensor<8x17xbf16>
  return
}
// -----
func.func @f(%a: !stride.tensor<4x8xbf16>, %b: !stride.tensor<8x17xbf16>) {
  // expected-error @+1 {{'stride.matmul' op has row_classes = 8 but its result type '!stride.tensor<4x17xbf16, strides = [24, 1], offset = 0>' is not dense row-major}}
  %0 = stride.matmul %a, %b {row_classes = 8 : i64} : !stride.tensor<4x8xbf16>, !stride.tensor<8x17xbf16> -> !stride.tensor<4x17xbf16, strides = [24, 1], offset = 0>
  return
}
// -----
func.func @f(%a: !stride.tensor<4x8xbf16>, %b: !stride.tensor<8x17xbf16>) {
  // expected-error @+1 {{'stride.matmul' op attribute 'row_classes' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 2}}
  %0 = stride.matmul %a, %b {row_classes = 1 : i64} : !stride.tensor<4x8xbf16>, !stride.tensor<8x17xbf16> -> !stride.tensor<4x17xbf16>
  return
}
// -----
func.func @f(%a: !stride.tensor<4x8xbf16>, %b: !stride.tensor<8x17xbf16>, %r: !stride.tensor<4x17xbf16>) {
  // expected-error @+1 {{'stride.matmul' op has an addend and row_classes = 8; the library reads the addend with the result's layout, which row classes split}}
  %0 = stride.matmul %a, %b addend %r {row_classes = 8 : i64} : !stride.tensor<4x8xbf16>, !stride.tensor<8x17xbf16> -> !stride.tensor<4x17xbf16>
  return
}
// -----
func.func @f(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<8x5xf32>, %r: !stride.tensor<4x5xf32, strides = [1, 4], offset = 0>) {
  // expected-error @+1 {{'stride.matmul' op failed to verify that the addend has the result's type}}
  %0 = "stride.matmul"(%a, %b, %r) {operandSegmentSizes = array<i32: 1, 1, 0, 1>} : (!stride.tensor<4x8xf32>, !stride.tensor<8x5xf32>, !stride.tensor<4x5xf32, strides = [1, 4], offset = 0>) -> !stride.tensor<4x5xf32>
  return
}
// -----
func.func @f(%a: !stride.tensor<4x8xf64>, %b: !stride.tensor<8x5xf64>, %r: !stride.tensor<4x5xf64>) {
  // expected-error @+1 {{'stride.matmul' op has a bias, an addend or an epilogue on f64 operands; f64 matrix products take none}}
  %0 = stride.matmul %a, %b addend %r : !stride.tensor<4x8xf64>, !stride.tensor<8x5xf64> -> !stride.tensor<4x5xf64>
  return
}
