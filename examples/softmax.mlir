// Numerically stable softmax over the last dim, from reductions and
// pointwise ops: exp(x - max(x)) / sum(exp(x - max(x))).
func.func @softmax(%x: !stride.tensor<64x512xf32>) -> !stride.tensor<64x512xf32> {
  %m = stride.max %x dims [1] keepdim
      : !stride.tensor<64x512xf32> -> !stride.tensor<64x1xf32>
  %mb = stride.expand %m : !stride.tensor<64x1xf32>
      -> !stride.tensor<64x512xf32, strides = [1, 0], offset = 0>
  %d = stride.sub %x, %mb : !stride.tensor<64x512xf32>,
      !stride.tensor<64x512xf32, strides = [1, 0], offset = 0>
      -> !stride.tensor<64x512xf32>
  %e = stride.exp %d : !stride.tensor<64x512xf32> -> !stride.tensor<64x512xf32>
  %s = stride.sum %e dims [1] keepdim
      : !stride.tensor<64x512xf32> -> !stride.tensor<64x1xf32>
  %sb = stride.expand %s : !stride.tensor<64x1xf32>
      -> !stride.tensor<64x512xf32, strides = [1, 0], offset = 0>
  %y = stride.div %e, %sb : !stride.tensor<64x512xf32>,
      !stride.tensor<64x512xf32, strides = [1, 0], offset = 0>
      -> !stride.tensor<64x512xf32>
  return %y : !stride.tensor<64x512xf32>
}
