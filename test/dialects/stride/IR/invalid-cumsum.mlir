// cumsum rejects invalid operands with a message that says what was
// expected.
// RUN: stride-opt %s -split-input-file -verify-diagnostics

func.func @f(%x: !stride.tensor<4x13xf32>) {
  // expected-error @+1 {{'stride.cumsum' op dim 2 is out of range [0, 2)}}
  %0 = stride.cumsum %x dim 2 : !stride.tensor<4x13xf32> -> !stride.tensor<4x13xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xf32>) {
  // expected-error @+1 {{'stride.cumsum' op result shape [4, 12] differs from the input's [4, 13]}}
  %0 = stride.cumsum %x dim 1 : !stride.tensor<4x13xf32> -> !stride.tensor<4x12xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xi1>) {
  // expected-error @+1 {{'stride.cumsum' op operand #0 must be stride tensor of}}
  %0 = stride.cumsum %x dim 1 : !stride.tensor<4x13xi1> -> !stride.tensor<4x13xi1>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x13xi32>) {
  // expected-error @+1 {{'stride.cumsum' op failed to verify that all of {input, result} have same element type}}
  %0 = stride.cumsum %x dim 1 : !stride.tensor<4x13xi32> -> !stride.tensor<4x13xi64>
  return
}
// -----
func.func @f(%x: !stride.tensor<f32>) {
  // expected-error @+1 {{'stride.cumsum' op dim 0 is out of range [0, 0)}}
  %0 = stride.cumsum %x dim 0 : !stride.tensor<f32> -> !stride.tensor<f32>
  return
}
