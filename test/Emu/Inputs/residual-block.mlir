// A residual block: row-normalized tanh, a gate, the residual add, a row
// sum (python-free-docs/debugging.md's worked example).
func.func @block(%x: !stride.tensor<4x8xf32> {stride.name = "x"},
                 %w: !stride.tensor<4x8xf32> {stride.name = "w"})
    -> !stride.tensor<4x1xf32> {
  %m = stride.mul %x, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
      -> !stride.tensor<4x8xf32>
  %t = stride.tanh %m : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %s = stride.sum %t dims [1] keepdim
      : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %sb = stride.expand %s : !stride.tensor<4x1xf32>
      -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
  %d = stride.sub %t, %sb : !stride.tensor<4x8xf32>,
      !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
      -> !stride.tensor<4x8xf32>
  %g = stride.sigmoid %d : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  %r = stride.add %g, %x : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
      -> !stride.tensor<4x8xf32>
  %y = stride.sum %r dims [1] keepdim
      : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  return %y : !stride.tensor<4x1xf32>
}
