// A bf16 product over symbolic rows whose N (13) is not a multiple of 16
// bytes (test/Emu/symbolic-padded-n.test): as GPT-2's LM head (N = 50257),
// the weight gets zero columns up to N = 16, the product is written
// [rows, 16] and copied into [rows, 13] through a slice. The attributes
// line is the only line that names the symbols' ranges.
func.func @lm_head(%x: !stride.tensor<[rows, 8], bf16> {stride.name = "x"},
                   %w: !stride.tensor<13x8xbf16> {stride.name = "w"})
    -> (!stride.tensor<[rows, 13], bf16>)
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 300]>]}
{
  %t = stride.permute %w dims [1, 0] : !stride.tensor<13x8xbf16> -> !stride.tensor<8x13xbf16, strides = [1, 8], offset = 0>
  %y = stride.matmul %x, %t : !stride.tensor<[rows, 8], bf16>, !stride.tensor<8x13xbf16, strides = [1, 8], offset = 0> -> !stride.tensor<[rows, 13], bf16>
  return %y : !stride.tensor<[rows, 13], bf16>
}
