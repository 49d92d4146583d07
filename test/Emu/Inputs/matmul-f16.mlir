// linear + bias + ReLU in f16: the bias and the ReLU fold into the call's
// epilogue, computed as cuBLASLt does (bias added to the accumulator, one
// rounding, then the ReLU).
func.func @linear_relu(%x: !stride.tensor<2x5x8xf16> {stride.name = "x"},
                       %w: !stride.tensor<7x8xf16> {stride.name = "w"},
                       %b: !stride.tensor<7xf16> {stride.name = "b"})
    -> !stride.tensor<2x5x7xf16> {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<7x8xf16>
      -> !stride.tensor<8x7xf16, strides = [1, 8], offset = 0>
  %we = stride.expand %wt : !stride.tensor<8x7xf16, strides = [1, 8], offset = 0>
      -> !stride.tensor<2x8x7xf16, strides = [0, 1, 8], offset = 0>
  %p = stride.matmul %x, %we : !stride.tensor<2x5x8xf16>,
      !stride.tensor<2x8x7xf16, strides = [0, 1, 8], offset = 0> -> !stride.tensor<2x5x7xf16>
  %be = stride.expand %b : !stride.tensor<7xf16>
      -> !stride.tensor<2x5x7xf16, strides = [0, 0, 1], offset = 0>
  %pb = stride.add %p, %be : !stride.tensor<2x5x7xf16>,
      !stride.tensor<2x5x7xf16, strides = [0, 0, 1], offset = 0> -> !stride.tensor<2x5x7xf16>
  %g = stride.relu %pb : !stride.tensor<2x5x7xf16> -> !stride.tensor<2x5x7xf16>
  return %g : !stride.tensor<2x5x7xf16>
}
