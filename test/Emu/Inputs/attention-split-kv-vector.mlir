// Decode-step attention for the split-KV kernel's loads
// (test/Emu/split-kv-attention.test): bf16, head dim 128, 4 query heads
// per key/value head (GQA), a key row read 16 bytes per load by its lane;
// and the cases that read narrower vectors or element by element.
func.func @decode_vector(
    %q: !stride.tensor<1x8x1x128xbf16> {stride.name = "q"},
    %kc: !stride.tensor<1x2x64x128xbf16> {stride.name = "k_cache"},
    %vc: !stride.tensor<1x2x64x128xbf16> {stride.name = "v_cache"},
    %kl: !stride.tensor<1x2x256x128xbf16> {stride.name = "k_long"},
    %vl: !stride.tensor<1x2x256x128xbf16> {stride.name = "v_long"},
    %kt: !stride.tensor<1x64x2x128xbf16> {stride.name = "k_tokens"},
    %keep: !stride.tensor<1x1x1x128xi1> {stride.name = "keep"},
    %kw: !stride.tensor<1x2x64x130xbf16> {stride.name = "k_wide"},
    %q80: !stride.tensor<1x4x1x80xbf16> {stride.name = "q80"},
    %k80: !stride.tensor<1x1x50x80xbf16> {stride.name = "k80"},
    %v80: !stride.tensor<1x1x50x80xbf16> {stride.name = "v80"})
    -> (!stride.tensor<1x8x1x128xbf16> {stride.name = "valid37"},
        !stride.tensor<1x8x1x128xbf16> {stride.name = "valid101"},
        !stride.tensor<1x8x1x128xbf16> {stride.name = "strided"},
        !stride.tensor<1x8x1x128xbf16> {stride.name = "unaligned"},
        !stride.tensor<1x4x1x80xbf16> {stride.name = "dim80"}) {
  // A static cache's mask at position 37 of 64 (kv_idx <= 37): 38 valid
  // positions, a valid length no step or slice divides. Its keys past 37
  // are never read.
  %iota = stride.iota dim 3 : !stride.tensor<1x1x1x64xi64>
  %p37 = stride.full 37.0 : !stride.tensor<1x1x1x64xi64>
  %le37 = stride.cmp le, %iota, %p37 : !stride.tensor<1x1x1x64xi64>, !stride.tensor<1x1x1x64xi64> -> !stride.tensor<1x1x1x64xi1>
  %m37 = stride.expand %le37 : !stride.tensor<1x1x1x64xi1> -> !stride.tensor<1x8x1x64xi1, strides = [64, 0, 64, 1], offset = 0>
  %o37 = stride.attention %q, %kc, %vc mask %m37 scale 8.838834e-02 : !stride.tensor<1x8x1x128xbf16>, !stride.tensor<1x2x64x128xbf16>, !stride.tensor<1x2x64x128xbf16>, !stride.tensor<1x8x1x64xi1, strides = [64, 0, 64, 1], offset = 0> -> !stride.tensor<1x8x1x128xbf16>
  // Position 100 of 256: the keys split into slices, the last ones with no
  // valid position (their blocks read no key).
  %iota2 = stride.iota dim 3 : !stride.tensor<1x1x1x256xi64>
  %p100 = stride.full 100.0 : !stride.tensor<1x1x1x256xi64>
  %le100 = stride.cmp le, %iota2, %p100 : !stride.tensor<1x1x1x256xi64>, !stride.tensor<1x1x1x256xi64> -> !stride.tensor<1x1x1x256xi1>
  %m100 = stride.expand %le100 : !stride.tensor<1x1x1x256xi1> -> !stride.tensor<1x8x1x256xi1, strides = [256, 0, 256, 1], offset = 0>
  %o101 = stride.attention %q, %kl, %vl mask %m100 scale 8.838834e-02 : !stride.tensor<1x8x1x128xbf16>, !stride.tensor<1x2x256x128xbf16>, !stride.tensor<1x2x256x128xbf16>, !stride.tensor<1x8x1x256xi1, strides = [256, 0, 256, 1], offset = 0> -> !stride.tensor<1x8x1x128xbf16>
  // The key read through a permute of a tokens-major cache (strides
  // [16384, 128, 256, 1]: still whole 16-byte vectors) and a random mask
  // read with strides (every other element of a row of 128, broadcast over
  // the heads).
  %kp = stride.permute %kt dims [0, 2, 1, 3] : !stride.tensor<1x64x2x128xbf16> -> !stride.tensor<1x2x64x128xbf16, strides = [16384, 128, 256, 1], offset = 0>
  %ks = stride.slice %keep dim 3 start 0 end 128 step 2 : !stride.tensor<1x1x1x128xi1> -> !stride.tensor<1x1x1x64xi1, strides = [128, 128, 128, 2], offset = 0>
  %mk = stride.expand %ks : !stride.tensor<1x1x1x64xi1, strides = [128, 128, 128, 2], offset = 0> -> !stride.tensor<1x8x1x64xi1, strides = [128, 0, 128, 2], offset = 0>
  %os = stride.attention %q, %kp, %vc mask %mk scale 8.838834e-02 : !stride.tensor<1x8x1x128xbf16>, !stride.tensor<1x2x64x128xbf16, strides = [16384, 128, 256, 1], offset = 0>, !stride.tensor<1x2x64x128xbf16>, !stride.tensor<1x8x1x64xi1, strides = [128, 0, 128, 2], offset = 0> -> !stride.tensor<1x8x1x128xbf16>
  // A key at an odd offset with rows of 130 elements: no vector load
  // fits, element by element (vector width 1).
  %ku = stride.slice %kw dim 3 start 1 end 129 step 1 : !stride.tensor<1x2x64x130xbf16> -> !stride.tensor<1x2x64x128xbf16, strides = [16640, 8320, 130, 1], offset = 1>
  %ou = stride.attention %q, %ku, %vc mask %m37 scale 8.838834e-02 : !stride.tensor<1x8x1x128xbf16>, !stride.tensor<1x2x64x128xbf16, strides = [16640, 8320, 130, 1], offset = 1>, !stride.tensor<1x2x64x128xbf16>, !stride.tensor<1x8x1x64xi1, strides = [64, 0, 64, 1], offset = 0> -> !stride.tensor<1x8x1x128xbf16>
  // Head dim 80: key rows in 10 loads of 8, values one dim a lane (3 loads).
  %o80 = stride.attention %q80, %k80, %v80 scale 1.118034e-01 : !stride.tensor<1x4x1x80xbf16>, !stride.tensor<1x1x50x80xbf16>, !stride.tensor<1x1x50x80xbf16> -> !stride.tensor<1x4x1x80xbf16>
  return %o37, %o101, %os, %ou, %o80 : !stride.tensor<1x8x1x128xbf16>, !stride.tensor<1x8x1x128xbf16>, !stride.tensor<1x8x1x128xbf16>, !stride.tensor<1x8x1x128xbf16>, !stride.tensor<1x4x1x80xbf16>
}
