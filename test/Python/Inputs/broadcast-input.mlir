// An input the signature reads broadcast: %row has stride 0 on dim 0 (the
// layout of an expand, as AOTAutograd's backward graphs declare the saved
// expands of their forward), for TorchModule's broadcast_inputs.
func.func @broadcast_add(%row: !stride.tensor<2x3xf32, strides = [0, 1], offset = 0>,
                         %y: !stride.tensor<2x3xf32>) -> !stride.tensor<2x3xf32> {
  %z = stride.add %row, %y : !stride.tensor<2x3xf32, strides = [0, 1], offset = 0>,
      !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  return %z : !stride.tensor<2x3xf32>
}
