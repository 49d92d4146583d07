// A bf16 decode step over a static cache of 96 positions (issue 40;
// python-free-docs/attention.md, "Masks read from their ops"): key j
// attends where j <= the position, an input, as transformers builds the
// mask from cache_position. stride-fold-index-masks makes it the op's
// kv_length, and cuDNN's padding mask reads only the valid keys. A batch
// of 2 with grouped query heads.
!q = !stride.tensor<2x8x1x64xbf16>
!kv = !stride.tensor<2x2x96x64xbf16>
!mask = !stride.tensor<2x8x1x96xi1, strides = [0, 0, 96, 1], offset = 0>
func.func @decode(%q: !q {stride.name = "q"}, %k: !kv {stride.name = "k"},
                  %v: !kv {stride.name = "v"},
                  %pos: !stride.tensor<1xi64> {stride.name = "pos"})
    -> (!q {stride.name = "o"}) {
  %p0 = stride.select %pos dim 0 index 0 : !stride.tensor<1xi64> -> !stride.tensor<i64>
  %keys = stride.iota dim 3 : !stride.tensor<1x1x1x96xi64>
  %px = stride.expand %p0 : !stride.tensor<i64> -> !stride.tensor<1x1x1x96xi64, strides = [0, 0, 0, 0], offset = 0>
  %le = stride.cmp le, %keys, %px : !stride.tensor<1x1x1x96xi64>, !stride.tensor<1x1x1x96xi64, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x1x96xi1>
  %m = stride.expand %le : !stride.tensor<1x1x1x96xi1> -> !mask
  %o = stride.attention %q, %k, %v mask %m scale 0.125 : !q, !kv, !kv, !mask -> !q
  return %o : !q
}
