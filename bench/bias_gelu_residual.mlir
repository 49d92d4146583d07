// bias_gelu_residual: gelu(x + expand(bias)) + r, x and r [16384, 4096], bias [4096].
// Minimal bytes: read x, r (2 x 256 MiB) and bias (16 KiB), write 256 MiB
//   = 3 x 268,435,456 + 16,384 = 805,322,752 bytes.
func.func @bias_gelu_residual(%x: !stride.tensor<16384x4096xf32>, %bias: !stride.tensor<4096xf32>,
                              %r: !stride.tensor<16384x4096xf32>) -> !stride.tensor<16384x4096xf32> {
  %b = stride.expand %bias : !stride.tensor<4096xf32>
      -> !stride.tensor<16384x4096xf32, strides = [0, 1]>
  %h = stride.add %x, %b : !stride.tensor<16384x4096xf32>, !stride.tensor<16384x4096xf32, strides = [0, 1]>
      -> !stride.tensor<16384x4096xf32>
  %a = stride.gelu %h : !stride.tensor<16384x4096xf32> -> !stride.tensor<16384x4096xf32>
  %y = stride.add %a, %r : !stride.tensor<16384x4096xf32>, !stride.tensor<16384x4096xf32>
      -> !stride.tensor<16384x4096xf32>
  return %y : !stride.tensor<16384x4096xf32>
}
