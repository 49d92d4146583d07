// seed_fwd: slice_scatter(x[64,1024,4096], y[64,512,4096], dim=1, 0, 512).sum(dim=1).
// Minimal bytes: rows [512, 1024) of x (512 MiB; rows [0, 512) are replaced
// and need not be read) + y (512 MiB) + write [64, 4096] (1 MiB)
//   = 536,870,912 + 536,870,912 + 1,048,576 = 1,074,790,400 bytes.
func.func @seed_fwd(%x: !stride.tensor<64x1024x4096xf32>, %y: !stride.tensor<64x512x4096xf32>)
    -> !stride.tensor<64x4096xf32> {
  %s = stride.slice_scatter %x, %y dim 1 start 0 end 512 step 1
      : !stride.tensor<64x1024x4096xf32>, !stride.tensor<64x512x4096xf32>
      -> !stride.tensor<64x1024x4096xf32>
  %r = stride.sum %s dims [1] : !stride.tensor<64x1024x4096xf32> -> !stride.tensor<64x4096xf32>
  return %r : !stride.tensor<64x4096xf32>
}
