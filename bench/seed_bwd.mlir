// seed_bwd: the gradient of x in the seed graph at GPU size.
// g[64, 4096] unsqueezed and expanded to [64, 1024, 4096] (stride 0 on dim 1),
// slice_scatter of zeros[64, 512, 4096] at [0:512] on dim 1.
// Minimal bytes: read g (1 MiB) + write the output (1 GiB)
//   = 1,048,576 + 1,073,741,824 = 1,074,790,400 bytes.
func.func @seed_bwd(%g: !stride.tensor<64x4096xf32>) -> !stride.tensor<64x1024x4096xf32> {
  %u = stride.unsqueeze %g dim 1 : !stride.tensor<64x4096xf32>
      -> !stride.tensor<64x1x4096xf32, strides = [4096, 4096, 1]>
  %e = stride.expand %u : !stride.tensor<64x1x4096xf32, strides = [4096, 4096, 1]>
      -> !stride.tensor<64x1024x4096xf32, strides = [4096, 0, 1]>
  %z = stride.full 0.0 : !stride.tensor<64x512x4096xf32>
  %r = stride.slice_scatter %e, %z dim 1 start 0 end 512 step 1
      : !stride.tensor<64x1024x4096xf32, strides = [4096, 0, 1]>, !stride.tensor<64x512x4096xf32>
      -> !stride.tensor<64x1024x4096xf32>
  return %r : !stride.tensor<64x1024x4096xf32>
}
