// The decode module that goes with prefill.mlir (examples/generate/README.md):
// the same with P = 1. Not a model: the logits are constant, the next token
// is the input token and the cache holds ones where it was written.
func.func @decode(%ids: !stride.tensor<1x1xi64> {stride.name = "input_ids"},
                   %pos: !stride.tensor<1xi64> {stride.name = "cache_position"},
                   %cache: !stride.tensor<1x2x8x4xf32> {stride.name = "key_cache_0", stride.state = dense<0.0> : tensor<1x2x8x4xf32>})
    -> (!stride.tensor<1x2x8x4xf32> {stride.name = "key_cache_0_new", stride.writes = "key_cache_0"},
        !stride.tensor<1x16xf32> {stride.name = "logits"},
        !stride.tensor<1x1xi64> {stride.name = "next_token"},
        !stride.tensor<1xi64> {stride.name = "next_position"}) {
  %p = stride.view %pos : !stride.tensor<1xi64> -> !stride.tensor<1x1x1x1xi64>
  %i = stride.expand %p : !stride.tensor<1x1x1x1xi64> -> !stride.tensor<1x2x1x4xi64, strides = [0, 0, 1, 0], offset = 0>
  %ones = stride.full 1.0 : !stride.tensor<1x2x1x4xf32>
  %k = stride.scatter %cache, %i, %ones dim 2 : !stride.tensor<1x2x8x4xf32>, !stride.tensor<1x2x1x4xi64, strides = [0, 0, 1, 0], offset = 0>, !stride.tensor<1x2x1x4xf32> -> !stride.tensor<1x2x8x4xf32>
  %logits = stride.full 0.5 : !stride.tensor<1x16xf32>
  %token = stride.clone %ids : !stride.tensor<1x1xi64> -> !stride.tensor<1x1xi64>
    %one = stride.full 1.0 : !stride.tensor<1xi64>
  %next = stride.add %pos, %one : !stride.tensor<1xi64>, !stride.tensor<1xi64> -> !stride.tensor<1xi64>
  return %k, %logits, %token, %next : !stride.tensor<1x2x8x4xf32>, !stride.tensor<1x16xf32>, !stride.tensor<1x1xi64>, !stride.tensor<1xi64>
}
