// erf, any and cat reject invalid operands with a message that says what
// was expected.
// RUN: stride-opt %s -split-input-file -verify-diagnostics

func.func @f(%x: !stride.tensor<4xi32>) {
  // expected-error @+1 {{'stride.erf' op operand #0 must be stride tensor of floating-point values (f16, bf16, f32, f64), but got '!stride.tensor<4xi32, strides = [1], offset = 0>'}}
  %0 = stride.erf %x : !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xf32>) {
  // expected-error @+1 {{'stride.any' op operand #0 must be stride tensor of booleans (i1), but got '!stride.tensor<4x13xf32, strides = [13, 1], offset = 0>'}}
  %0 = stride.any %x dims [1] : !stride.tensor<4x13xf32> -> !stride.tensor<4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xi1>) {
  // expected-error @+1 {{'stride.any' op result has shape [4, 1], expected [4] (the input's shape without the reduced dims)}}
  %0 = stride.any %x dims [1] : !stride.tensor<4x13xi1> -> !stride.tensor<4x1xi1>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xi1>) {
  // expected-error @+1 {{'stride.any' op dim 2 is out of range [0, 2)}}
  %0 = stride.any %x dims [2] : !stride.tensor<4x13xi1> -> !stride.tensor<4xi1>
  return
}
// -----
func.func @f() {
  // expected-error @+1 {{'stride.cat' op needs at least one input}}
  %0 = "stride.cat"() {dim = 0 : i64} : () -> !stride.tensor<4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x6xf32>) {
  // expected-error @+1 {{'stride.cat' op dim 2 is out of range [0, 2)}}
  %0 = stride.cat %x, %x dim 2 : !stride.tensor<4x6xf32>, !stride.tensor<4x6xf32> -> !stride.tensor<4x12xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x6xf32>, %y: !stride.tensor<4x7xf16>) {
  // expected-error @+1 {{'stride.cat' op input #1 has element type 'f16', but the result has 'f32'}}
  %0 = stride.cat %x, %y dim 1 : !stride.tensor<4x6xf32>, !stride.tensor<4x7xf16> -> !stride.tensor<4x13xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x6xf32>, %y: !stride.tensor<5x7xf32>) {
  // expected-error @+1 {{'stride.cat' op input #1 has shape [5, 7], expected [4, 7] (the result's shape but in dim 1)}}
  %0 = stride.cat %x, %y dim 1 : !stride.tensor<4x6xf32>, !stride.tensor<5x7xf32> -> !stride.tensor<4x13xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x6xf32>, %y: !stride.tensor<4x7x1xf32>) {
  // expected-error @+1 {{'stride.cat' op input #1 has rank 3, but the result has rank 2}}
  %0 = stride.cat %x, %y dim 1 : !stride.tensor<4x6xf32>, !stride.tensor<4x7x1xf32> -> !stride.tensor<4x13xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x6xf32>, %y: !stride.tensor<4x7xf32>) {
  // expected-error @+1 {{'stride.cat' op result dim 1 has size 12, but the inputs' sizes in it add up to 13}}
  %0 = stride.cat %x, %y dim 1 : !stride.tensor<4x6xf32>, !stride.tensor<4x7xf32> -> !stride.tensor<4x12xf32>
  return
}
