// LayerNorm's training forward over rows of 70,001: one row per cluster of
// blocks on sm_90, re-read in each phase by a block per row on sm_80; the
// mean and rstd (without keepdim) stored once per row.
func.func @ln_train_long(%x: !stride.tensor<2x70001xf32>)
    -> (!stride.tensor<2x70001xf32>, !stride.tensor<2xf32>, !stride.tensor<2xf32>) {
  %m = stride.mean %x dims [1] : !stride.tensor<2x70001xf32> -> !stride.tensor<2xf32>
  %mu = stride.unsqueeze %m dim 1 : !stride.tensor<2xf32> -> !stride.tensor<2x1xf32>
  %mb = stride.expand %mu : !stride.tensor<2x1xf32> -> !stride.tensor<2x70001xf32, strides = [1, 0]>
  %c = stride.sub %x, %mb : !stride.tensor<2x70001xf32>, !stride.tensor<2x70001xf32, strides = [1, 0]> -> !stride.tensor<2x70001xf32>
  %sq = stride.mul %c, %c : !stride.tensor<2x70001xf32>, !stride.tensor<2x70001xf32> -> !stride.tensor<2x70001xf32>
  %v = stride.mean %sq dims [1] : !stride.tensor<2x70001xf32> -> !stride.tensor<2xf32>
  %e = stride.full 1.0e-05 : !stride.tensor<2xf32>
  %ve = stride.add %v, %e : !stride.tensor<2xf32>, !stride.tensor<2xf32> -> !stride.tensor<2xf32>
  %r = stride.rsqrt %ve : !stride.tensor<2xf32> -> !stride.tensor<2xf32>
  %ru = stride.unsqueeze %r dim 1 : !stride.tensor<2xf32> -> !stride.tensor<2x1xf32>
  %rb = stride.expand %ru : !stride.tensor<2x1xf32> -> !stride.tensor<2x70001xf32, strides = [1, 0]>
  %y = stride.mul %c, %rb : !stride.tensor<2x70001xf32>, !stride.tensor<2x70001xf32, strides = [1, 0]> -> !stride.tensor<2x70001xf32>
  return %y, %m, %r : !stride.tensor<2x70001xf32>, !stride.tensor<2xf32>, !stride.tensor<2xf32>
}
