// A bf16 convolution followed by an inference batch norm as the importer
// spells it (sub the mean, mul rsqrt(var + eps), mul the weight, add the
// bias), its per-channel factors computed in the graph and broadcast, as
// in torchvision's ResNet-50: stride-fold-into-convolution folds them into
// the weight and bias through views of the computed values (an as_strided
// of a broadcast computed value could not be emitted).
func.func @conv_bn(%x: !stride.tensor<2x8x6x6xbf16>)
    -> !stride.tensor<2x8x6x6xbf16> {
  %w = stride.constant dense<0.125> : tensor<8x8x3x3xbf16> : !stride.tensor<8x8x3x3xbf16>
  %mean = stride.constant dense<[0.5, -0.25, 0.125, 1.0, -1.0, 0.75, 0.0, 0.25]> : tensor<8xbf16> : !stride.tensor<8xbf16>
  %var = stride.constant dense<[1.0, 0.5, 2.0, 0.25, 1.5, 0.75, 1.25, 3.0]> : tensor<8xbf16> : !stride.tensor<8xbf16>
  %gamma = stride.constant dense<[1.0, -0.5, 0.75, 1.25, 0.5, 2.0, -1.0, 0.25]> : tensor<8xbf16> : !stride.tensor<8xbf16>
  %beta = stride.constant dense<[0.0, 0.5, -0.25, 0.125, 1.0, -0.75, 0.25, 0.5]> : tensor<8xbf16> : !stride.tensor<8xbf16>
  %c = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<8x8x3x3xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %va = stride.abs %var : !stride.tensor<8xbf16> -> !stride.tensor<8xbf16>
  %inv = stride.rsqrt %va : !stride.tensor<8xbf16> -> !stride.tensor<8xbf16>
  %m4 = stride.view %mean : !stride.tensor<8xbf16> -> !stride.tensor<1x8x1x1xbf16>
  %me = stride.expand %m4 : !stride.tensor<1x8x1x1xbf16> -> !stride.tensor<2x8x6x6xbf16, strides = [0, 1, 0, 0], offset = 0>
  %i4 = stride.view %inv : !stride.tensor<8xbf16> -> !stride.tensor<1x8x1x1xbf16>
  %ie = stride.expand %i4 : !stride.tensor<1x8x1x1xbf16> -> !stride.tensor<2x8x6x6xbf16, strides = [0, 1, 0, 0], offset = 0>
  %g4 = stride.view %gamma : !stride.tensor<8xbf16> -> !stride.tensor<1x8x1x1xbf16>
  %ge = stride.expand %g4 : !stride.tensor<1x8x1x1xbf16> -> !stride.tensor<2x8x6x6xbf16, strides = [0, 1, 0, 0], offset = 0>
  %b4 = stride.view %beta : !stride.tensor<8xbf16> -> !stride.tensor<1x8x1x1xbf16>
  %be = stride.expand %b4 : !stride.tensor<1x8x1x1xbf16> -> !stride.tensor<2x8x6x6xbf16, strides = [0, 1, 0, 0], offset = 0>
  %s = stride.sub %c, %me : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<2x8x6x6xbf16, strides = [0, 1, 0, 0], offset = 0> -> !stride.tensor<2x8x6x6xbf16>
  %n = stride.mul %s, %ie : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<2x8x6x6xbf16, strides = [0, 1, 0, 0], offset = 0> -> !stride.tensor<2x8x6x6xbf16>
  %g = stride.mul %n, %ge : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<2x8x6x6xbf16, strides = [0, 1, 0, 0], offset = 0> -> !stride.tensor<2x8x6x6xbf16>
  %y = stride.add %g, %be : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<2x8x6x6xbf16, strides = [0, 1, 0, 0], offset = 0> -> !stride.tensor<2x8x6x6xbf16>
  %r = stride.relu %y : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8x6x6xbf16>
  return %r : !stride.tensor<2x8x6x6xbf16>
}
