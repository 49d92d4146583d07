// A bf16 ResNet-style block whose ReLUs and skip connection cuDNN computes
// in the convolutions' calls (python-free-docs/convolution.md): a 3x3
// convolution with bias and ReLU, a 3x3 convolution whose result plus the
// first ReLU's is ReLU'd (the skip connection), then a 1x1 convolution
// returned. The intermediates are channels-last, so each ReLU and the add
// become the epilogue of the convolution before them.
func.func @block(%x: !stride.tensor<2x8x6x6xbf16>, %w1: !stride.tensor<8x8x3x3xbf16>,
                 %b1: !stride.tensor<8xbf16>, %w2: !stride.tensor<8x8x3x3xbf16>,
                 %w3: !stride.tensor<16x8x1x1xbf16>)
    -> !stride.tensor<2x16x6x6xbf16> {
  %c1 = stride.convolution %x, %w1 bias %b1 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<8x8x3x3xbf16>, !stride.tensor<8xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %r1 = stride.relu %c1 : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %c2 = stride.convolution %r1, %w2 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<8x8x3x3xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %s = stride.add %c2, %r1 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %r2 = stride.relu %s : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %c3 = stride.convolution %r2, %w3 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<16x8x1x1xbf16> -> !stride.tensor<2x16x6x6xbf16>
  return %c3 : !stride.tensor<2x16x6x6xbf16>
}
