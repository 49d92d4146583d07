// ResNet's bottleneck end in bf16: a pointwise convolution's product
// [1, N * P, C_out] with its bias, viewed as its channels-last image, plus
// the identity image, then the ReLU; stride-fuse folds the add into the
// product as its addend (cuBLASLt's C), read through the inverse views.
// The call rounds x w + b + identity once to bf16 where the graph rounds
// the product, then the sum: an element whose two terms nearly cancel
// differs from the reference by up to one rounding of the terms.
!img = !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>
func.func @bottleneck(%cx: !stride.tensor<1x32x16xbf16> {stride.name = "cx"},
                      %cw: !stride.tensor<1x16x8xbf16> {stride.name = "cw"},
                      %cb: !stride.tensor<8xbf16> {stride.name = "cb"},
                      %identity: !img {stride.name = "identity"}) -> !img {
  %cbe = stride.expand %cb : !stride.tensor<8xbf16>
      -> !stride.tensor<1x32x8xbf16, strides = [0, 0, 1], offset = 0>
  %c = stride.matmul %cx, %cw : !stride.tensor<1x32x16xbf16>, !stride.tensor<1x16x8xbf16>
      -> !stride.tensor<1x32x8xbf16>
  %cp = stride.add %c, %cbe : !stride.tensor<1x32x8xbf16>,
      !stride.tensor<1x32x8xbf16, strides = [0, 0, 1], offset = 0> -> !stride.tensor<1x32x8xbf16>
  %cv = stride.view %cp : !stride.tensor<1x32x8xbf16> -> !stride.tensor<2x4x4x8xbf16>
  %ci = stride.permute %cv dims [0, 3, 1, 2] : !stride.tensor<2x4x4x8xbf16> -> !img
  %cr = stride.add %ci, %identity : !img, !img -> !img
  %ca = stride.relu %cr : !img -> !img
  return %ca : !img
}
