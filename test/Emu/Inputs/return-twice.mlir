// One value returned twice, and an argument returned as is (legalization
// copies it into a kernel of its own).
func.func @twice(%x: !stride.tensor<3x5xf32>)
    -> (!stride.tensor<3x5xf32>, !stride.tensor<3x5xf32>, !stride.tensor<3x5xf32>) {
  %e = stride.exp %x : !stride.tensor<3x5xf32> -> !stride.tensor<3x5xf32>
  return %e, %x, %e : !stride.tensor<3x5xf32>, !stride.tensor<3x5xf32>, !stride.tensor<3x5xf32>
}
