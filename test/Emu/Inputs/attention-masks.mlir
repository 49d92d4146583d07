// Attention in f32 with masks broadcast by stride.expand (stride 0) and
// operands that are views of projections: 5 queries on 37 keys, head dim 80.
// The query is a head view [B, S, H, D] -> [B, H, S, D] of one projection,
// key and value two selects of one [B, S, 2, H, D] projection. A boolean
// padding mask [B, Skv] is shared by heads and rows; an additive [Sq, Skv]
// mask by batch and heads, with causal too (top left: query i sees keys
// j <= i of the 37), and the backward of that one.
!qx = !stride.tensor<2x5x3x80xf32>
!kvx = !stride.tensor<2x37x2x3x80xf32>
!q = !stride.tensor<2x3x5x80xf32, strides = [1200, 80, 240, 1], offset = 0>
!k = !stride.tensor<2x3x37x80xf32, strides = [17760, 80, 480, 1], offset = 0>
!v = !stride.tensor<2x3x37x80xf32, strides = [17760, 80, 480, 1], offset = 240>
!kvs = !stride.tensor<2x37x3x80xf32, strides = [17760, 480, 80, 1], offset = 0>
!vs = !stride.tensor<2x37x3x80xf32, strides = [17760, 480, 80, 1], offset = 240>
!o = !stride.tensor<2x3x5x80xf32>
!lse = !stride.tensor<2x3x5xf32>
!pad = !stride.tensor<2x3x5x37xi1, strides = [37, 0, 0, 1], offset = 0>
!bias = !stride.tensor<2x3x5x37xf32, strides = [0, 0, 37, 1], offset = 0>
func.func @masks(%x: !qx {stride.name = "x"}, %kv: !kvx {stride.name = "kv"},
                 %keep: !stride.tensor<2x37xi1> {stride.name = "keep"},
                 %b: !stride.tensor<5x37xf32> {stride.name = "bias"},
                 %do: !o {stride.name = "do"})
    -> (!o {stride.name = "padded"}, !o {stride.name = "biased"},
        !lse {stride.name = "lse"}, !o {stride.name = "dq"},
        !stride.tensor<2x3x37x80xf32> {stride.name = "dk"},
        !stride.tensor<2x3x37x80xf32> {stride.name = "dv"}) {
  %q = stride.permute %x dims [0, 2, 1, 3] : !qx -> !q
  %ks = stride.select %kv dim 2 index 0 : !kvx -> !kvs
  %vs = stride.select %kv dim 2 index 1 : !kvx -> !vs
  %k = stride.permute %ks dims [0, 2, 1, 3] : !kvs -> !k
  %v = stride.permute %vs dims [0, 2, 1, 3] : !vs -> !v
  %keep4 = stride.view %keep : !stride.tensor<2x37xi1>
      -> !stride.tensor<2x1x1x37xi1>
  %padm = stride.expand %keep4 : !stride.tensor<2x1x1x37xi1> -> !pad
  %padded = stride.attention %q, %k, %v mask %padm scale 0.11180339887498948
      : !q, !k, !v, !pad -> !o
  %biasm = stride.expand %b : !stride.tensor<5x37xf32> -> !bias
  %biased, %lse = stride.attention %q, %k, %v mask %biasm scale 0.11180339887498948 causal
      : !q, !k, !v, !bias -> !o, !lse
  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %biased, %lse
      mask %biasm scale 0.11180339887498948 causal
      : !o, !q, !k, !v, !o, !lse, !bias
      -> !o, !stride.tensor<2x3x37x80xf32>, !stride.tensor<2x3x37x80xf32>
  return %padded, %biased, %lse, %dq, %dk, %dv : !o, !o, !lse, !o,
      !stride.tensor<2x3x37x80xf32>, !stride.tensor<2x3x37x80xf32>
}
