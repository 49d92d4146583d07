// decode.mlir with its logits an attention over a cache of 16 keys (bf16,
// constant keys of 1 and values of 2) whose mask `key <= position` reads
// the position input: stride-generate gives the invocation each step's
// position (Invocation::bindInputValue), which chooses the attention's
// kernel (python-free-docs/attention.md, "Chosen at run time by the
// position"). Its prefill is prefill.mlir with bf16 logits.
func.func @decode(%ids: !stride.tensor<1x1xi64> {stride.name = "input_ids"},
                   %pos: !stride.tensor<1xi64> {stride.name = "cache_position"},
                   %cache: !stride.tensor<1x2x8x4xf32> {stride.name = "key_cache_0", stride.state = dense<0.0> : tensor<1x2x8x4xf32>})
    -> (!stride.tensor<1x2x8x4xf32> {stride.name = "key_cache_0_new", stride.writes = "key_cache_0"},
        !stride.tensor<1x16xbf16> {stride.name = "logits"},
        !stride.tensor<1x1xi64> {stride.name = "next_token"},
        !stride.tensor<1xi64> {stride.name = "next_position"}) {
  %p = stride.view %pos : !stride.tensor<1xi64> -> !stride.tensor<1x1x1x1xi64>
  %i = stride.expand %p : !stride.tensor<1x1x1x1xi64> -> !stride.tensor<1x2x1x4xi64, strides = [0, 0, 1, 0], offset = 0>
  %ones = stride.full 1.0 : !stride.tensor<1x2x1x4xf32>
  %k = stride.scatter %cache, %i, %ones dim 2 : !stride.tensor<1x2x8x4xf32>, !stride.tensor<1x2x1x4xi64, strides = [0, 0, 1, 0], offset = 0>, !stride.tensor<1x2x1x4xf32> -> !stride.tensor<1x2x8x4xf32>
  %q = stride.constant dense<1.0> : tensor<1x2x1x8xbf16> : !stride.tensor<1x2x1x8xbf16>
  %kc = stride.constant dense<1.0> : tensor<1x1x16x8xbf16> : !stride.tensor<1x1x16x8xbf16>
  %vc = stride.constant dense<2.0> : tensor<1x1x16x8xbf16> : !stride.tensor<1x1x16x8xbf16>
  %p0 = stride.select %pos dim 0 index 0 : !stride.tensor<1xi64> -> !stride.tensor<i64>
  %keys = stride.iota dim 3 : !stride.tensor<1x1x1x16xi64>
  %px = stride.expand %p0 : !stride.tensor<i64> -> !stride.tensor<1x1x1x16xi64, strides = [0, 0, 0, 0], offset = 0>
  %le = stride.cmp le, %keys, %px : !stride.tensor<1x1x1x16xi64>, !stride.tensor<1x1x1x16xi64, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x1x16xi1>
  %m = stride.expand %le : !stride.tensor<1x1x1x16xi1> -> !stride.tensor<1x2x1x16xi1, strides = [0, 0, 16, 1], offset = 0>
  %o = stride.attention %q, %kc, %vc mask %m scale 0.35355339059327373 : !stride.tensor<1x2x1x8xbf16>, !stride.tensor<1x1x16x8xbf16>, !stride.tensor<1x1x16x8xbf16>, !stride.tensor<1x2x1x16xi1, strides = [0, 0, 16, 1], offset = 0> -> !stride.tensor<1x2x1x8xbf16>
  %logits = stride.view %o : !stride.tensor<1x2x1x8xbf16> -> !stride.tensor<1x16xbf16>
  %token = stride.clone %ids : !stride.tensor<1x1xi64> -> !stride.tensor<1x1xi64>
  %one = stride.full 1.0 : !stride.tensor<1xi64>
  %next = stride.add %pos, %one : !stride.tensor<1xi64>, !stride.tensor<1xi64> -> !stride.tensor<1xi64>
  return %k, %logits, %token, %next : !stride.tensor<1x2x8x4xf32>, !stride.tensor<1x16xbf16>, !stride.tensor<1x1xi64>, !stride.tensor<1xi64>
}
