// Over a symbolic batch and token counts, stride-outline-executable writes
// the cudnn.sdpa_* descriptor's sizes, strides and offsets as arrays of
// integers and #stride.size expressions, which the runtime evaluates per
// shape (python-free-docs/symbolic-sizes.md, "Attention over symbolic
// sizes"); a forward without a logsumexp result writes cuDNN's statistics
// into a scratch buffer sized at run time.
// RUN: stride-opt --stride-pipeline=form-kernels=1 --stride-outline-executable -split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @forward(
// CHECK: %[[IN:.*]] = plan.input %arg0
// CHECK: %[[OUT:.*]] = plan.alloc 81920 bytes sized <batch*seq*256>
// CHECK: %[[STATS:.*]] = plan.alloc 2560 bytes sized <batch*seq*8>
// CHECK: plan.library_call "cudnn.sdpa_forward"(%[[IN]], %[[IN]], %[[IN]], %[[OUT]], %[[STATS]]) descriptor {bias = array<i64: 0>, causal = array<i64: 1>, dims = [#stride.size<batch>, 2, 2, #stride.size<seq>, #stride.size<seq>, 64, 64], dtype = "bf16", k_strides = [#stride.size<seq*384>, 64, 384, 1], o_strides = [#stride.size<seq*128>, #stride.size<seq*64>, 64, 1], offsets = array<i64: 0, 128, 128, 0, 0>, q_strides = [#stride.size<seq*384>, 64, 384, 1], scale = array<i64: 4593671619917905920>, stats = array<i64: 1>, v_strides = [#stride.size<seq*384>, 64, 384, 1]}
!x = !stride.tensor<[batch, seq, 3, 2, 64], bf16>
!head = !stride.tensor<[batch, seq, 2, 64], bf16, strides = [seq*384, 384, 64, 1], offset = 0>
!headk = !stride.tensor<[batch, seq, 2, 64], bf16, strides = [seq*384, 384, 64, 1], offset = 128>
!q = !stride.tensor<[batch, 2, seq, 64], bf16, strides = [seq*384, 64, 384, 1], offset = 0>
!k = !stride.tensor<[batch, 2, seq, 64], bf16, strides = [seq*384, 64, 384, 1], offset = 128>
!o = !stride.tensor<[batch, 2, seq, 64], bf16>
func.func @forward(%x: !x) -> !o
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 4]>,
                                  #stride.symbol<"seq", range = [1, 80]>]} {
  %q0 = stride.select %x dim 2 index 0 : !x -> !head
  %q = stride.permute %q0 dims [0, 2, 1, 3] : !head -> !q
  %k0 = stride.select %x dim 2 index 1 : !x -> !headk
  %k = stride.permute %k0 dims [0, 2, 1, 3] : !headk -> !k
  %o = stride.attention %q, %k, %k scale 0.125 causal : !q, !k, !k -> !o
  return %o : !o
}

// -----

// The backward with a bias broadcast over batch and heads: the bias's dims
// [1, 1, seq, seq] (copied dense: its rows are seq elements apart, not a
// multiple of 16 bytes for every seq), the broadcast dims' strides the
// bias's extent seq*seq.
// CHECK-LABEL: func.func @backward(
// CHECK: %[[BIAS:.*]] = plan.alloc 12800 bytes sized <seq*seq*2>
// CHECK: plan.dispatch @backward_kernels::@clone_kernel(%{{.*}}, %[[BIAS]])
// CHECK: plan.library_call "cudnn.sdpa_backward"(%{{.*}}, %[[BIAS]], %{{.*}}) descriptor {bias = array<i64: 1>, bias_dims = [1, 1, #stride.size<seq>, #stride.size<seq>], bias_strides = [#stride.size<seq*seq>, #stride.size<seq*seq>, #stride.size<seq>, 1], causal = array<i64: 0>, dims = [#stride.size<batch>, 2, 2, #stride.size<seq>, #stride.size<seq>, 16, 16], dk_strides = [#stride.size<seq*32>, #stride.size<seq*16>, 16, 1],
!g = !stride.tensor<[batch, 2, seq, 16], bf16>
!l = !stride.tensor<[batch, 2, seq], f32>
!b = !stride.tensor<[batch, 2, seq, seq], bf16, strides = [0, 0, seq, 1], offset = 0>
func.func @backward(%do: !g, %q: !g, %k: !g, %v: !g, %o: !g, %lse: !l,
                    %bias: !stride.tensor<[seq, seq], bf16>) -> (!g, !g, !g)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 4]>,
                                  #stride.symbol<"seq", range = [1, 80]>]} {
  %m = stride.expand %bias : !stride.tensor<[seq, seq], bf16> -> !b
  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse mask %m scale 0.25
      : !g, !g, !g, !g, !g, !l, !b -> !g, !g, !g
  return %dq, %dk, %dv : !g, !g, !g
}
