func.func @normalize(%x: !stride.tensor<4x4xf32>) -> !stride.tensor<4x4xf32> {
  %r = stride.kernel "normalize" ins(%x : !stride.tensor<4x4xf32>) -> (!stride.tensor<4x4xf32>) {
  ^bb0(%a: !stride.tensor<4x4xf32>):
    %s = stride.sum %a dims [1] keepdim : !stride.tensor<4x4xf32> -> !stride.tensor<4x1xf32>
    %b = stride.expand %s : !stride.tensor<4x1xf32>
        -> !stride.tensor<4x4xf32, strides = [1, 0], offset = 0>
    // Transposed: row i reads the sum of row j, which another warp computes.
    %t = stride.permute %b dims [1, 0] : !stride.tensor<4x4xf32, strides = [1, 0], offset = 0>
        -> !stride.tensor<4x4xf32, strides = [0, 1], offset = 0>
    %d = stride.div %a, %t : !stride.tensor<4x4xf32>,
        !stride.tensor<4x4xf32, strides = [0, 1], offset = 0> -> !stride.tensor<4x4xf32>
    stride.yield %d : !stride.tensor<4x4xf32>
  }
  return %r : !stride.tensor<4x4xf32>
}
