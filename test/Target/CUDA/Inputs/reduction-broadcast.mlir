func.func @normalize(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x8xf32> {
  %r = stride.kernel "normalize" ins(%x : !stride.tensor<4x8xf32>) -> (!stride.tensor<4x8xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    %s = stride.sum %a dims [1] keepdim : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
    %b = stride.expand %s : !stride.tensor<4x1xf32>
        -> !stride.tensor<4x8xf32, strides = [1, 0], offset = 0>
    %d = stride.div %a, %b : !stride.tensor<4x8xf32>,
        !stride.tensor<4x8xf32, strides = [1, 0], offset = 0> -> !stride.tensor<4x8xf32>
    stride.yield %d : !stride.tensor<4x8xf32>
  }
  return %r : !stride.tensor<4x8xf32>
}
