// A gather whose index input may be out of range, and an integer division.
func.func @checked(%t: !stride.tensor<5x7xf32>, %idx: !stride.tensor<3x4xi64>,
                   %a: !stride.tensor<4xi32>, %b: !stride.tensor<4xi32>)
    -> (!stride.tensor<3x4xf32>, !stride.tensor<4xi32>) {
  %g = stride.gather %t, %idx dim 0 : !stride.tensor<5x7xf32>, !stride.tensor<3x4xi64>
      -> !stride.tensor<3x4xf32>
  %q = stride.div %a, %b : !stride.tensor<4xi32>, !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  return %g, %q : !stride.tensor<3x4xf32>, !stride.tensor<4xi32>
}
