// stride.convolution_weight_gradient's verifier: the forward
// convolution's rules (Convolution.h) over its input and a weight of its
// result's shape, grad_output of the forward's result shape, one element
// type; and a valid op round-trips.
// RUN: stride-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @valid
// CHECK: stride.convolution_weight_gradient %arg0, %arg1 stride [2] padding [0] dilation [1] groups 1 : <2x3x9xf32, {{.*}}>, <2x4x4xf32, {{.*}}> -> <4x3x3xf32, strides = [9, 3, 1], offset = 0>
func.func @valid(%x: !stride.tensor<2x3x9xf32>, %dy: !stride.tensor<2x4x4xf32>) -> !stride.tensor<4x3x3xf32> {
  %dw = stride.convolution_weight_gradient %x, %dy stride [2] padding [0] dilation [1] groups 1 : !stride.tensor<2x3x9xf32>, !stride.tensor<2x4x4xf32> -> !stride.tensor<4x3x3xf32>
  return %dw : !stride.tensor<4x3x3xf32>
}

// -----

func.func @grad_output_shape(%x: !stride.tensor<2x3x9xf32>, %dy: !stride.tensor<2x4x5xf32>) -> !stride.tensor<4x3x3xf32> {
  // expected-error @+2 {{'stride.convolution_weight_gradient' op grad_output has shape [2, 4, 5], expected the forward convolution's result [2, 4, 4]}}
  // expected-note @+1 {{the forward convolves the input [2, 3, 9] by a weight of the result's shape [4, 3, 3]}}
  %dw = stride.convolution_weight_gradient %x, %dy stride [2] padding [0] dilation [1] groups 1 : !stride.tensor<2x3x9xf32>, !stride.tensor<2x4x5xf32> -> !stride.tensor<4x3x3xf32>
  return %dw : !stride.tensor<4x3x3xf32>
}

// -----

func.func @groups(%x: !stride.tensor<2x4x9xf32>, %dy: !stride.tensor<2x6x7xf32>) -> !stride.tensor<6x2x3xf32> {
  // expected-error @+2 {{'stride.convolution_weight_gradient' op weight [6, 2, 3] has 2 input channels per group (dim 1), expected 4 / 1 groups = 4}}
  // expected-note @+1 {{a convolution's weight is [out_channels, in_channels / groups, kernel...]}}
  %dw = stride.convolution_weight_gradient %x, %dy stride [1] padding [0] dilation [1] groups 1 : !stride.tensor<2x4x9xf32>, !stride.tensor<2x6x7xf32> -> !stride.tensor<6x2x3xf32>
  return %dw : !stride.tensor<6x2x3xf32>
}

// -----

func.func @padding(%x: !stride.tensor<2x3x9xf32>, %dy: !stride.tensor<2x4x4xf32>) -> !stride.tensor<4x3x3xf32> {
  // expected-error @+1 {{'stride.convolution_weight_gradient' op padding must be at least 0 in each spatial dim, got [-1]}}
  %dw = stride.convolution_weight_gradient %x, %dy stride [2] padding [-1] dilation [1] groups 1 : !stride.tensor<2x3x9xf32>, !stride.tensor<2x4x4xf32> -> !stride.tensor<4x3x3xf32>
  return %dw : !stride.tensor<4x3x3xf32>
}

// -----

func.func @element_type(%x: !stride.tensor<2x3x9xf32>, %dy: !stride.tensor<2x4x4xbf16>) -> !stride.tensor<4x3x3xf32> {
  // expected-error @+1 {{'stride.convolution_weight_gradient' op grad_output has element type 'bf16', expected the input's 'f32'}}
  %dw = stride.convolution_weight_gradient %x, %dy stride [2] padding [0] dilation [1] groups 1 : !stride.tensor<2x3x9xf32>, !stride.tensor<2x4x4xbf16> -> !stride.tensor<4x3x3xf32>
  return %dw : !stride.tensor<4x3x3xf32>
}
