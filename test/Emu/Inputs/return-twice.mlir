// One value returned twice, and an argument returned as is (an aliased
// output: the module hands the input's storage back).
func.func @twice(%x: !stride.tensor<3x5xf32>)
    -> (!stride.tensor<3x5xf32>, !stride.tensor<3x5xf32>, !stride.tensor<3x5xf32>) {
  %e = stride.exp %x : !stride.tensor<3x5xf32> -> !stride.tensor<3x5xf32>
  return %e, %x, %e : !stride.tensor<3x5xf32>, !stride.tensor<3x5xf32>, !stride.tensor<3x5xf32>
}
