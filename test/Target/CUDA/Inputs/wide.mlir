// 50000 x 50000 = 2.5e9 elements: more than 32-bit indices can count.
func.func @wide(%x: !stride.tensor<50000x50000xi8>) -> !stride.tensor<50000x50000xi8> {
  %y = stride.neg %x : !stride.tensor<50000x50000xi8> -> !stride.tensor<50000x50000xi8>
  return %y : !stride.tensor<50000x50000xi8>
}
