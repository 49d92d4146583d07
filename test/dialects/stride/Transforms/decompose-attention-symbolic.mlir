// Attention over symbolic sizes that stride-attention-library does not
// keep fused (f32, a head dim cuDNN does not take, --attention-library=none)
// is refused by the fallback at the op: its products would contract over a
// symbolic key count, which cuBLASLt's products over symbolic sizes do not
// take yet (python-free-docs/symbolic-sizes.md).
// RUN: stride-opt %s -split-input-file -verify-diagnostics --stride-attention-library --stride-decompose-attention

func.func @f32(%q: !stride.tensor<[batch, 2, seq, 8], f32>, %k: !stride.tensor<[batch, 2, seq, 8], f32>, %v: !stride.tensor<[batch, 2, seq, 8], f32>) -> !stride.tensor<[batch, 2, seq, 8], f32>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 8]>, #stride.symbol<"seq", range = [1, 512]>]} {
  // expected-error @+2 {{'stride.attention' op over symbolic sizes runs as one cuDNN call only (which stride-attention-library keeps for f16 and bf16 with head dims that are multiples of 8 up to 128, with --attention-library=cudnn on sm_80 or newer); its decomposition into products over a symbolic contraction and column count is not built yet (issue 44)}}
  // expected-note @+1 {{this op is 'f32' with head dims 8 and 8}}
  %o = stride.attention %q, %k, %v scale 0.25 causal : !stride.tensor<[batch, 2, seq, 8], f32>, !stride.tensor<[batch, 2, seq, 8], f32>, !stride.tensor<[batch, 2, seq, 8], f32> -> !stride.tensor<[batch, 2, seq, 8], f32>
  return %o : !stride.tensor<[batch, 2, seq, 8], f32>
}

// -----

// bf16, but a head dim of 12.
func.func @head_dim(%do: !stride.tensor<[batch, 2, seq, 12], bf16>, %q: !stride.tensor<[batch, 2, seq, 12], bf16>, %k: !stride.tensor<[batch, 2, seq, 12], bf16>, %v: !stride.tensor<[batch, 2, seq, 12], bf16>, %o: !stride.tensor<[batch, 2, seq, 12], bf16>, %lse: !stride.tensor<[batch, 2, seq], f32>)
    -> (!stride.tensor<[batch, 2, seq, 12], bf16>, !stride.tensor<[batch, 2, seq, 12], bf16>, !stride.tensor<[batch, 2, seq, 12], bf16>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 8]>, #stride.symbol<"seq", range = [1, 512]>]} {
  // expected-error @+2 {{'stride.attention_backward' op over symbolic sizes runs as one cuDNN call only}}
  // expected-note @+1 {{this op is 'bf16' with head dims 12 and 12}}
  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse scale 0.25 : !stride.tensor<[batch, 2, seq, 12], bf16>, !stride.tensor<[batch, 2, seq, 12], bf16>, !stride.tensor<[batch, 2, seq, 12], bf16>, !stride.tensor<[batch, 2, seq, 12], bf16>, !stride.tensor<[batch, 2, seq, 12], bf16>, !stride.tensor<[batch, 2, seq], f32> -> !stride.tensor<[batch, 2, seq, 12], bf16>, !stride.tensor<[batch, 2, seq, 12], bf16>, !stride.tensor<[batch, 2, seq, 12], bf16>
  return %dq, %dk, %dv : !stride.tensor<[batch, 2, seq, 12], bf16>, !stride.tensor<[batch, 2, seq, 12], bf16>, !stride.tensor<[batch, 2, seq, 12], bf16>
}
