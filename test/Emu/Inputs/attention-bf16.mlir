// Attention in bf16 (computed in f32 by the fallback, rounded to bf16 once
// per result): causal multi-query attention (4 query heads on one
// key/value head), Sq = Skv = 70, head dim 128, with an additive bf16 mask
// [Sq, Skv] broadcast over batch and heads, forward and backward; and 5
// queries on 37 keys, head dim 80, with a boolean mask [Sq, Skv] broadcast
// likewise.
!q = !stride.tensor<2x4x70x128xbf16>
!kv = !stride.tensor<2x1x70x128xbf16>
!lse = !stride.tensor<2x4x70xf32>
!bias = !stride.tensor<2x4x70x70xbf16, strides = [0, 0, 70, 1], offset = 0>
!sq = !stride.tensor<1x2x5x80xbf16>
!skv = !stride.tensor<1x2x37x80xbf16>
!keep = !stride.tensor<1x2x5x37xi1, strides = [0, 0, 37, 1], offset = 0>
func.func @bf16(%q: !q {stride.name = "q"}, %k: !kv {stride.name = "k"},
                %v: !kv {stride.name = "v"}, %do: !q {stride.name = "do"},
                %b: !stride.tensor<70x70xbf16> {stride.name = "bias"},
                %sq: !sq {stride.name = "sq"}, %sk: !skv {stride.name = "sk"},
                %sv: !skv {stride.name = "sv"},
                %m: !stride.tensor<5x37xi1> {stride.name = "keep"})
    -> (!q {stride.name = "o"}, !lse {stride.name = "lse"},
        !q {stride.name = "dq"}, !kv {stride.name = "dk"}, !kv {stride.name = "dv"},
        !sq {stride.name = "short"}) {
  %bm = stride.expand %b : !stride.tensor<70x70xbf16> -> !bias
  %o, %lse = stride.attention %q, %k, %v mask %bm scale 0.088388347648318447 causal
      : !q, !kv, !kv, !bias -> !q, !lse
  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse
      mask %bm scale 0.088388347648318447 causal
      : !q, !q, !kv, !kv, !q, !lse, !bias -> !q, !kv, !kv
  %mm = stride.expand %m : !stride.tensor<5x37xi1> -> !keep
  %short = stride.attention %sq, %sk, %sv mask %mm scale 0.11180339887498948
      : !sq, !skv, !skv, !keep -> !sq
  return %o, %lse, %dq, %dk, %dv, %short : !q, !lse, !q, !kv, !kv, !sq
}
