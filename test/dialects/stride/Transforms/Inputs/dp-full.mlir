// data-parallel.test: the gradients of the mean over a batch of 8 of each sample's loss L_b,
// for y = x @ w + b: g holds dL_b/dy_b.
func.func @grads(%x: !stride.tensor<8x3xf32> {stride.name = "x"},
                 %g: !stride.tensor<8x4xf32> {stride.name = "g"})
    -> (!stride.tensor<3x4xf32> {stride.name = "dw"},
        !stride.tensor<4xf32> {stride.name = "db"}) {
  %xt = stride.permute %x dims [1, 0] : !stride.tensor<8x3xf32> -> !stride.tensor<3x8xf32, strides = [1, 3], offset = 0>
  %p = stride.matmul %xt, %g : !stride.tensor<3x8xf32, strides = [1, 3], offset = 0>, !stride.tensor<8x4xf32> -> !stride.tensor<3x4xf32>
  %n = stride.full 0.125 : !stride.tensor<3x4xf32>
  %dw = stride.mul %p, %n : !stride.tensor<3x4xf32>, !stride.tensor<3x4xf32> -> !stride.tensor<3x4xf32>
  %s = stride.sum %g dims [0] : !stride.tensor<8x4xf32> -> !stride.tensor<4xf32>
  %m = stride.full 0.125 : !stride.tensor<4xf32>
  %db = stride.mul %s, %m : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %dw, %db : !stride.tensor<3x4xf32>, !stride.tensor<4xf32>
}
