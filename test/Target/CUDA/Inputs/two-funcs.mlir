func.func @first(%x: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
  %y = stride.exp %x : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %y : !stride.tensor<4xf32>
}
func.func @second(%x: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
  %y = stride.exp %x : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %y : !stride.tensor<4xf32>
}
