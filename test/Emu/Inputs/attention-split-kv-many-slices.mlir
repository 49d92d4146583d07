// Decode-step attention split into many slices (test/Emu/
// split-kv-attention.test): 40,000 keys of one key/value head, 2 query
// heads, head dim 16, a static cache's mask at position 36000. For sm_80
// (no thread-block clusters: the slices are combined by a second launch)
// the scheduler cuts 209 slices of 192 keys (at sm_80's 108
// multiprocessors), so the combine's 128 threads take 2 slices each for
// the maxima and sums of weights, and the value sums in 7 batches of at
// most 32; the 21 slices past position 36000 read no key. For sm_90 the
// unit's slices are one cluster of 8 blocks.
func.func @many_slices(
    %q: !stride.tensor<1x2x1x16xf32> {stride.name = "q"},
    %k: !stride.tensor<1x1x40000x16xf32> {stride.name = "k"},
    %v: !stride.tensor<1x1x40000x16xf32> {stride.name = "v"})
    -> (!stride.tensor<1x2x1x16xf32> {stride.name = "sliced"}) {
  %iota = stride.iota dim 3 : !stride.tensor<1x1x1x40000xi64>
  %p = stride.full 36000.0 : !stride.tensor<1x1x1x40000xi64>
  %le = stride.cmp le, %iota, %p : !stride.tensor<1x1x1x40000xi64>, !stride.tensor<1x1x1x40000xi64> -> !stride.tensor<1x1x1x40000xi1>
  %m = stride.expand %le : !stride.tensor<1x1x1x40000xi1> -> !stride.tensor<1x2x1x40000xi1, strides = [40000, 0, 40000, 1], offset = 0>
  %o = stride.attention %q, %k, %v mask %m scale 8.838834e-02 : !stride.tensor<1x2x1x16xf32>, !stride.tensor<1x1x40000x16xf32>, !stride.tensor<1x1x40000x16xf32>, !stride.tensor<1x2x1x40000xi1, strides = [40000, 0, 40000, 1], offset = 0> -> !stride.tensor<1x2x1x16xf32>
  return %o : !stride.tensor<1x2x1x16xf32>
}
