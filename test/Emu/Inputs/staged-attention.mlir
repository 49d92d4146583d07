// A bf16 decode step over a static cache of 8192 positions (issue 40;
// python-free-docs/attention.md, "Decode attention"): key j attends where
// j <= the position, an input, as transformers builds the mask from
// cache_position; stride-fold-index-masks makes it the op's kv_length. 8
// query heads on one key/value head of 128 (one unit: each thread of the
// staged kernel sums two groups of 4 value dims), so that past position
// 1024 the unit's 16 blocks each take more than one chunk of 64 keys:
// two at 1500, three at 3000, six at 6000, eight from 8191.
!q = !stride.tensor<1x8x1x128xbf16>
!kv = !stride.tensor<1x1x8192x128xbf16>
!mask = !stride.tensor<1x8x1x8192xi1, strides = [0, 0, 8192, 1], offset = 0>
func.func @decode(%q: !q {stride.name = "q"}, %k: !kv {stride.name = "k"},
                  %v: !kv {stride.name = "v"},
                  %pos: !stride.tensor<1xi64> {stride.name = "pos"})
    -> (!q {stride.name = "o"}) {
  %p0 = stride.select %pos dim 0 index 0 : !stride.tensor<1xi64> -> !stride.tensor<i64>
  %keys = stride.iota dim 3 : !stride.tensor<1x1x1x8192xi64>
  %px = stride.expand %p0 : !stride.tensor<i64> -> !stride.tensor<1x1x1x8192xi64, strides = [0, 0, 0, 0], offset = 0>
  %le = stride.cmp le, %keys, %px : !stride.tensor<1x1x1x8192xi64>, !stride.tensor<1x1x1x8192xi64, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x1x8192xi1>
  %m = stride.expand %le : !stride.tensor<1x1x1x8192xi1> -> !mask
  %o = stride.attention %q, %k, %v mask %m scale 0.08838834764831845 : !q, !kv, !kv, !mask -> !q
  return %o : !q
}
