// Products over K = 1 (stride-outer-products): LLaMA's rotary angles
// (inv_freq [1, 32, 1] times positions [1, 1, 7], f32, then cos and sin),
// and a bf16 outer product of a transposed operand returned as it is.
func.func @outer(%f: !stride.tensor<1x32x1xf32> {stride.name = "f"},
                 %p: !stride.tensor<1x1x7xf32> {stride.name = "p"},
                 %x: !stride.tensor<1x9xbf16> {stride.name = "x"},
                 %y: !stride.tensor<1x5xbf16> {stride.name = "y"})
    -> (!stride.tensor<1x32x7xf32>, !stride.tensor<1x32x7xf32>, !stride.tensor<9x5xbf16>) {
  %a = stride.matmul %f, %p : !stride.tensor<1x32x1xf32>, !stride.tensor<1x1x7xf32> -> !stride.tensor<1x32x7xf32>
  %c = stride.cos %a : !stride.tensor<1x32x7xf32> -> !stride.tensor<1x32x7xf32>
  %s = stride.sin %a : !stride.tensor<1x32x7xf32> -> !stride.tensor<1x32x7xf32>
  %t = stride.permute %x dims [1, 0] : !stride.tensor<1x9xbf16> -> !stride.tensor<9x1xbf16, strides = [1, 9], offset = 0>
  %o = stride.matmul %t, %y : !stride.tensor<9x1xbf16, strides = [1, 9], offset = 0>, !stride.tensor<1x5xbf16> -> !stride.tensor<9x5xbf16>
  return %c, %s, %o : !stride.tensor<1x32x7xf32>, !stride.tensor<1x32x7xf32>, !stride.tensor<9x5xbf16>
}
