// Attention over a symbolic batch and sequence (python-free-docs/
// symbolic-sizes.md): the head views of one fused QKV projection
// [batch, seq, 3, 2, 64] in bf16, causal, with an additive padding mask
// [batch, seq] broadcast over heads and query rows, its logsumexp, and the
// backward. One cuDNN call per op whose descriptor's sizes and strides are
// expressions of batch and seq.
!x = !stride.tensor<[batch, seq, 3, 2, 64], bf16>
!head = !stride.tensor<[batch, seq, 2, 64], bf16, strides = [seq*384, 384, 64, 1], offset = 0>
!headk = !stride.tensor<[batch, seq, 2, 64], bf16, strides = [seq*384, 384, 64, 1], offset = 128>
!headv = !stride.tensor<[batch, seq, 2, 64], bf16, strides = [seq*384, 384, 64, 1], offset = 256>
!q = !stride.tensor<[batch, 2, seq, 64], bf16, strides = [seq*384, 64, 384, 1], offset = 0>
!k = !stride.tensor<[batch, 2, seq, 64], bf16, strides = [seq*384, 64, 384, 1], offset = 128>
!v = !stride.tensor<[batch, 2, seq, 64], bf16, strides = [seq*384, 64, 384, 1], offset = 256>
!o = !stride.tensor<[batch, 2, seq, 64], bf16>
!lse = !stride.tensor<[batch, 2, seq], f32>
!pad = !stride.tensor<[batch, 1, 1, seq], bf16, strides = [seq, seq, seq, 1], offset = 0>
!mask = !stride.tensor<[batch, 2, seq, seq], bf16, strides = [seq, 0, 0, 1], offset = 0>
func.func @attention(%x: !x {stride.name = "x"},
                     %p: !stride.tensor<[batch, seq], bf16> {stride.name = "pad"},
                     %do: !o {stride.name = "do"})
    -> (!o {stride.name = "o"}, !lse {stride.name = "lse"},
        !o {stride.name = "dq"}, !o {stride.name = "dk"}, !o {stride.name = "dv"})
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 4]>,
                                  #stride.symbol<"seq", range = [1, 80]>]} {
  %q0 = stride.select %x dim 2 index 0 : !x -> !head
  %q = stride.permute %q0 dims [0, 2, 1, 3] : !head -> !q
  %k0 = stride.select %x dim 2 index 1 : !x -> !headk
  %k = stride.permute %k0 dims [0, 2, 1, 3] : !headk -> !k
  %v0 = stride.select %x dim 2 index 2 : !x -> !headv
  %v = stride.permute %v0 dims [0, 2, 1, 3] : !headv -> !v
  %p1 = stride.view %p : !stride.tensor<[batch, seq], bf16> -> !pad
  %m = stride.expand %p1 : !pad -> !mask
  %o, %lse = stride.attention %q, %k, %v mask %m scale 0.125 causal
      : !q, !k, !v, !mask -> !o, !lse
  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse
      mask %m scale 0.125 causal
      : !o, !q, !k, !v, !o, !lse, !mask -> !o, !o, !o
  return %o, %lse, %dq, %dk, %dv : !o, !lse, !o, !o, !o
}
