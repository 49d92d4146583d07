// A graph with no inputs, so that running it needs nothing but a GPU.
func.func @ones() -> !stride.tensor<4x8xf32> {
  %one = stride.full 1.0 : !stride.tensor<4x8xf32>
  return %one : !stride.tensor<4x8xf32>
}
