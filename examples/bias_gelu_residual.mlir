// A transformer MLP epilogue: gelu(x + bias) + residual, with the bias
// broadcast over the rows by an explicit zero-stride expand.
func.func @bias_gelu_residual(%x: !stride.tensor<128x256xf32>,
                              %bias: !stride.tensor<256xf32>,
                              %residual: !stride.tensor<128x256xf32>)
    -> !stride.tensor<128x256xf32> {
  %b = stride.expand %bias : !stride.tensor<256xf32>
      -> !stride.tensor<128x256xf32, strides = [0, 1], offset = 0>
  %h = stride.add %x, %b : !stride.tensor<128x256xf32>,
      !stride.tensor<128x256xf32, strides = [0, 1], offset = 0>
      -> !stride.tensor<128x256xf32>
  %a = stride.gelu %h : !stride.tensor<128x256xf32> -> !stride.tensor<128x256xf32>
  %y = stride.add %a, %residual : !stride.tensor<128x256xf32>,
      !stride.tensor<128x256xf32> -> !stride.tensor<128x256xf32>
  return %y : !stride.tensor<128x256xf32>
}
