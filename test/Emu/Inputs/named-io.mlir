// A graph whose inputs and output are named (as imported graphs are): the
// reference (stride-run) and the module write the output as out.npy, and
// stride-reduce-test compares them by that name.
func.func @block(%x: !stride.tensor<4x8xf32> {stride.name = "x"},
                 %w: !stride.tensor<4x8xf32> {stride.name = "w"})
    -> (!stride.tensor<4x8xf32> {stride.name = "out"}) {
  %m = stride.mul %x, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
      -> !stride.tensor<4x8xf32>
  %r = stride.add %m, %x : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
      -> !stride.tensor<4x8xf32>
  return %r : !stride.tensor<4x8xf32>
}
