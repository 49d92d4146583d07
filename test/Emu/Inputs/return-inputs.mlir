// A training forward's returns of its inputs (AOTAutograd saves the weights
// for the backward): the weight as it is, a transposed slice of it (offset
// 10), a broadcast of a bias (stride 0), and a bf16 input, beside computed
// outputs. Every one but %y is an aliased output: no buffer, no kernel.
func.func @forward(%x: !stride.tensor<3x5xf32>, %w: !stride.tensor<4x5xf32>,
                   %b: !stride.tensor<5xf32>, %h: !stride.tensor<7xbf16>)
    -> (!stride.tensor<3x4xf32>, !stride.tensor<4x5xf32>,
        !stride.tensor<5x2xf32, strides = [1, 5], offset = 10>,
        !stride.tensor<3x5xf32, strides = [0, 1], offset = 0>, !stride.tensor<7xbf16>) {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<4x5xf32>
      -> !stride.tensor<5x4xf32, strides = [1, 5], offset = 0>
  %xb = stride.expand %b : !stride.tensor<5xf32>
      -> !stride.tensor<3x5xf32, strides = [0, 1], offset = 0>
  %s = stride.add %x, %xb : !stride.tensor<3x5xf32>, !stride.tensor<3x5xf32, strides = [0, 1], offset = 0>
      -> !stride.tensor<3x5xf32>
  %y = stride.matmul %s, %wt : !stride.tensor<3x5xf32>, !stride.tensor<5x4xf32, strides = [1, 5], offset = 0>
      -> !stride.tensor<3x4xf32>
  %rows = stride.slice %w dim 0 start 2 end 4 step 1 : !stride.tensor<4x5xf32>
      -> !stride.tensor<2x5xf32, strides = [5, 1], offset = 10>
  %rt = stride.permute %rows dims [1, 0] : !stride.tensor<2x5xf32, strides = [5, 1], offset = 10>
      -> !stride.tensor<5x2xf32, strides = [1, 5], offset = 10>
  return %y, %w, %rt, %xb, %h : !stride.tensor<3x4xf32>, !stride.tensor<4x5xf32>,
      !stride.tensor<5x2xf32, strides = [1, 5], offset = 10>,
      !stride.tensor<3x5xf32, strides = [0, 1], offset = 0>, !stride.tensor<7xbf16>
}
