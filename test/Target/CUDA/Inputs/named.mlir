// Signature names from stride.name attributes; unnamed ones are arg<N>.
func.func @named(%x: !stride.tensor<4xf32> {stride.name = "x"}, %y: !stride.tensor<4xf32>)
    -> (!stride.tensor<4xf32> {stride.name = "sum"}) {
  %s = stride.add %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %s : !stride.tensor<4xf32>
}
