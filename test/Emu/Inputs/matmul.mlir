// Matrix products with the kernels around them, for the emulated plan:
// a copy into a dense temporary (neither stride 1) fused with its producer,
// a transposed weight broadcast over the batch (batch stride 0), a sliced
// lhs (offset, leading dimension), linear + bias as one call, and GELU
// (tanh, kept out of cuBLASLt's epilogue in f32) and a residual add in a
// kernel after it.
func.func @matmuls(%x: !stride.tensor<3x5x16xf32> {stride.name = "x"},
                   %w: !stride.tensor<7x8xf32> {stride.name = "w"},
                   %b: !stride.tensor<7xf32> {stride.name = "b"},
                   %a: !stride.tensor<64xf32> {stride.name = "a"},
                   %r: !stride.tensor<3x5x7xf32> {stride.name = "r"})
    -> (!stride.tensor<3x5x7xf32>, !stride.tensor<4x4xf32>) {
  %xs = stride.slice %x dim 2 start 3 end 11 step 1 : !stride.tensor<3x5x16xf32>
      -> !stride.tensor<3x5x8xf32, strides = [80, 16, 1], offset = 3>
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<7x8xf32>
      -> !stride.tensor<8x7xf32, strides = [1, 8], offset = 0>
  %we = stride.expand %wt : !stride.tensor<8x7xf32, strides = [1, 8], offset = 0>
      -> !stride.tensor<3x8x7xf32, strides = [0, 1, 8], offset = 0>
  %p = stride.matmul %xs, %we : !stride.tensor<3x5x8xf32, strides = [80, 16, 1], offset = 3>,
      !stride.tensor<3x8x7xf32, strides = [0, 1, 8], offset = 0> -> !stride.tensor<3x5x7xf32>
  %be = stride.expand %b : !stride.tensor<7xf32>
      -> !stride.tensor<3x5x7xf32, strides = [0, 0, 1], offset = 0>
  %pb = stride.add %p, %be : !stride.tensor<3x5x7xf32>,
      !stride.tensor<3x5x7xf32, strides = [0, 0, 1], offset = 0> -> !stride.tensor<3x5x7xf32>
  %g = stride.gelu_tanh %pb : !stride.tensor<3x5x7xf32> -> !stride.tensor<3x5x7xf32>
  %y = stride.add %g, %r : !stride.tensor<3x5x7xf32>, !stride.tensor<3x5x7xf32>
      -> !stride.tensor<3x5x7xf32>
  %e = stride.exp %a : !stride.tensor<64xf32> -> !stride.tensor<64xf32>
  %s = stride.as_strided %e : !stride.tensor<64xf32>
      -> !stride.tensor<4x4xf32, strides = [16, 2], offset = 1>
  %z = stride.matmul %s, %s : !stride.tensor<4x4xf32, strides = [16, 2], offset = 1>,
      !stride.tensor<4x4xf32, strides = [16, 2], offset = 1> -> !stride.tensor<4x4xf32>
  return %y, %z : !stride.tensor<3x5x7xf32>, !stride.tensor<4x4xf32>
}
