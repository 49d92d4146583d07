// One data-parallel rank's backward of y = x @ w + b: its shard, rows
// [START, END) of the batch of 8 (data-parallel.test makes rank r's file
// with START = 4r, END = 4r + 4), and the gradients of the mean over the
// shard of each sample's loss L_b (g holds dL_b/dy_b).
func.func @grads(%x: !stride.tensor<8x3xf32> {stride.name = "x"},
                 %g: !stride.tensor<8x4xf32> {stride.name = "g"})
    -> (!stride.tensor<3x4xf32> {stride.name = "dw"},
        !stride.tensor<4xf32> {stride.name = "db"}) {
  %xs = stride.slice %x dim 0 start START end END step 1 : !stride.tensor<8x3xf32> -> !stride.tensor<4x3xf32, strides = [3, 1], offset = OFFSET_X>
  %gs = stride.slice %g dim 0 start START end END step 1 : !stride.tensor<8x4xf32> -> !stride.tensor<4x4xf32, strides = [4, 1], offset = OFFSET_G>
  %s = stride.sum %gs dims [0] : !stride.tensor<4x4xf32, strides = [4, 1], offset = OFFSET_G> -> !stride.tensor<4xf32>
  %m = stride.full 0.25 : !stride.tensor<4xf32>
  %db = stride.mul %s, %m : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %xt = stride.permute %xs dims [1, 0] : !stride.tensor<4x3xf32, strides = [3, 1], offset = OFFSET_X> -> !stride.tensor<3x4xf32, strides = [1, 3], offset = OFFSET_X>
  %p = stride.matmul %xt, %gs : !stride.tensor<3x4xf32, strides = [1, 3], offset = OFFSET_X>, !stride.tensor<4x4xf32, strides = [4, 1], offset = OFFSET_G> -> !stride.tensor<3x4xf32>
  %n = stride.full 0.25 : !stride.tensor<3x4xf32>
  %dw = stride.mul %p, %n : !stride.tensor<3x4xf32>, !stride.tensor<3x4xf32> -> !stride.tensor<3x4xf32>
  return %dw, %db : !stride.tensor<3x4xf32>, !stride.tensor<4xf32>
}
