// A graph whose inputs and output are named (as imported graphs are):
// stride-reduce-test runs the module and the reference on a copy without
// the names, so that both write result0.npy.
func.func @block(%x: !stride.tensor<4x8xf32> {stride.name = "x"},
                 %w: !stride.tensor<4x8xf32> {stride.name = "w"})
    -> (!stride.tensor<4x8xf32> {stride.name = "out"}) {
  %m = stride.mul %x, %w : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
      -> !stride.tensor<4x8xf32>
  %r = stride.add %m, %x : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
      -> !stride.tensor<4x8xf32>
  return %r : !stride.tensor<4x8xf32>
}
