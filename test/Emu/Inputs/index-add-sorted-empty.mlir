// An index_add marked sorted_index whose rows are empty (5 x 0): no units
// to give threads, so the scatter scheme, which launches nothing.
func.func @zero(%idx: !stride.tensor<8xi64>, %src: !stride.tensor<8x0xf32>) -> !stride.tensor<5x0xf32> {
  %z = stride.full 0.0 : !stride.tensor<5x0xf32>
  %r = stride.index_add %z, %idx, %src dim 0 {sorted_index} : !stride.tensor<5x0xf32>,
      !stride.tensor<8xi64>, !stride.tensor<8x0xf32> -> !stride.tensor<5x0xf32>
  return %r : !stride.tensor<5x0xf32>
}
