// A bf16 backward of a 3x3 convolution (test/Emu/convolution.test): the
// input's gradient a channels-last transposed convolution (its result read
// by a relu, so Stride owns its layout) and the weight's gradient a wgrad
// over the row-major input and output gradient, both copied into
// channels-last (one copy of the output's gradient for both calls).
func.func @main(%x: !stride.tensor<2x8x6x6xbf16>, %w: !stride.tensor<16x8x3x3xbf16>,
                %dy: !stride.tensor<2x16x6x6xbf16>)
    -> (!stride.tensor<2x8x6x6xbf16>, !stride.tensor<16x8x3x3xbf16>) {
  %dx = stride.convolution %dy, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 transposed
      : !stride.tensor<2x16x6x6xbf16>, !stride.tensor<16x8x3x3xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %r = stride.relu %dx : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %dw = stride.convolution_weight_gradient %x, %dy stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
      : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<2x16x6x6xbf16> -> !stride.tensor<16x8x3x3xbf16>
  return %r, %dw : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<16x8x3x3xbf16>
}
