// Decode-step attention for the split-KV kernel (test/Emu/split-kv-attention.test):
// few query rows against many keys, each marked stride.split_kv by
// stride-attention-library.
func.func @decode(
    %qkv: !stride.tensor<2x1x768xf32> {stride.name = "qkv"},
    %kc: !stride.tensor<2x2x300x64xf32> {stride.name = "k_cache"},
    %vc: !stride.tensor<2x2x300x64xf32> {stride.name = "v_cache"},
    %keep: !stride.tensor<2x1x1x300xi1> {stride.name = "keep"},
    %q3: !stride.tensor<1x4x3x40xf32> {stride.name = "q3"},
    %k3: !stride.tensor<1x4x20x40xf32> {stride.name = "k3"},
    %v3: !stride.tensor<1x4x20x24xf32> {stride.name = "v3"})
    -> (!stride.tensor<2x8x1x64xf32> {stride.name = "padded"},
        !stride.tensor<1x4x3x24xf32> {stride.name = "causal"}) {
  // A batch of 2 with 8 query heads on 2 key/value heads, the query a head
  // view of a fused projection (strides [768, 64, 768, 1]), a boolean
  // padding mask over 300 cache positions: 2 x 2 units, slices of the keys.
  %qv = stride.view %qkv : !stride.tensor<2x1x768xf32> -> !stride.tensor<2x1x12x64xf32>
  %qs = stride.slice %qv dim 2 start 0 end 8 step 1 : !stride.tensor<2x1x12x64xf32> -> !stride.tensor<2x1x8x64xf32, strides = [768, 768, 64, 1], offset = 0>
  %q = stride.permute %qs dims [0, 2, 1, 3] : !stride.tensor<2x1x8x64xf32, strides = [768, 768, 64, 1], offset = 0> -> !stride.tensor<2x8x1x64xf32, strides = [768, 64, 768, 1], offset = 0>
  %m = stride.expand %keep : !stride.tensor<2x1x1x300xi1> -> !stride.tensor<2x8x1x300xi1, strides = [300, 0, 300, 1], offset = 0>
  %o1 = stride.attention %q, %kc, %vc mask %m scale 1.250000e-01 : !stride.tensor<2x8x1x64xf32, strides = [768, 64, 768, 1], offset = 0>, !stride.tensor<2x2x300x64xf32>, !stride.tensor<2x2x300x64xf32>, !stride.tensor<2x8x1x300xi1, strides = [300, 0, 300, 1], offset = 0> -> !stride.tensor<2x8x1x64xf32>
  // Causal (top left: query row i sees keys 0..i) on 20 keys, head dim 40:
  // one slice.
  %o3 = stride.attention %q3, %k3, %v3 scale 1.581139e-01 causal : !stride.tensor<1x4x3x40xf32>, !stride.tensor<1x4x20x40xf32>, !stride.tensor<1x4x20x24xf32> -> !stride.tensor<1x4x3x24xf32>
  return %o1, %o3 : !stride.tensor<2x8x1x64xf32>, !stride.tensor<1x4x3x24xf32>
}
