// Two skinny products over module constants, as a decode step's
// nn.Linear weights ([N, K] read through a permute): 1 x 256 against a
// 64 x 256 weight (32 KiB), then 1 x 64 against a 32 x 64 weight (4 KiB).
// l2-windows.test keeps the first of them and part of the second in L2.
func.func @forward(%x: !stride.tensor<1x256xbf16> {stride.name = "x"})
    -> (!stride.tensor<1x32xbf16> {stride.name = "y"}) {
  %w1 = stride.constant dense<0.5> : tensor<64x256xbf16> : !stride.tensor<64x256xbf16>
  %w1t = stride.permute %w1 dims [1, 0] : !stride.tensor<64x256xbf16>
      -> !stride.tensor<256x64xbf16, strides = [1, 256], offset = 0>
  %h = stride.matmul %x, %w1t : !stride.tensor<1x256xbf16>,
      !stride.tensor<256x64xbf16, strides = [1, 256], offset = 0> -> !stride.tensor<1x64xbf16>
  %w2 = stride.constant dense<0.25> : tensor<32x64xbf16> : !stride.tensor<32x64xbf16>
  %w2t = stride.permute %w2 dims [1, 0] : !stride.tensor<32x64xbf16>
      -> !stride.tensor<64x32xbf16, strides = [1, 64], offset = 0>
  %y = stride.matmul %h, %w2t : !stride.tensor<1x64xbf16>,
      !stride.tensor<64x32xbf16, strides = [1, 64], offset = 0> -> !stride.tensor<1x32xbf16>
  return %y : !stride.tensor<1x32xbf16>
}
