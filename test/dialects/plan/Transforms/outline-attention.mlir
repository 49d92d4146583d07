// stride-outline-executable lowers each attention op that
// stride-attention-library kept fused to a cudnn.sdpa_forward or
// cudnn.sdpa_backward library call (python-free-docs/attention.md, "The
// descriptor"): head views of one fused QKV projection are one buffer read
// at three offsets, and a forward without a logsumexp result writes cuDNN's
// statistics into a scratch buffer of [B, H, Sq] floats.
// RUN: stride-opt --stride-pipeline=form-kernels=1 --stride-outline-executable -split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @qkv(
// CHECK: %[[IN:.*]] = plan.input %arg0
// CHECK: %[[OUT:.*]] = plan.alloc 2048 bytes
// CHECK: %[[STATS:.*]] = plan.alloc 128 bytes
// CHECK: plan.library_call "cudnn.sdpa_forward"(%[[IN]], %[[IN]], %[[IN]], %[[OUT]], %[[STATS]]) descriptor {bias = array<i64: 0>, causal = array<i64: 1>, dims = array<i64: 1, 2, 2, 16, 16, 32, 32>, dtype = "f16", k_strides = array<i64: 3072, 32, 192, 1>, o_strides = array<i64: 1024, 512, 32, 1>, offsets = array<i64: 0, 64, 128, 0, 0>, q_strides = array<i64: 3072, 32, 192, 1>, scale = array<i64: 4595537071963061196>, stats = array<i64: 1>, v_strides = array<i64: 3072, 32, 192, 1>}
func.func @qkv(%qkv: !stride.tensor<1x16x3x2x32xf16>) -> !stride.tensor<1x2x16x32xf16> {
  %q0 = stride.select %qkv dim 2 index 0 : !stride.tensor<1x16x3x2x32xf16>
      -> !stride.tensor<1x16x2x32xf16, strides = [3072, 192, 32, 1], offset = 0>
  %q = stride.permute %q0 dims [0, 2, 1, 3] : !stride.tensor<1x16x2x32xf16, strides = [3072, 192, 32, 1], offset = 0>
      -> !stride.tensor<1x2x16x32xf16, strides = [3072, 32, 192, 1], offset = 0>
  %k0 = stride.select %qkv dim 2 index 1 : !stride.tensor<1x16x3x2x32xf16>
      -> !stride.tensor<1x16x2x32xf16, strides = [3072, 192, 32, 1], offset = 64>
  %k = stride.permute %k0 dims [0, 2, 1, 3] : !stride.tensor<1x16x2x32xf16, strides = [3072, 192, 32, 1], offset = 64>
      -> !stride.tensor<1x2x16x32xf16, strides = [3072, 32, 192, 1], offset = 64>
  %v0 = stride.select %qkv dim 2 index 2 : !stride.tensor<1x16x3x2x32xf16>
      -> !stride.tensor<1x16x2x32xf16, strides = [3072, 192, 32, 1], offset = 128>
  %v = stride.permute %v0 dims [0, 2, 1, 3] : !stride.tensor<1x16x2x32xf16, strides = [3072, 192, 32, 1], offset = 128>
      -> !stride.tensor<1x2x16x32xf16, strides = [3072, 32, 192, 1], offset = 128>
  %o = stride.attention %q, %k, %v scale 0.17677669529663687 causal
      : !stride.tensor<1x2x16x32xf16, strides = [3072, 32, 192, 1], offset = 0>,
        !stride.tensor<1x2x16x32xf16, strides = [3072, 32, 192, 1], offset = 64>,
        !stride.tensor<1x2x16x32xf16, strides = [3072, 32, 192, 1], offset = 128>
      -> !stride.tensor<1x2x16x32xf16>
  return %o : !stride.tensor<1x2x16x32xf16>
}

// -----

// The backward: q, k, v, o, do, stats, bias, then dq, dk, dv; a bias
// broadcast over batch and heads.
// CHECK-LABEL: func.func @backward(
// CHECK: plan.library_call "cudnn.sdpa_backward"(%{{.*}}) descriptor {bias = array<i64: 1>, bias_dims = array<i64: 1, 1, 8, 8>, bias_strides = array<i64: 64, 64, 8, 1>, causal = array<i64: 0>, dims = array<i64: 2, 4, 2, 8, 8, 16, 16>, dk_strides = array<i64: 256, 128, 16, 1>, do_strides = array<i64: 512, 128, 16, 1>, dq_strides = array<i64: 512, 128, 16, 1>, dtype = "bf16", dv_strides = array<i64: 256, 128, 16, 1>, k_strides = array<i64: 256, 128, 16, 1>, o_strides = array<i64: 512, 128, 16, 1>, offsets = array<i64: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, q_strides = array<i64: 512, 128, 16, 1>, scale = array<i64: 4598175219545276416>, v_strides = array<i64: 256, 128, 16, 1>}

func.func @backward(%do: !stride.tensor<2x4x8x16xbf16>, %q: !stride.tensor<2x4x8x16xbf16>,
                    %k: !stride.tensor<2x2x8x16xbf16>, %v: !stride.tensor<2x2x8x16xbf16>,
                    %o: !stride.tensor<2x4x8x16xbf16>, %lse: !stride.tensor<2x4x8xf32>,
                    %bias: !stride.tensor<8x8xbf16>)
    -> (!stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x2x8x16xbf16>, !stride.tensor<2x2x8x16xbf16>) {
  %m = stride.expand %bias : !stride.tensor<8x8xbf16>
      -> !stride.tensor<2x4x8x8xbf16, strides = [0, 0, 8, 1], offset = 0>
  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse mask %m scale 0.25
      : !stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x2x8x16xbf16>,
        !stride.tensor<2x2x8x16xbf16>, !stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x4x8xf32>,
        !stride.tensor<2x4x8x8xbf16, strides = [0, 0, 8, 1], offset = 0>
      -> !stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x2x8x16xbf16>, !stride.tensor<2x2x8x16xbf16>
  return %dq, %dk, %dv : !stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x2x8x16xbf16>, !stride.tensor<2x2x8x16xbf16>
}

// -----

// A padding mask ([B, 1, 1, Skv] broadcast over heads and query rows): one
// row of keys per batch, read in place (the runtime gives cuDNN's backward
// the rows at stride 0, attention.md).
// CHECK-LABEL: func.func @backward_padding(
// CHECK: plan.library_call "cudnn.sdpa_backward"(%{{.*}}) descriptor {bias = array<i64: 1>, bias_dims = array<i64: 2, 1, 1, 8>, bias_strides = array<i64: 8, 8, 8, 1>,
func.func @backward_padding(%do: !stride.tensor<2x4x8x16xbf16>, %q: !stride.tensor<2x4x8x16xbf16>,
                            %k: !stride.tensor<2x4x8x16xbf16>, %v: !stride.tensor<2x4x8x16xbf16>,
                            %o: !stride.tensor<2x4x8x16xbf16>, %lse: !stride.tensor<2x4x8xf32>,
                            %bias: !stride.tensor<2x1x1x8xbf16>)
    -> (!stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x4x8x16xbf16>) {
  %m = stride.expand %bias : !stride.tensor<2x1x1x8xbf16>
      -> !stride.tensor<2x4x8x8xbf16, strides = [8, 0, 0, 1], offset = 0>
  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse mask %m scale 0.25
      : !stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x4x8x16xbf16>,
        !stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x4x8xf32>,
        !stride.tensor<2x4x8x8xbf16, strides = [8, 0, 0, 1], offset = 0>
      -> !stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x4x8x16xbf16>
  return %dq, %dk, %dv : !stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x4x8x16xbf16>, !stride.tensor<2x4x8x16xbf16>
}
