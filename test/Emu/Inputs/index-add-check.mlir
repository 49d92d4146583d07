// A segmented index_add (rows of 40) whose index input may be out of range.
func.func @checked(%idx: !stride.tensor<8xi64>, %src: !stride.tensor<8x40xf32>)
    -> !stride.tensor<5x40xf32> {
  %z = stride.full 0.0 : !stride.tensor<5x40xf32>
  %r = stride.index_add %z, %idx, %src dim 0 : !stride.tensor<5x40xf32>,
      !stride.tensor<8xi64>, !stride.tensor<8x40xf32> -> !stride.tensor<5x40xf32>
  return %r : !stride.tensor<5x40xf32>
}
