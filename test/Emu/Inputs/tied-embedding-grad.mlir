// A tied embedding's gradient as AOTAutograd writes it (GPT-2): the LM
// head's product of the output gradient and the hidden states, plus the
// embedding's index_add of the token gradients into zeros; and a
// scatter_add into zeros added to a transposed view (the scatter on the
// add's left). stride-accumulate-into-scatters makes each sum one scatter
// into the other operand.
func.func @tied(%g: !stride.tensor<16x24xf32>, %h: !stride.tensor<16x8xf32>,
                %tok: !stride.tensor<16xi64>, %d: !stride.tensor<16x8xf32>,
                %x: !stride.tensor<5x4xf32>, %idx: !stride.tensor<3x5xi64>,
                %src: !stride.tensor<3x5xf32>)
    -> (!stride.tensor<24x8xf32>, !stride.tensor<4x5xf32>) {
  %gt = stride.permute %g dims [1, 0] : !stride.tensor<16x24xf32>
      -> !stride.tensor<24x16xf32, strides = [1, 24], offset = 0>
  %p = stride.matmul %gt, %h : !stride.tensor<24x16xf32, strides = [1, 24], offset = 0>,
      !stride.tensor<16x8xf32> -> !stride.tensor<24x8xf32>
  %z = stride.full 0.0 : !stride.tensor<24x8xf32>
  %s = stride.index_add %z, %tok, %d dim 0 : !stride.tensor<24x8xf32>,
      !stride.tensor<16xi64>, !stride.tensor<16x8xf32> -> !stride.tensor<24x8xf32>
  %r = stride.add %p, %s : !stride.tensor<24x8xf32>, !stride.tensor<24x8xf32>
      -> !stride.tensor<24x8xf32>
  %xt = stride.permute %x dims [1, 0] : !stride.tensor<5x4xf32>
      -> !stride.tensor<4x5xf32, strides = [1, 4], offset = 0>
  %z2 = stride.full 0.0 : !stride.tensor<4x5xf32>
  %s2 = stride.scatter_add %z2, %idx, %src dim 0 : !stride.tensor<4x5xf32>,
      !stride.tensor<3x5xi64>, !stride.tensor<3x5xf32> -> !stride.tensor<4x5xf32>
  %r2 = stride.add %s2, %xt : !stride.tensor<4x5xf32>,
      !stride.tensor<4x5xf32, strides = [1, 4], offset = 0> -> !stride.tensor<4x5xf32>
  return %r, %r2 : !stride.tensor<24x8xf32>, !stride.tensor<4x5xf32>
}
