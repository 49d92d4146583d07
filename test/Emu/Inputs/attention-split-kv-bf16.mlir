// Decode-step attention in bf16 for the split-KV kernel
// (test/Emu/split-kv-attention.test): 2 query rows x 4 query heads per
// key/value head, a value head dim of 96 (not a multiple of 32), an
// additive bias per query row.
func.func @decode_bf16(
    %q2: !stride.tensor<1x8x2x128xbf16> {stride.name = "q2"},
    %k2: !stride.tensor<1x2x200x128xbf16> {stride.name = "k2"},
    %v2: !stride.tensor<1x2x200x96xbf16> {stride.name = "v2"},
    %bias2: !stride.tensor<1x1x2x200xbf16> {stride.name = "bias2"})
    -> (!stride.tensor<1x8x2x96xbf16> {stride.name = "biased"}) {
  %b = stride.expand %bias2 : !stride.tensor<1x1x2x200xbf16> -> !stride.tensor<1x8x2x200xbf16, strides = [400, 0, 200, 1], offset = 0>
  %o2 = stride.attention %q2, %k2, %v2 mask %b scale 8.838834e-02 : !stride.tensor<1x8x2x128xbf16>, !stride.tensor<1x2x200x128xbf16>, !stride.tensor<1x2x200x96xbf16>, !stride.tensor<1x8x2x200xbf16, strides = [400, 0, 200, 1], offset = 0> -> !stride.tensor<1x8x2x96xbf16>
  return %o2 : !stride.tensor<1x8x2x96xbf16>
}
