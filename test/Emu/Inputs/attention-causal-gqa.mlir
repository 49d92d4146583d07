// A training step's attention in f32: causal, 4 query heads on 2 key/value
// heads (grouped-query), Sq = Skv = 70, head dim 64, batch 2; the forward
// with its logsumexp and the backward from a given gradient.
// stride-decompose-attention rewrites both into products and kernels.
!q = !stride.tensor<2x4x70x64xf32>
!kv = !stride.tensor<2x2x70x64xf32>
!lse = !stride.tensor<2x4x70xf32>
func.func @attention(%q: !q {stride.name = "q"}, %k: !kv {stride.name = "k"},
                     %v: !kv {stride.name = "v"}, %do: !q {stride.name = "do"})
    -> (!q {stride.name = "o"}, !lse {stride.name = "lse"},
        !q {stride.name = "dq"}, !kv {stride.name = "dk"}, !kv {stride.name = "dv"}) {
  %o, %lse = stride.attention %q, %k, %v scale 0.125 causal
      : !q, !kv, !kv -> !q, !lse
  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse scale 0.125 causal
      : !q, !q, !kv, !kv, !q, !lse -> !q, !kv, !kv
  return %o, %lse, %dq, %dk, %dv : !q, !lse, !q, !kv, !kv
}
