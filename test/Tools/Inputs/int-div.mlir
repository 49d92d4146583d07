// Integer arithmetic around a division whose divisor can be 0: on random
// inputs (integers in {0, 1}) the reference interpreter fails.
func.func @ratio(%a: !stride.tensor<8xi32> {stride.name = "a"},
                 %b: !stride.tensor<8xi32> {stride.name = "b"})
    -> !stride.tensor<8xi32> {
  %s = stride.add %a, %b : !stride.tensor<8xi32>, !stride.tensor<8xi32>
      -> !stride.tensor<8xi32>
  %m = stride.mul %s, %a : !stride.tensor<8xi32>, !stride.tensor<8xi32>
      -> !stride.tensor<8xi32>
  %n = stride.neg %b : !stride.tensor<8xi32> -> !stride.tensor<8xi32>
  %q = stride.div %m, %n : !stride.tensor<8xi32>, !stride.tensor<8xi32>
      -> !stride.tensor<8xi32>
  %r = stride.add %q, %s : !stride.tensor<8xi32>, !stride.tensor<8xi32>
      -> !stride.tensor<8xi32>
  return %r : !stride.tensor<8xi32>
}
