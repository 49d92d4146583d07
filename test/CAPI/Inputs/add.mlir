// The graph of capi-test.c's kAddGraph, for capi.test's --run lines.
func.func @add(%x: !stride.tensor<2x3xf32>, %y: !stride.tensor<2x3xf32>)
    -> !stride.tensor<2x3xf32> {
  %z = stride.add %x, %y : !stride.tensor<2x3xf32>,
      !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  return %z : !stride.tensor<2x3xf32>
}
