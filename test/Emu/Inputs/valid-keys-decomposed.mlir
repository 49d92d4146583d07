// An f32 attention with a valid key count per batch (kv_length) and 8
// query rows: neither cuDNN nor the split-KV kernel takes it, so
// stride-decompose-attention masks the keys at or past each count. The
// counts are random inputs (any i32: the op reads them clamped to [0, 40]).
!q = !stride.tensor<2x4x8x32xf32>
!kv = !stride.tensor<2x2x40x32xf32>
func.func @decomposed(%q: !q {stride.name = "q"}, %k: !kv {stride.name = "k"},
                      %v: !kv {stride.name = "v"},
                      %n: !stride.tensor<2xi32> {stride.name = "n"})
    -> (!q {stride.name = "o"}) {
  %o = stride.attention %q, %k, %v kv_length(%n : !stride.tensor<2xi32>) scale 0.17 : !q, !kv, !kv -> !q
  return %o : !q
}
