// argmax and argmin reject invalid operands with a message that says what
// was expected.
// RUN: stride-opt %s -split-input-file -verify-diagnostics

func.func @f(%x: !stride.tensor<4x13xf32>) {
  // expected-error @+1 {{'stride.argmax' op dim 2 is out of range [0, 2)}}
  %0 = stride.argmax %x dim 2 : !stride.tensor<4x13xf32> -> !stride.tensor<4xi64>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xf32>) {
  // expected-error @+1 {{'stride.argmin' op dim -1 is out of range [0, 2)}}
  %0 = stride.argmin %x dim -1 : !stride.tensor<4x13xf32> -> !stride.tensor<4xi64>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xf32>) {
  // expected-error @+1 {{'stride.argmax' op result has shape [4], expected [4, 1] (the input's shape with the reduced dims of size 1)}}
  %0 = stride.argmax %x dim 1 keepdim : !stride.tensor<4x13xf32> -> !stride.tensor<4xi64>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xf32>) {
  // expected-error @+1 {{'stride.argmax' op result has shape [13], expected [4] (the input's shape without the reduced dims)}}
  %0 = stride.argmax %x dim 1 : !stride.tensor<4x13xf32> -> !stride.tensor<13xi64>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xf32>) {
  // expected-error @+1 {{'stride.argmax' op result #0 must be stride tensor of indices (i64)}}
  %0 = stride.argmax %x dim 1 : !stride.tensor<4x13xf32> -> !stride.tensor<4xi32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xi1>) {
  // expected-error @+1 {{'stride.argmin' op operand #0 must be stride tensor of numbers}}
  %0 = stride.argmin %x dim 1 : !stride.tensor<4x13xi1> -> !stride.tensor<4xi64>
  return
}
// -----
func.func @f(%x: !stride.tensor<f32>) {
  // expected-error @+1 {{'stride.argmax' op dim 0 is out of range [0, 0)}}
  %0 = stride.argmax %x dim 0 : !stride.tensor<f32> -> !stride.tensor<i64>
  return
}
