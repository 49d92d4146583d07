// A bias of three constant values broadcast over five rows, for
// stride-reduce-shapes.test: the constant's values fix its 3s, the 5s may
// shrink.
func.func @bias(%x: !stride.tensor<5x3xf32> {stride.name = "x"},
                %w: !stride.tensor<5x3xf32> {stride.name = "w"})
    -> !stride.tensor<5x3xf32> {
  %c = stride.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
      : !stride.tensor<3xf32>
  %cb = stride.expand %c : !stride.tensor<3xf32>
      -> !stride.tensor<5x3xf32, strides = [0, 1], offset = 0>
  %m = stride.mul %x, %w : !stride.tensor<5x3xf32>, !stride.tensor<5x3xf32>
      -> !stride.tensor<5x3xf32>
  %a = stride.add %m, %cb : !stride.tensor<5x3xf32>,
      !stride.tensor<5x3xf32, strides = [0, 1], offset = 0>
      -> !stride.tensor<5x3xf32>
  %t = stride.tanh %a : !stride.tensor<5x3xf32> -> !stride.tensor<5x3xf32>
  return %t : !stride.tensor<5x3xf32>
}
