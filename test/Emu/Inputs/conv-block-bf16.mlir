// A bf16 ResNet-style block (python-free-docs/convolution.md): a 3x3
// convolution with bias, ReLU, a 1x1 convolution, the residual add and a
// ReLU, then a strided, grouped 3x3 convolution returned. By default the 3x3
// ones are cudnn.convolution steps, the 1x1 a cuBLASLt product, and the
// intermediates are channels-last (stride-convolution-layout).
func.func @block(%x: !stride.tensor<2x8x6x6xbf16>, %w1: !stride.tensor<8x8x3x3xbf16>,
                 %b1: !stride.tensor<8xbf16>, %w2: !stride.tensor<8x8x1x1xbf16>,
                 %w3: !stride.tensor<12x4x3x3xbf16>)
    -> (!stride.tensor<2x8x6x6xbf16>, !stride.tensor<2x12x3x3xbf16>) {
  %c1 = stride.convolution %x, %w1 bias %b1 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<8x8x3x3xbf16>, !stride.tensor<8xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %r1 = stride.relu %c1 : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %c2 = stride.convolution %r1, %w2 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<8x8x1x1xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %s = stride.add %c2, %x : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %r2 = stride.relu %s : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %c3 = stride.convolution %r2, %w3 stride [2, 2] padding [1, 1] dilation [1, 1] groups 2 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<12x4x3x3xbf16> -> !stride.tensor<2x12x3x3xbf16>
  return %r2, %c3 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<2x12x3x3xbf16>
}
