// A float scatter_add: its atomics add in an order that varies from run to
// run, so stridec --deterministic refuses it.
func.func @scatter_add(%x: !stride.tensor<8x4xf32>, %i: !stride.tensor<6x4xi64>,
                       %u: !stride.tensor<6x4xf32>) -> !stride.tensor<8x4xf32> {
  %r = stride.scatter_add %x, %i, %u dim 0 : !stride.tensor<8x4xf32>,
      !stride.tensor<6x4xi64>, !stride.tensor<6x4xf32> -> !stride.tensor<8x4xf32>
  return %r : !stride.tensor<8x4xf32>
}
