// With --attention-library=none, attention over symbolic sizes that cuDNN
// would take is decomposed, and so refused at the op as well
// (decompose-attention-symbolic.mlir).
// RUN: stride-opt %s -verify-diagnostics --stride-attention-library=library=none --stride-decompose-attention
// RUN: stride-opt %s --stride-attention-library | FileCheck %s
// CHECK: stride.attention {{.*}} {stride.keep_fused}

func.func @bf16(%q: !stride.tensor<[batch, 2, seq, 64], bf16>) -> !stride.tensor<[batch, 2, seq, 64], bf16>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 8]>, #stride.symbol<"seq", range = [1, 512]>]} {
  // expected-error @+2 {{'stride.attention' op over symbolic sizes runs as one cuDNN call only}}
  // expected-note @+1 {{this op is 'bf16' with head dims 64 and 64}}
  %o = stride.attention %q, %q, %q scale 0.125 causal : !stride.tensor<[batch, 2, seq, 64], bf16>, !stride.tensor<[batch, 2, seq, 64], bf16>, !stride.tensor<[batch, 2, seq, 64], bf16> -> !stride.tensor<[batch, 2, seq, 64], bf16>
  return %o : !stride.tensor<[batch, 2, seq, 64], bf16>
}
