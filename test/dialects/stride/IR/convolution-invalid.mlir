// stride.convolution refuses what PyTorch's aten.convolution refuses, with
// a note that says the rule (Convolution.h: inferConvolutionShape).
// RUN: stride-opt %s -split-input-file -verify-diagnostics

func.func @f(%x: !stride.tensor<1x4x8x8xf32>, %w: !stride.tensor<6x2x3x3xf32>) {
  // expected-error @+2 {{'stride.convolution' op groups (3) must be at least 1 and divide the input's 4 channels}}
  // expected-note @+1 {{the input is [1, 4, 8, 8] ([N, C, spatial...])}}
  %0 = stride.convolution %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 3
      : !stride.tensor<1x4x8x8xf32>, !stride.tensor<6x2x3x3xf32> -> !stride.tensor<1x6x6x6xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x8x8xf32>, %w: !stride.tensor<6x2x3x3xf32>) {
  // expected-error @+2 {{'stride.convolution' op groups (0) must be at least 1}}
  // expected-note @+1 {{the input is}}
  %0 = stride.convolution %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 0
      : !stride.tensor<1x4x8x8xf32>, !stride.tensor<6x2x3x3xf32> -> !stride.tensor<1x6x6x6xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x8x8xf32>, %w: !stride.tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{'stride.convolution' op padding must be at least 0 in each spatial dim, got [1, -1]}}
  %0 = stride.convolution %x, %w stride [1, 1] padding [1, -1] dilation [1, 1] groups 2
      : !stride.tensor<1x4x8x8xf32>, !stride.tensor<6x2x3x3xf32> -> !stride.tensor<1x6x8x4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x8x8xf32>, %w: !stride.tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{'stride.convolution' op stride must be at least 1 in each spatial dim, got [0, 1]}}
  %0 = stride.convolution %x, %w stride [0, 1] padding [0, 0] dilation [1, 1] groups 2
      : !stride.tensor<1x4x8x8xf32>, !stride.tensor<6x2x3x3xf32> -> !stride.tensor<1x6x6x6xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x8x8xf32>, %w: !stride.tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{'stride.convolution' op dilation must be at least 1 in each spatial dim, got [1, 0]}}
  %0 = stride.convolution %x, %w stride [1, 1] padding [0, 0] dilation [1, 0] groups 2
      : !stride.tensor<1x4x8x8xf32>, !stride.tensor<6x2x3x3xf32> -> !stride.tensor<1x6x6x6xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x8x8xf32>, %w: !stride.tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{'stride.convolution' op stride has 1 entries, expected one per spatial dim (2)}}
  %0 = stride.convolution %x, %w stride [1] padding [0, 0] dilation [1, 1] groups 2
      : !stride.tensor<1x4x8x8xf32>, !stride.tensor<6x2x3x3xf32> -> !stride.tensor<1x6x6x6xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x8x8xf32>, %w: !stride.tensor<6x4x3x3xf32>) {
  // expected-error @+2 {{'stride.convolution' op weight [6, 4, 3, 3] has 4 input channels per group (dim 1), expected 4 / 2 groups = 2}}
  // expected-note @+1 {{a convolution's weight is [out_channels, in_channels / groups, kernel...]}}
  %0 = stride.convolution %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 2
      : !stride.tensor<1x4x8x8xf32>, !stride.tensor<6x4x3x3xf32> -> !stride.tensor<1x6x6x6xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x8x8xf32>, %w: !stride.tensor<5x1x3x3xf32>) {
  // expected-error @+2 {{'stride.convolution' op weight [5, 1, 3, 3] has 5 output channels (dim 0), which the 4 groups do not divide}}
  // expected-note @+1 {{a convolution's weight is [out_channels, in_channels / groups, kernel...]}}
  %0 = stride.convolution %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 4
      : !stride.tensor<1x4x8x8xf32>, !stride.tensor<5x1x3x3xf32> -> !stride.tensor<1x5x6x6xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x5xf32>, %w: !stride.tensor<3x3x2xf32>) {
  // expected-error @+2 {{'stride.convolution' op weight [3, 3, 2] has 3 input channels (dim 0), expected the input's 4}}
  // expected-note @+1 {{a transposed convolution's weight is [in_channels, out_channels / groups, kernel...]}}
  %0 = stride.convolution %x, %w stride [2] padding [0] dilation [1] groups 1 transposed
      : !stride.tensor<1x4x5xf32>, !stride.tensor<3x3x2xf32> -> !stride.tensor<1x3x10xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x5xf32>, %w: !stride.tensor<4x3x2xf32>) {
  // expected-error @+2 {{'stride.convolution' op output_padding [2] must be smaller than the stride or the dilation in each spatial dim}}
  // expected-note @+1 {{stride [2], dilation [1]}}
  %0 = stride.convolution %x, %w stride [2] padding [0] dilation [1] groups 1 transposed output_padding [2]
      : !stride.tensor<1x4x5xf32>, !stride.tensor<4x3x2xf32> -> !stride.tensor<1x3x12xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x5xf32>, %w: !stride.tensor<3x4x2xf32>) {
  // expected-error @+1 {{'stride.convolution' op output_padding is only for a transposed convolution}}
  %0 = stride.convolution %x, %w stride [2] padding [0] dilation [1] groups 1 output_padding [1]
      : !stride.tensor<1x4x5xf32>, !stride.tensor<3x4x2xf32> -> !stride.tensor<1x3x2xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x5xf32>, %w: !stride.tensor<3x4x2xf32>, %b: !stride.tensor<4xf32>) {
  // expected-error @+1 {{'stride.convolution' op bias has shape [4], expected [3] (one per output channel)}}
  %0 = stride.convolution %x, %w bias %b stride [1] padding [0] dilation [1] groups 1
      : !stride.tensor<1x4x5xf32>, !stride.tensor<3x4x2xf32>, !stride.tensor<4xf32> -> !stride.tensor<1x3x4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x5xf32>, %w: !stride.tensor<3x4x4xf32>) {
  // expected-error @+2 {{'stride.convolution' op spatial dim 0 of the result would have no element: input size 5, kernel 4, stride 1, padding 0, dilation 2}}
  // expected-note @+1 {{the dilated kernel spans dilation * (kernel - 1) + 1 elements of the padded input}}
  %0 = stride.convolution %x, %w stride [1] padding [0] dilation [2] groups 1
      : !stride.tensor<1x4x5xf32>, !stride.tensor<3x4x4xf32> -> !stride.tensor<1x3x1xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<4x5xf32>, %w: !stride.tensor<3x4xf32>) {
  // expected-error @+1 {{'stride.convolution' op input has rank 2, expected 3 to 5 ([N, C, spatial...] with 1 to 3 spatial dims)}}
  %0 = stride.convolution %x, %w stride [] padding [] dilation [] groups 1
      : !stride.tensor<4x5xf32>, !stride.tensor<3x4xf32> -> !stride.tensor<4x3xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x5xf32>, %w: !stride.tensor<3x4x2x2xf32>) {
  // expected-error @+1 {{'stride.convolution' op weight has rank 4, expected the input's rank 3}}
  %0 = stride.convolution %x, %w stride [1] padding [0] dilation [1] groups 1
      : !stride.tensor<1x4x5xf32>, !stride.tensor<3x4x2x2xf32> -> !stride.tensor<1x3x4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x5xf32>, %w: !stride.tensor<3x4x2xf32>) {
  // expected-error @+1 {{'stride.convolution' op result has shape [1, 3, 5], expected [1, 3, 4] ([N, out_channels, spatial...] by the convolution's rule)}}
  %0 = stride.convolution %x, %w stride [1] padding [0] dilation [1] groups 1
      : !stride.tensor<1x4x5xf32>, !stride.tensor<3x4x2xf32> -> !stride.tensor<1x3x5xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x5xf32>, %w: !stride.tensor<3x4x2xf16>) {
  // expected-error @+1 {{'stride.convolution' op weight has element type 'f16', expected the input's 'f32'}}
  %0 = stride.convolution %x, %w stride [1] padding [0] dilation [1] groups 1
      : !stride.tensor<1x4x5xf32>, !stride.tensor<3x4x2xf16> -> !stride.tensor<1x3x4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x5xf32>, %w: !stride.tensor<3x4x0xf32>) {
  // expected-error @+2 {{'stride.convolution' op weight [3, 4, 0] has an empty kernel (dim 2)}}
  // expected-note @+1 {{a convolution's weight is}}
  %0 = stride.convolution %x, %w stride [1] padding [0] dilation [1] groups 1
      : !stride.tensor<1x4x5xf32>, !stride.tensor<3x4x0xf32> -> !stride.tensor<1x3x6xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x5xf32>, %w: !stride.tensor<3x4x2xf32>, %r: !stride.tensor<1x3x5xf32>) {
  // expected-error @+1 {{'stride.convolution' op residual has shape [1, 3, 5], expected the result's [1, 3, 4]}}
  %0 = stride.convolution %x, %w residual %r : !stride.tensor<1x3x5xf32> stride [1] padding [0] dilation [1] groups 1 relu
      : !stride.tensor<1x4x5xf32>, !stride.tensor<3x4x2xf32> -> !stride.tensor<1x3x4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x5xf32>, %w: !stride.tensor<3x4x2xf32>, %r: !stride.tensor<1x3x4xf16>) {
  // expected-error @+1 {{'stride.convolution' op residual has element type 'f16', expected the input's 'f32'}}
  %0 = stride.convolution %x, %w residual %r : !stride.tensor<1x3x4xf16> stride [1] padding [0] dilation [1] groups 1
      : !stride.tensor<1x4x5xf32>, !stride.tensor<3x4x2xf32> -> !stride.tensor<1x3x4xf32>
  return
}
// -----
func.func @f(%x: !stride.tensor<1x4x5xf32>, %w: !stride.tensor<4x3x2xf32>, %r: !stride.tensor<1x3x6xf32>) {
  // expected-error @+1 {{'stride.convolution' op has a residual and is transposed; only a convolution that is not takes one}}
  %0 = stride.convolution %x, %w residual %r : !stride.tensor<1x3x6xf32> stride [1] padding [0] dilation [1] groups 1 transposed
      : !stride.tensor<1x4x5xf32>, !stride.tensor<4x3x2xf32> -> !stride.tensor<1x3x6xf32>
  return
}
