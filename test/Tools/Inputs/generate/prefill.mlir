// The prefill module of stride-generate's protocol (examples/generate/README.md)
// at the smallest: B = 1, P = 4, V = 16, one cache of 8 positions. Not a
// model: the logits are constant, the next token is the prompt's last one and
// the cache holds ones where the prompt was written.
func.func @prefill(%ids: !stride.tensor<1x4xi64> {stride.name = "input_ids"},
                   %pos: !stride.tensor<4xi64> {stride.name = "cache_position"},
                   %cache: !stride.tensor<1x2x8x4xf32> {stride.name = "key_cache_0", stride.state = dense<0.0> : tensor<1x2x8x4xf32>})
    -> (!stride.tensor<1x2x8x4xf32> {stride.name = "key_cache_0_new", stride.writes = "key_cache_0"},
        !stride.tensor<1x16xf32> {stride.name = "logits"},
        !stride.tensor<1x1xi64> {stride.name = "next_token"},
        !stride.tensor<1xi64> {stride.name = "next_position"}) {
  %p = stride.view %pos : !stride.tensor<4xi64> -> !stride.tensor<1x1x4x1xi64>
  %i = stride.expand %p : !stride.tensor<1x1x4x1xi64> -> !stride.tensor<1x2x4x4xi64, strides = [0, 0, 1, 0], offset = 0>
  %ones = stride.full 1.0 : !stride.tensor<1x2x4x4xf32>
  %k = stride.scatter %cache, %i, %ones dim 2 : !stride.tensor<1x2x8x4xf32>, !stride.tensor<1x2x4x4xi64, strides = [0, 0, 1, 0], offset = 0>, !stride.tensor<1x2x4x4xf32> -> !stride.tensor<1x2x8x4xf32>
  %logits = stride.full 0.5 : !stride.tensor<1x16xf32>
  %last = stride.slice %ids dim 1 start 3 end 4 step 1 : !stride.tensor<1x4xi64> -> !stride.tensor<1x1xi64, strides = [4, 1], offset = 3>
  %token = stride.clone %last : !stride.tensor<1x1xi64, strides = [4, 1], offset = 3> -> !stride.tensor<1x1xi64>
  %lastpos = stride.slice %pos dim 0 start 3 end 4 step 1 : !stride.tensor<4xi64> -> !stride.tensor<1xi64, strides = [1], offset = 3>
  %one = stride.full 1.0 : !stride.tensor<1xi64>
  %next = stride.add %lastpos, %one : !stride.tensor<1xi64, strides = [1], offset = 3>, !stride.tensor<1xi64> -> !stride.tensor<1xi64>
  return %k, %logits, %token, %next : !stride.tensor<1x2x8x4xf32>, !stride.tensor<1x16xf32>, !stride.tensor<1x1xi64>, !stride.tensor<1xi64>
}
