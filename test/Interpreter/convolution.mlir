// stride.convolution in the reference interpreter, against values worked
// out by hand: a 1-D convolution with stride, padding and bias; a
// depthwise 2-D convolution with dilation; transposed convolutions with
// output_padding and padding; a channels-last input (a stride order);
// weight gradients (stride.convolution_weight_gradient), strided and
// padded, and grouped.
// RUN: stride-run %s --reference --entry=strided --print | FileCheck %s --check-prefix=S
// RUN: stride-run %s --reference --entry=depthwise --print | FileCheck %s --check-prefix=D
// RUN: stride-run %s --reference --entry=transposed --print | FileCheck %s --check-prefix=T
// RUN: stride-run %s --reference --entry=channels_last --print | FileCheck %s --check-prefix=C
// RUN: stride-run %s --reference --entry=weight_gradient --print | FileCheck %s --check-prefix=WG
// RUN: stride-run %s --reference --entry=weight_gradient_grouped --print | FileCheck %s --check-prefix=WGG

// x = [0, 1, 2, 3, 4] padded by 1: [0, 0, 1, 2, 3, 4, 0]; windows of 2 at
// 0, 2, 4 times [1, 2]: 0, 1 + 4, 3 + 8; plus the bias 0.5.
func.func @strided() -> !stride.tensor<1x1x3xf32> {
  %x = stride.iota dim 2 : !stride.tensor<1x1x5xf32>
  %w = stride.constant dense<[[[1.0, 2.0]]]> : tensor<1x1x2xf32> : !stride.tensor<1x1x2xf32>
  %b = stride.constant dense<[0.5]> : tensor<1xf32> : !stride.tensor<1xf32>
  %y = stride.convolution %x, %w bias %b stride [2] padding [1] dilation [1] groups 1
      : !stride.tensor<1x1x5xf32>, !stride.tensor<1x1x2xf32>, !stride.tensor<1xf32>
      -> !stride.tensor<1x1x3xf32>
  return %y : !stride.tensor<1x1x3xf32>
}
// S:      result0: f32 [1, 1, 3]
// S-NEXT: {{\[\[}}[0.5, 5.5, 11.5]]]

// x = 0..17 as [1, 2, 3, 3]; a 2x2 kernel dilated by 2 reads the corners
// of each 3x3 channel: channel 0 times ones, 0 + 2 + 6 + 8 = 16; channel 1
// (9..17) times [[1, 0], [0, -1]], 9 - 17 = -8.
func.func @depthwise() -> !stride.tensor<1x2x1x1xf32> {
  %i = stride.iota dim 0 : !stride.tensor<18xf32>
  %x = stride.view %i : !stride.tensor<18xf32> -> !stride.tensor<1x2x3x3xf32>
  %w = stride.constant dense<[[[[1.0, 1.0], [1.0, 1.0]]], [[[1.0, 0.0], [0.0, -1.0]]]]>
      : tensor<2x1x2x2xf32> : !stride.tensor<2x1x2x2xf32>
  %y = stride.convolution %x, %w stride [1, 1] padding [0, 0] dilation [2, 2] groups 2
      : !stride.tensor<1x2x3x3xf32>, !stride.tensor<2x1x2x2xf32> -> !stride.tensor<1x2x1x1xf32>
  return %y : !stride.tensor<1x2x1x1xf32>
}
// D:      result0: f32 [1, 2, 1, 1]
// D-NEXT: {{\[\[\[}}[16]],
// D-NEXT:  {{\[\[}}-8]]]]

// x = [1, 2, 3], stride 2: x[i] adds x[i] * w[k] at 2 i + k; channel 0's
// kernel is [1, 10], channel 1's [100, 0]; output_padding 1 adds a last
// (zero) element: size (3 - 1) 2 + 2 + 1 = 7. With padding 1 instead, the
// result drops one element at each end: size 4.
func.func @transposed() -> (!stride.tensor<1x2x7xf32>, !stride.tensor<1x2x4xf32>) {
  %x = stride.constant dense<[[[1.0, 2.0, 3.0]]]> : tensor<1x1x3xf32> : !stride.tensor<1x1x3xf32>
  %w = stride.constant dense<[[[1.0, 10.0], [100.0, 0.0]]]> : tensor<1x2x2xf32> : !stride.tensor<1x2x2xf32>
  %y = stride.convolution %x, %w stride [2] padding [0] dilation [1] groups 1 transposed
      output_padding [1]
      : !stride.tensor<1x1x3xf32>, !stride.tensor<1x2x2xf32> -> !stride.tensor<1x2x7xf32>
  %z = stride.convolution %x, %w stride [2] padding [1] dilation [1] groups 1 transposed
      : !stride.tensor<1x1x3xf32>, !stride.tensor<1x2x2xf32> -> !stride.tensor<1x2x4xf32>
  return %y, %z : !stride.tensor<1x2x7xf32>, !stride.tensor<1x2x4xf32>
}
// T:      result0: f32 [1, 2, 7]
// T-NEXT: {{\[\[}}[1, 10, 2, 20, 3, 30, 0],
// T-NEXT:   [100, 0, 200, 0, 300, 0, 0]]]
// T-NEXT: result1: f32 [1, 2, 4]
// T-NEXT: {{\[\[}}[10, 2, 20, 3],
// T-NEXT:   [0, 200, 0, 300]]]

// A channels-last input: 0..7 as [N, H, W, C] permuted to [N, C, H, W]
// (strides [8, 1, 4, 2]), so x[c, h, w] = 4 h + 2 w + c; a 1x1 kernel
// [1, 10] gives x[0] + 10 x[1] = 11 (4 h + 2 w) + 10.
!nhwc = !stride.tensor<1x2x2x2xf32, strides = [8, 1, 4, 2], offset = 0>
func.func @channels_last() -> !stride.tensor<1x1x2x2xf32> {
  %i = stride.iota dim 0 : !stride.tensor<8xf32>
  %v = stride.view %i : !stride.tensor<8xf32> -> !stride.tensor<1x2x2x2xf32>
  %x = stride.permute %v dims [0, 3, 1, 2] : !stride.tensor<1x2x2x2xf32> -> !nhwc
  %w = stride.constant dense<[[[[1.0]], [[10.0]]]]> : tensor<1x2x1x1xf32> : !stride.tensor<1x2x1x1xf32>
  %y = stride.convolution %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1
      : !nhwc, !stride.tensor<1x2x1x1xf32> -> !stride.tensor<1x1x2x2xf32>
  return %y : !stride.tensor<1x1x2x2xf32>
}
// C:      result0: f32 [1, 1, 2, 2]
// C-NEXT: {{\[\[\[}}[10, 32],
// C-NEXT:    [54, 76]]]]

// x = [0, 1, 2, 3, 4] padded by 1, dy = [1, 10, 100] at stride 2: kernel
// offset k reads x[2 y - 1 + k]: k = 0 reads [pad, 1, 3], 10 + 300; k = 1
// reads [0, 2, 4], 20 + 400.
func.func @weight_gradient() -> !stride.tensor<1x1x2xf32> {
  %x = stride.iota dim 2 : !stride.tensor<1x1x5xf32>
  %dy = stride.constant dense<[[[1.0, 10.0, 100.0]]]> : tensor<1x1x3xf32> : !stride.tensor<1x1x3xf32>
  %dw = stride.convolution_weight_gradient %x, %dy stride [2] padding [1] dilation [1] groups 1
      : !stride.tensor<1x1x5xf32>, !stride.tensor<1x1x3xf32> -> !stride.tensor<1x1x2xf32>
  return %dw : !stride.tensor<1x1x2xf32>
}
// WG:      result0: f32 [1, 1, 2]
// WG-NEXT: {{\[\[}}[310, 420]]]

// Two groups: x = [[0, 1, 2], [3, 4, 5]]; output channel 0 reads input
// channel 0 with dy [1, 10] (k = 0: 0 + 10, k = 1: 1 + 20), channel 1
// reads input channel 1 with dy [100, 1000] (300 + 4000, 400 + 5000).
func.func @weight_gradient_grouped() -> !stride.tensor<2x1x2xf32> {
  %i = stride.iota dim 0 : !stride.tensor<6xf32>
  %x = stride.view %i : !stride.tensor<6xf32> -> !stride.tensor<1x2x3xf32>
  %dy = stride.constant dense<[[[1.0, 10.0], [100.0, 1000.0]]]> : tensor<1x2x2xf32> : !stride.tensor<1x2x2xf32>
  %dw = stride.convolution_weight_gradient %x, %dy stride [1] padding [0] dilation [1] groups 2
      : !stride.tensor<1x2x3xf32>, !stride.tensor<1x2x2xf32> -> !stride.tensor<2x1x2xf32>
  return %dw : !stride.tensor<2x1x2xf32>
}
// WGG:      result0: f32 [2, 1, 2]
// WGG-NEXT: {{\[\[}}[10, 21]],
// WGG-NEXT: {{\[\[}}4300, 5400]]]
