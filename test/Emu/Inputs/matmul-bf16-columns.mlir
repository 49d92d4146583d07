// A bf16 linear layer with 17 output columns (34-byte rows), as a model's
// vocabulary projection: stride-matmul-layout pads the weight with zero
// columns to 24 and slices the product back, and both outputs are reshapes
// of whole fresh buffers, returned without a copy.
func.func @columns(%x: !stride.tensor<2x3x8xbf16> {stride.name = "x"},
                   %w: !stride.tensor<17x8xbf16> {stride.name = "w"},
                   %b: !stride.tensor<17xbf16> {stride.name = "b"})
    -> (!stride.tensor<2x3x17xbf16>, !stride.tensor<2x3x17xbf16>) {
  %x2 = stride.view %x : !stride.tensor<2x3x8xbf16> -> !stride.tensor<6x8xbf16>
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<17x8xbf16>
      -> !stride.tensor<8x17xbf16, strides = [1, 8], offset = 0>
  %p = stride.matmul %x2, %wt : !stride.tensor<6x8xbf16>,
      !stride.tensor<8x17xbf16, strides = [1, 8], offset = 0> -> !stride.tensor<6x17xbf16>
  %be = stride.expand %b : !stride.tensor<17xbf16>
      -> !stride.tensor<6x17xbf16, strides = [0, 1], offset = 0>
  %s = stride.add %p, %be : !stride.tensor<6x17xbf16>,
      !stride.tensor<6x17xbf16, strides = [0, 1], offset = 0> -> !stride.tensor<6x17xbf16>
  %logits = stride.view %p : !stride.tensor<6x17xbf16> -> !stride.tensor<2x3x17xbf16>
  %biased = stride.view %s : !stride.tensor<6x17xbf16> -> !stride.tensor<2x3x17xbf16>
  return %logits, %biased : !stride.tensor<2x3x17xbf16>, !stride.tensor<2x3x17xbf16>
}
