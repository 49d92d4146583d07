// A bf16 decode step over a static cache of 1024 positions for the
// split-KV kernel's clusters (test/Emu/valid-length-attention.test): key j
// attends where j <= the position, an input, which stride-fold-index-masks
// makes the op's kv_length; on sm_90 the kernel's 4 slices of a unit are
// one thread-block cluster that splits the valid keys between its blocks at
// run time. Grouped query heads (8 on 2).
!q = !stride.tensor<1x8x1x64xbf16>
!kv = !stride.tensor<1x2x1024x64xbf16>
!mask = !stride.tensor<1x8x1x1024xi1, strides = [0, 0, 1024, 1], offset = 0>
func.func @decode(%q: !q {stride.name = "q"}, %k: !kv {stride.name = "k"},
                  %v: !kv {stride.name = "v"},
                  %pos: !stride.tensor<1xi64> {stride.name = "pos"})
    -> (!q {stride.name = "o"}) {
  %p0 = stride.select %pos dim 0 index 0 : !stride.tensor<1xi64> -> !stride.tensor<i64>
  %keys = stride.iota dim 3 : !stride.tensor<1x1x1x1024xi64>
  %px = stride.expand %p0 : !stride.tensor<i64> -> !stride.tensor<1x1x1x1024xi64, strides = [0, 0, 0, 0], offset = 0>
  %le = stride.cmp le, %keys, %px : !stride.tensor<1x1x1x1024xi64>, !stride.tensor<1x1x1x1024xi64, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x1x1024xi1>
  %m = stride.expand %le : !stride.tensor<1x1x1x1024xi1> -> !mask
  %o = stride.attention %q, %k, %v mask %m scale 0.125 : !q, !kv, !kv, !mask -> !q
  return %o : !q
}
