// softmax over the last dim of [65536, 1024], from reductions and pointwise ops.
// Minimal bytes: read x (256 MiB), write 256 MiB = 536,870,912 bytes.
func.func @softmax(%x: !stride.tensor<65536x1024xf32>) -> !stride.tensor<65536x1024xf32> {
  %m = stride.max %x dims [1] keepdim : !stride.tensor<65536x1024xf32> -> !stride.tensor<65536x1xf32>
  %mb = stride.expand %m : !stride.tensor<65536x1xf32> -> !stride.tensor<65536x1024xf32, strides = [1, 0]>
  %d = stride.sub %x, %mb : !stride.tensor<65536x1024xf32>, !stride.tensor<65536x1024xf32, strides = [1, 0]>
      -> !stride.tensor<65536x1024xf32>
  %e = stride.exp %d : !stride.tensor<65536x1024xf32> -> !stride.tensor<65536x1024xf32>
  %s = stride.sum %e dims [1] keepdim : !stride.tensor<65536x1024xf32> -> !stride.tensor<65536x1xf32>
  %sb = stride.expand %s : !stride.tensor<65536x1xf32> -> !stride.tensor<65536x1024xf32, strides = [1, 0]>
  %y = stride.div %e, %sb : !stride.tensor<65536x1024xf32>, !stride.tensor<65536x1024xf32, strides = [1, 0]>
      -> !stride.tensor<65536x1024xf32>
  return %y : !stride.tensor<65536x1024xf32>
}
