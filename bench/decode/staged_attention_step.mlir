// One layer's decode attention of bench/decode's step (LLaMA 8B-class: 32
// query heads on 8 key/value heads of 128, a static bf16 cache of 4096
// positions, batch 1), its mask `key <= position` as transformers builds
// it; printed_attention_probe.cu times the staged kernel Stride prints for
// it (stridec --decode-attention=staged --emit=cuda).
!q = !stride.tensor<1x32x1x128xbf16>
!kv = !stride.tensor<1x8x4096x128xbf16>
!mask = !stride.tensor<1x32x1x4096xi1, strides = [0, 0, 4096, 1], offset = 0>
func.func @decode(%q: !q {stride.name = "q"}, %k: !kv {stride.name = "k"},
                  %v: !kv {stride.name = "v"},
                  %pos: !stride.tensor<1xi64> {stride.name = "pos"})
    -> (!q {stride.name = "o"}) {
  %p0 = stride.select %pos dim 0 index 0 : !stride.tensor<1xi64> -> !stride.tensor<i64>
  %keys = stride.iota dim 3 : !stride.tensor<1x1x1x4096xi64>
  %px = stride.expand %p0 : !stride.tensor<i64> -> !stride.tensor<1x1x1x4096xi64, strides = [0, 0, 0, 0], offset = 0>
  %le = stride.cmp le, %keys, %px : !stride.tensor<1x1x1x4096xi64>, !stride.tensor<1x1x1x4096xi64, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x1x4096xi1>
  %m = stride.expand %le : !stride.tensor<1x1x1x4096xi1> -> !mask
  %o = stride.attention %q, %k, %v mask %m scale 0.08838834764831845 : !q, !kv, !kv, !mask -> !q
  return %o : !q
}
