// The heads of rank r of 2 in each cache of the llama_decode fixture
// (1 x 2 heads x 96 positions x 16): @rank0 and @rank1 return cache[:, r:r+1]
// under the cache's name, for stride-run --expect against the states a
// rank of the split decode step wrote (decode-tensor-parallel.test).
func.func @rank0(%c0: !stride.tensor<1x2x96x16xf32> {stride.name = "c0"}, %c1: !stride.tensor<1x2x96x16xf32> {stride.name = "c1"}, %c2: !stride.tensor<1x2x96x16xf32> {stride.name = "c2"}, %c3: !stride.tensor<1x2x96x16xf32> {stride.name = "c3"})
    -> (!stride.tensor<1x1x96x16xf32> {stride.name = "lm.key_cache_0"}, !stride.tensor<1x1x96x16xf32> {stride.name = "lm.value_cache_0"}, !stride.tensor<1x1x96x16xf32> {stride.name = "lm.key_cache_1"}, !stride.tensor<1x1x96x16xf32> {stride.name = "lm.value_cache_1"}) {
  %s0 = stride.slice %c0 dim 1 start 0 end 1 step 1 : !stride.tensor<1x2x96x16xf32> -> !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 0>
  %h0 = stride.clone %s0 : !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 0> -> !stride.tensor<1x1x96x16xf32>
  %s1 = stride.slice %c1 dim 1 start 0 end 1 step 1 : !stride.tensor<1x2x96x16xf32> -> !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 0>
  %h1 = stride.clone %s1 : !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 0> -> !stride.tensor<1x1x96x16xf32>
  %s2 = stride.slice %c2 dim 1 start 0 end 1 step 1 : !stride.tensor<1x2x96x16xf32> -> !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 0>
  %h2 = stride.clone %s2 : !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 0> -> !stride.tensor<1x1x96x16xf32>
  %s3 = stride.slice %c3 dim 1 start 0 end 1 step 1 : !stride.tensor<1x2x96x16xf32> -> !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 0>
  %h3 = stride.clone %s3 : !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 0> -> !stride.tensor<1x1x96x16xf32>
  return %h0, %h1, %h2, %h3 : !stride.tensor<1x1x96x16xf32>, !stride.tensor<1x1x96x16xf32>, !stride.tensor<1x1x96x16xf32>, !stride.tensor<1x1x96x16xf32>
}
func.func @rank1(%c0: !stride.tensor<1x2x96x16xf32> {stride.name = "c0"}, %c1: !stride.tensor<1x2x96x16xf32> {stride.name = "c1"}, %c2: !stride.tensor<1x2x96x16xf32> {stride.name = "c2"}, %c3: !stride.tensor<1x2x96x16xf32> {stride.name = "c3"})
    -> (!stride.tensor<1x1x96x16xf32> {stride.name = "lm.key_cache_0"}, !stride.tensor<1x1x96x16xf32> {stride.name = "lm.value_cache_0"}, !stride.tensor<1x1x96x16xf32> {stride.name = "lm.key_cache_1"}, !stride.tensor<1x1x96x16xf32> {stride.name = "lm.value_cache_1"}) {
  %s0 = stride.slice %c0 dim 1 start 1 end 2 step 1 : !stride.tensor<1x2x96x16xf32> -> !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 1536>
  %h0 = stride.clone %s0 : !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 1536> -> !stride.tensor<1x1x96x16xf32>
  %s1 = stride.slice %c1 dim 1 start 1 end 2 step 1 : !stride.tensor<1x2x96x16xf32> -> !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 1536>
  %h1 = stride.clone %s1 : !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 1536> -> !stride.tensor<1x1x96x16xf32>
  %s2 = stride.slice %c2 dim 1 start 1 end 2 step 1 : !stride.tensor<1x2x96x16xf32> -> !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 1536>
  %h2 = stride.clone %s2 : !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 1536> -> !stride.tensor<1x1x96x16xf32>
  %s3 = stride.slice %c3 dim 1 start 1 end 2 step 1 : !stride.tensor<1x2x96x16xf32> -> !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 1536>
  %h3 = stride.clone %s3 : !stride.tensor<1x1x96x16xf32, strides = [3072, 1536, 16, 1], offset = 1536> -> !stride.tensor<1x1x96x16xf32>
  return %h0, %h1, %h2, %h3 : !stride.tensor<1x1x96x16xf32>, !stride.tensor<1x1x96x16xf32>, !stride.tensor<1x1x96x16xf32>, !stride.tensor<1x1x96x16xf32>
}
