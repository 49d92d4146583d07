// rows-wide.mlir's LayerNorm and softmax over more rows than the grid has
// clusters when it is sized for one multiprocessor (stridec
// --multiprocessors=1: at most 64 blocks of 512 threads, so 21 clusters of
// 3 blocks walk 24 LayerNorm rows and 12 clusters of 5 blocks walk 16
// softmax rows): some clusters reduce two rows in turn through the same
// shared slots.
func.func @wide_many(%a: !stride.tensor<24x20001xf32>, %w: !stride.tensor<20001xf32>,
                     %bias: !stride.tensor<20001xf32>, %s: !stride.tensor<16x40000xf32>)
    -> (!stride.tensor<24x20001xf32>, !stride.tensor<16x40000xf32>) {
  // LayerNorm over rows of 20001: mean, variance, normalize, weight, bias
  %am = stride.mean %a dims [1] keepdim : !stride.tensor<24x20001xf32> -> !stride.tensor<24x1xf32>
  %amb = stride.expand %am : !stride.tensor<24x1xf32> -> !stride.tensor<24x20001xf32, strides = [1, 0]>
  %ad = stride.sub %a, %amb : !stride.tensor<24x20001xf32>, !stride.tensor<24x20001xf32, strides = [1, 0]> -> !stride.tensor<24x20001xf32>
  %aq = stride.mul %ad, %ad : !stride.tensor<24x20001xf32>, !stride.tensor<24x20001xf32> -> !stride.tensor<24x20001xf32>
  %av = stride.mean %aq dims [1] keepdim : !stride.tensor<24x20001xf32> -> !stride.tensor<24x1xf32>
  %eps = stride.full 1.0e-05 : !stride.tensor<24x1xf32>
  %ave = stride.add %av, %eps : !stride.tensor<24x1xf32>, !stride.tensor<24x1xf32> -> !stride.tensor<24x1xf32>
  %ar = stride.rsqrt %ave : !stride.tensor<24x1xf32> -> !stride.tensor<24x1xf32>
  %arb = stride.expand %ar : !stride.tensor<24x1xf32> -> !stride.tensor<24x20001xf32, strides = [1, 0]>
  %an = stride.mul %ad, %arb : !stride.tensor<24x20001xf32>, !stride.tensor<24x20001xf32, strides = [1, 0]> -> !stride.tensor<24x20001xf32>
  %wb = stride.expand %w : !stride.tensor<20001xf32> -> !stride.tensor<24x20001xf32, strides = [0, 1]>
  %aw = stride.mul %an, %wb : !stride.tensor<24x20001xf32>, !stride.tensor<24x20001xf32, strides = [0, 1]> -> !stride.tensor<24x20001xf32>
  %bb = stride.expand %bias : !stride.tensor<20001xf32> -> !stride.tensor<24x20001xf32, strides = [0, 1]>
  %ay = stride.add %aw, %bb : !stride.tensor<24x20001xf32>, !stride.tensor<24x20001xf32, strides = [0, 1]> -> !stride.tensor<24x20001xf32>
  // softmax over rows of 40000
  %sm = stride.max %s dims [1] keepdim : !stride.tensor<16x40000xf32> -> !stride.tensor<16x1xf32>
  %smb = stride.expand %sm : !stride.tensor<16x1xf32> -> !stride.tensor<16x40000xf32, strides = [1, 0]>
  %sd = stride.sub %s, %smb : !stride.tensor<16x40000xf32>, !stride.tensor<16x40000xf32, strides = [1, 0]> -> !stride.tensor<16x40000xf32>
  %se = stride.exp %sd : !stride.tensor<16x40000xf32> -> !stride.tensor<16x40000xf32>
  %ss = stride.sum %se dims [1] keepdim : !stride.tensor<16x40000xf32> -> !stride.tensor<16x1xf32>
  %ssb = stride.expand %ss : !stride.tensor<16x1xf32> -> !stride.tensor<16x40000xf32, strides = [1, 0]>
  %sy = stride.div %se, %ssb : !stride.tensor<16x40000xf32>, !stride.tensor<16x40000xf32, strides = [1, 0]> -> !stride.tensor<16x40000xf32>
  return %ay, %sy : !stride.tensor<24x20001xf32>, !stride.tensor<16x40000xf32>
}
