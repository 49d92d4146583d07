// An index_add marked sorted_index whose index is an input: the claim is
// checked at run time.
func.func @claimed(%idx: !stride.tensor<8xi64>, %src: !stride.tensor<8x40xf32>)
    -> !stride.tensor<5x40xf32> {
  %z = stride.full 0.0 : !stride.tensor<5x40xf32>
  %r = stride.index_add %z, %idx, %src dim 0 {sorted_index} : !stride.tensor<5x40xf32>,
      !stride.tensor<8xi64>, !stride.tensor<8x40xf32> -> !stride.tensor<5x40xf32>
  return %r : !stride.tensor<5x40xf32>
}
