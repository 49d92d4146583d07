// Weight gradients as cuDNN's wgrad (stride.convolution_weight_gradient,
// test/Emu/convolution.test): a grouped, strided, dilated 2-D one beside
// its input's and bias's gradients (convolution_backward's three
// outputs), and a 1-D one, in f32.
func.func @main(%x: !stride.tensor<2x4x8x6xf32>, %w: !stride.tensor<6x2x3x3xf32>,
                %dy: !stride.tensor<2x6x4x4xf32>, %x1: !stride.tensor<2x3x9xf32>,
                %dy1: !stride.tensor<2x4x4xf32>)
    -> (!stride.tensor<2x4x8x6xf32>, !stride.tensor<6x2x3x3xf32>, !stride.tensor<6xf32>,
        !stride.tensor<4x3x3xf32>) {
  %dx = stride.convolution %dy, %w stride [2, 1] padding [1, 1] dilation [1, 2] groups 2 transposed output_padding [1, 0]
      : !stride.tensor<2x6x4x4xf32>, !stride.tensor<6x2x3x3xf32> -> !stride.tensor<2x4x8x6xf32>
  %dw = stride.convolution_weight_gradient %x, %dy stride [2, 1] padding [1, 1] dilation [1, 2] groups 2
      : !stride.tensor<2x4x8x6xf32>, !stride.tensor<2x6x4x4xf32> -> !stride.tensor<6x2x3x3xf32>
  %db = stride.sum %dy dims [0, 2, 3] : !stride.tensor<2x6x4x4xf32> -> !stride.tensor<6xf32>
  %dw1 = stride.convolution_weight_gradient %x1, %dy1 stride [2] padding [0] dilation [1] groups 1
      : !stride.tensor<2x3x9xf32>, !stride.tensor<2x4x4xf32> -> !stride.tensor<4x3x3xf32>
  return %dx, %dw, %db, %dw1 : !stride.tensor<2x4x8x6xf32>, !stride.tensor<6x2x3x3xf32>,
      !stride.tensor<6xf32>, !stride.tensor<4x3x3xf32>
}
