// Reductions read back over their rows through views that the kernel
// contract proves to be broadcasts by composing the views' index maps
// (IndexMaps.h): a view (reshape) and unsqueeze, and an as_strided of the
// dense result. Each fuses into one broadcast-reduction kernel.
func.func @graph(%x: !stride.tensor<4x8xf32>)
    -> (!stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>) {
  %s = stride.sum %x dims [1] keepdim : !stride.tensor<4x8xf32>
      -> !stride.tensor<4x1xf32>
  %v = stride.view %s : !stride.tensor<4x1xf32> -> !stride.tensor<4xf32>
  %u = stride.unsqueeze %v dim 1 : !stride.tensor<4xf32>
      -> !stride.tensor<4x1xf32, strides = [1, 1], offset = 0>
  %e = stride.expand %u : !stride.tensor<4x1xf32, strides = [1, 1], offset = 0>
      -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %y = stride.sub %x, %e : !stride.tensor<4x8xf32>,
      !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  %m = stride.max %x dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
  %a = stride.as_strided %m : !stride.tensor<4xf32>
      -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %z = stride.mul %x, %a : !stride.tensor<4x8xf32>,
      !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
  return %y, %z : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
}
