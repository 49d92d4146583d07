// GPT-2's tied embedding and LM head in small (test/Emu/symbolic-padded-n.test,
// TIED): token ids [rows] pick rows of the constant w [13, 8] bf16, and the
// product with w's transpose (N = 13, not a multiple of 16 bytes) gets the
// weight padded with zero rows up to N = 16. w is a constant that the
// embedding also reads: stride-fold-constants stores the padded weight
// once, and the embedding reads its first 13 rows (no copy kernel at run
// time). The attributes line is the only line that names the symbols'
// ranges.
func.func @tied_head(%ids: !stride.tensor<[rows], i64> {stride.name = "ids"})
    -> (!stride.tensor<[rows, 13], bf16>)
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 300]>]}
{
  %w = stride.constant dense<[
      [0.625, 0.250, -0.500, 0.250, -0.250, -1.750, 0.375, -0.375],
      [0.250, -1.000, -1.625, -1.000, -0.625, 1.750, -0.500, 0.750],
      [-0.875, 0.500, -0.250, -2.000, 1.375, 1.875, 1.250, -0.750],
      [-0.375, 2.000, 1.875, 0.375, -1.750, -1.375, -2.000, 0.250],
      [-1.375, 1.500, 1.875, -0.375, 2.000, -0.250, 1.875, 1.625],
      [0.125, 1.500, -0.500, 0.250, -1.250, -1.000, 1.625, 0.375],
      [-1.875, 1.125, -1.750, 1.750, 1.625, -0.625, -0.750, -1.000],
      [-0.125, 0.750, 1.250, -0.625, 1.500, 0.625, -1.875, 1.625],
      [1.625, -2.000, 0.250, -0.375, -1.875, -0.500, 0.250, -0.125],
      [-0.500, 0.125, -0.875, 0.625, 1.500, 2.000, -0.500, 1.875],
      [2.000, 0.375, -0.500, 1.125, 0.750, -0.875, 0.625, -1.250],
      [-1.125, 0.750, 1.000, 1.000, -1.000, 1.000, -2.000, 0.125],
      [-1.125, 1.125, -1.500, 1.500, 0.375, -0.500, -2.000, -1.375]]> : tensor<13x8xbf16> : !stride.tensor<13x8xbf16>
  %x = stride.index_select %w, %ids dim 0 : !stride.tensor<13x8xbf16>, !stride.tensor<[rows], i64> -> !stride.tensor<[rows, 8], bf16>
  %t = stride.permute %w dims [1, 0] : !stride.tensor<13x8xbf16> -> !stride.tensor<8x13xbf16, strides = [1, 8], offset = 0>
  %y = stride.matmul %x, %t : !stride.tensor<[rows, 8], bf16>, !stride.tensor<8x13xbf16, strides = [1, 8], offset = 0> -> !stride.tensor<[rows, 13], bf16>
  return %y : !stride.tensor<[rows, 13], bf16>
}
