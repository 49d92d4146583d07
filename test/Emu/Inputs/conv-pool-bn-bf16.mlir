// A bf16 convolution whose ReLU is max-pooled (a channels-last image: the
// pool's threads take its outputs channels innermost, the schedule's
// output_order), and a second convolution whose result a batch norm sums
// per channel (kept row-major by stride-convolution-layout) and that a
// third convolution reads (copied into channels-last as a staged
// transpose). Run with --multiprocessors=1, so that the pool's 4096 windows fill the GPU a thread each.
func.func @conv_pool_bn(%x: !stride.tensor<2x8x32x32xbf16>, %w: !stride.tensor<8x8x3x3xbf16>,
                        %w2: !stride.tensor<12x8x3x3xbf16>, %w3: !stride.tensor<8x12x1x1xbf16>)
    -> (!stride.tensor<2x8x16x16xbf16>, !stride.tensor<12xbf16>, !stride.tensor<2x8x32x32xbf16>) {
  %c = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x32x32xbf16>, !stride.tensor<8x8x3x3xbf16> -> !stride.tensor<2x8x32x32xbf16>
  %r = stride.relu %c : !stride.tensor<2x8x32x32xbf16> -> !stride.tensor<2x8x32x32xbf16>
  %v = stride.as_strided %r : !stride.tensor<2x8x32x32xbf16> -> !stride.tensor<2x8x16x16x2x2xbf16, strides = [8192, 1024, 64, 2, 32, 1], offset = 0>
  %m = stride.max %v dims [4, 5] : !stride.tensor<2x8x16x16x2x2xbf16, strides = [8192, 1024, 64, 2, 32, 1], offset = 0> -> !stride.tensor<2x8x16x16xbf16>
  %c2 = stride.convolution %x, %w2 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x32x32xbf16>, !stride.tensor<12x8x3x3xbf16> -> !stride.tensor<2x12x32x32xbf16>
  %s = stride.sum %c2 dims [0, 2, 3] : !stride.tensor<2x12x32x32xbf16> -> !stride.tensor<12xbf16>
  %c3 = stride.convolution %c2, %w3 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : !stride.tensor<2x12x32x32xbf16>, !stride.tensor<8x12x1x1xbf16> -> !stride.tensor<2x8x32x32xbf16>
  %r3 = stride.relu %c3 : !stride.tensor<2x8x32x32xbf16> -> !stride.tensor<2x8x32x32xbf16>
  return %m, %s, %r3 : !stride.tensor<2x8x16x16xbf16>, !stride.tensor<12xbf16>, !stride.tensor<2x8x32x32xbf16>
}
