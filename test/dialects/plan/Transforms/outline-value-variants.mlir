// A bf16 decode step whose mask reads the position input
// (python-free-docs/attention.md, "Chosen at run time by the position"):
// the attention is the staged kernel's dispatch `when` the position is at
// most 2047 (2048 valid keys: stride-attention-library's staged-keys) and
// cuDNN's call `unless`; the kernel that computes the call's bias from the
// position has no other reader, so it runs `unless` too, while the kernel
// that computes the valid count, which both read, runs always. The
// position's argument binds the symbol (stride.binds).
// RUN: stride-opt --stride-pipeline=form-kernels --stride-schedule-kernels=arch=sm_90 --stride-outline-executable %s | FileCheck %s

// CHECK-LABEL: plan.executable @decode_kernels
// CHECK: stride.kernel "attention_staged" attributes {stride.schedule = #stride.schedule<scheme = staged_kv_mma_attention
// CHECK-LABEL: func.func @decode
// CHECK-SAME: %arg3: !stride.tensor<1xi64, strides = [1], offset = 0> {stride.binds = "cache_position", stride.name = "cache_position"}
// CHECK-SAME: stride.symbols = [#stride.symbol<"cache_position", range = [0, 4095]>]
// CHECK: plan.dispatch @decode_kernels::@full_add_full_maximum_full_cast(%{{.*}}, %[[COUNT:[0-9]+]]){{$}}
// CHECK: plan.dispatch @decode_kernels::@attention_staged({{.*}}%[[COUNT]], %[[O:[0-9]+]], {{.*}}) {when = [#stride.symbol<"cache_position", range = [0, 2047]>]}
// CHECK: plan.dispatch @decode_kernels::@iota_cast_cmp_full_full_where(%[[COUNT]], %[[BIAS:.*]]) {unless = [#stride.symbol<"cache_position", range = [0, 2047]>]}
// CHECK: plan.library_call "cudnn.sdpa_forward"({{.*}}%[[BIAS]], %[[O]], {{.*}}) descriptor {{.*}} {unless = [#stride.symbol<"cache_position", range = [0, 2047]>]}
// CHECK: plan.output %[[O]]
!q = !stride.tensor<1x8x1x128xbf16>
!kv = !stride.tensor<1x1x4096x128xbf16>
!mask = !stride.tensor<1x8x1x4096xi1, strides = [0, 0, 4096, 1], offset = 0>
func.func @decode(%q: !q {stride.name = "q"}, %k: !kv {stride.name = "k"},
                  %v: !kv {stride.name = "v"},
                  %pos: !stride.tensor<1xi64> {stride.name = "cache_position"})
    -> (!q {stride.name = "o"}) {
  %p0 = stride.select %pos dim 0 index 0 : !stride.tensor<1xi64> -> !stride.tensor<i64>
  %keys = stride.iota dim 3 : !stride.tensor<1x1x1x4096xi64>
  %px = stride.expand %p0 : !stride.tensor<i64> -> !stride.tensor<1x1x1x4096xi64, strides = [0, 0, 0, 0], offset = 0>
  %le = stride.cmp le, %keys, %px : !stride.tensor<1x1x1x4096xi64>, !stride.tensor<1x1x1x4096xi64, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x1x4096xi1>
  %m = stride.expand %le : !stride.tensor<1x1x1x4096xi1> -> !mask
  %o = stride.attention %q, %k, %v mask %m scale 0.08838834764831845 : !q, !kv, !kv, !mask -> !q
  return %o : !q
}
