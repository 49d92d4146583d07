// A missing comma between the operands.
func.func @f(%x: !stride.tensor<4x8xf32>, %y: !stride.tensor<4x8xf32>)
    -> !stride.tensor<4x8xf32> {
  %0 = stride.add %x %y : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
  return %0 : !stride.tensor<4x8xf32>
}
