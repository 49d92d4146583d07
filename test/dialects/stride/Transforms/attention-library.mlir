// stride-attention-library: which attention ops stay fused for cuDNN, and
// their operands in the layouts cuDNN reads (python-free-docs/attention.md,
// "The fused path").
// RUN: stride-opt --stride-attention-library -split-input-file %s | FileCheck %s
// RUN: stride-opt --stride-attention-library=library=none -split-input-file %s | FileCheck %s --check-prefix=NONE
// RUN: not stride-opt --stride-attention-library=library=cublas %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// NONE-NOT: stride.keep_fused
// UNKNOWN: stride-attention-library: unknown library 'cublas'; expected cudnn or none

// Dense bf16 operands are read in place.
// CHECK-LABEL: func.func @dense_bf16
// CHECK-NOT: stride.clone
// CHECK: stride.attention %arg0, %arg1, %arg2 scale 1.250000e-01 causal {stride.keep_fused}
func.func @dense_bf16(%q: !stride.tensor<2x4x64x64xbf16>, %k: !stride.tensor<2x4x64x64xbf16>,
                      %v: !stride.tensor<2x4x64x64xbf16>) -> !stride.tensor<2x4x64x64xbf16> {
  %o = stride.attention %q, %k, %v scale 0.125 causal
      : !stride.tensor<2x4x64x64xbf16>, !stride.tensor<2x4x64x64xbf16>,
        !stride.tensor<2x4x64x64xbf16> -> !stride.tensor<2x4x64x64xbf16>
  return %o : !stride.tensor<2x4x64x64xbf16>
}

// -----

// f32 and head dims that are no multiple of 8 are left to the fallback.
// CHECK-LABEL: func.func @not_taken
// CHECK-NOT: stride.keep_fused
// CHECK: return
func.func @not_taken(%q: !stride.tensor<1x2x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>,
                     %v: !stride.tensor<1x2x8x16xf32>, %hq: !stride.tensor<1x2x8x20xf16>,
                     %hk: !stride.tensor<1x2x8x20xf16>, %hv: !stride.tensor<1x2x8x20xf16>)
    -> (!stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x8x20xf16>) {
  %o = stride.attention %q, %k, %v scale 0.25 : !stride.tensor<1x2x8x16xf32>,
      !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
  %h = stride.attention %hq, %hk, %hv scale 0.25 : !stride.tensor<1x2x8x20xf16>,
      !stride.tensor<1x2x8x20xf16>, !stride.tensor<1x2x8x20xf16> -> !stride.tensor<1x2x8x20xf16>
  return %o, %h : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x8x20xf16>
}

// -----

// Head views of one fused projection [B, S, 3, H, D] are read in place; a
// key whose head dim is not contiguous is copied first.
// CHECK-LABEL: func.func @views
// CHECK: %[[KT:.*]] = stride.permute %arg1
// CHECK: %[[KD:.*]] = stride.clone %[[KT]] : {{.*}} -> <1x2x16x32xf16, strides = [1024, 512, 32, 1], offset = 0>
// CHECK: stride.attention %{{.*}}, %[[KD]], %{{.*}} scale {{.*}} {stride.keep_fused}
func.func @views(%qkv: !stride.tensor<1x16x3x2x32xf16>, %kt: !stride.tensor<1x2x32x16xf16>)
    -> !stride.tensor<1x2x16x32xf16> {
  %q0 = stride.select %qkv dim 2 index 0 : !stride.tensor<1x16x3x2x32xf16>
      -> !stride.tensor<1x16x2x32xf16, strides = [3072, 192, 32, 1], offset = 0>
  %q = stride.permute %q0 dims [0, 2, 1, 3] : !stride.tensor<1x16x2x32xf16, strides = [3072, 192, 32, 1], offset = 0>
      -> !stride.tensor<1x2x16x32xf16, strides = [3072, 32, 192, 1], offset = 0>
  %v0 = stride.select %qkv dim 2 index 2 : !stride.tensor<1x16x3x2x32xf16>
      -> !stride.tensor<1x16x2x32xf16, strides = [3072, 192, 32, 1], offset = 128>
  %v = stride.permute %v0 dims [0, 2, 1, 3] : !stride.tensor<1x16x2x32xf16, strides = [3072, 192, 32, 1], offset = 128>
      -> !stride.tensor<1x2x16x32xf16, strides = [3072, 32, 192, 1], offset = 128>
  %k = stride.permute %kt dims [0, 1, 3, 2] : !stride.tensor<1x2x32x16xf16>
      -> !stride.tensor<1x2x16x32xf16, strides = [1024, 512, 1, 16], offset = 0>
  %o = stride.attention %q, %k, %v scale 0.17677669529663687
      : !stride.tensor<1x2x16x32xf16, strides = [3072, 32, 192, 1], offset = 0>,
        !stride.tensor<1x2x16x32xf16, strides = [1024, 512, 1, 16], offset = 0>,
        !stride.tensor<1x2x16x32xf16, strides = [3072, 32, 192, 1], offset = 128>
      -> !stride.tensor<1x2x16x32xf16>
  return %o : !stride.tensor<1x2x16x32xf16>
}

// -----

// A boolean padding mask [B, 1, 1, Skv] expanded over heads and rows
// becomes a bf16 bias of that small shape (0 or -inf), expanded back. A row
// the mask hides entirely is 0 in the op and NaN through cuDNN: whether
// each batch's rows attend a key is reduced from the same small tensor,
// and the result is 0 where they do not.
// CHECK-LABEL: func.func @padding_mask
// CHECK: %[[S1:.*]] = stride.slice %{{.*}} dim 1 start 0 end 1 step 1
// CHECK: %[[S2:.*]] = stride.slice %[[S1]] dim 2 start 0 end 1 step 1 : {{.*}} -> <2x1x1x64xi1, strides = [64, 0, 0, 1], offset = 0>
// CHECK: %[[ANY:.*]] = stride.any %[[S2]] dims [3] keepdim : {{.*}} -> <2x1x1x1xi1
// CHECK: %[[ROWS:.*]] = stride.expand %[[ANY]] : {{.*}} -> <2x1x64x1xi1
// CHECK-DAG: %[[ZERO:.*]] = stride.full 0.000000e+00 : <2x1x1x64xbf16
// CHECK-DAG: %[[NINF:.*]] = stride.full 0xFFF0000000000000 : <2x1x1x64xbf16
// CHECK: %[[BIAS:.*]] = stride.where %[[S2]], %[[ZERO]], %[[NINF]]
// CHECK: %[[E:.*]] = stride.expand %[[BIAS]] : {{.*}} -> <2x4x64x64xbf16, strides = [64, 0, 0, 1], offset = 0>
// CHECK: %[[O:.*]] = stride.attention %arg0, %arg1, %arg2 mask %[[E]] scale {{.*}} {stride.keep_fused}
// CHECK: %[[KEPT:.*]] = stride.expand %[[ROWS]] : {{.*}} -> <2x4x64x64xi1
// CHECK: %[[Z:.*]] = stride.full 0.000000e+00 : <2x4x64x64xbf16
// CHECK: %[[F:.*]] = stride.where %[[KEPT]], %[[O]], %[[Z]]
// CHECK: return %[[F]]
func.func @padding_mask(%q: !stride.tensor<2x4x64x64xbf16>, %k: !stride.tensor<2x4x64x64xbf16>,
                        %v: !stride.tensor<2x4x64x64xbf16>, %keep: !stride.tensor<2x1x1x64xi1>)
    -> !stride.tensor<2x4x64x64xbf16> {
  %m = stride.expand %keep : !stride.tensor<2x1x1x64xi1>
      -> !stride.tensor<2x4x64x64xi1, strides = [64, 0, 0, 1], offset = 0>
  %o = stride.attention %q, %k, %v mask %m scale 0.125
      : !stride.tensor<2x4x64x64xbf16>, !stride.tensor<2x4x64x64xbf16>,
        !stride.tensor<2x4x64x64xbf16>, !stride.tensor<2x4x64x64xi1, strides = [64, 0, 0, 1], offset = 0>
      -> !stride.tensor<2x4x64x64xbf16>
  return %o : !stride.tensor<2x4x64x64xbf16>
}

// -----

// The backward's bias, like the forward's, is the small tensor behind the
// broadcast dims (heads and query rows), expanded back: no Sq x Skv copy
// (the runtime gives cuDNN's backward the rows at stride 0, attention.md).
// CHECK-LABEL: func.func @backward_bias
// CHECK: %[[S1:.*]] = stride.slice %{{.*}} dim 1 start 0 end 1 step 1 : {{.*}} -> <2x1x64x64xbf16, strides = [64, 0, 0, 1], offset = 0>
// CHECK: %[[S2:.*]] = stride.slice %[[S1]] dim 2 start 0 end 1 step 1 : {{.*}} -> <2x1x1x64xbf16, strides = [64, 0, 0, 1], offset = 0>
// CHECK-NOT: stride.clone
// CHECK: %[[E:.*]] = stride.expand %[[S2]] : {{.*}} -> <2x4x64x64xbf16, strides = [64, 0, 0, 1], offset = 0>
// CHECK: stride.attention_backward {{.*}} mask %[[E]] scale {{.*}} {stride.keep_fused}
func.func @backward_bias(%do: !stride.tensor<2x4x64x64xbf16>, %q: !stride.tensor<2x4x64x64xbf16>,
                         %k: !stride.tensor<2x4x64x64xbf16>, %v: !stride.tensor<2x4x64x64xbf16>,
                         %o: !stride.tensor<2x4x64x64xbf16>, %lse: !stride.tensor<2x4x64xf32>,
                         %bias: !stride.tensor<2x1x1x64xbf16>)
    -> (!stride.tensor<2x4x64x64xbf16>, !stride.tensor<2x4x64x64xbf16>, !stride.tensor<2x4x64x64xbf16>) {
  %m = stride.expand %bias : !stride.tensor<2x1x1x64xbf16>
      -> !stride.tensor<2x4x64x64xbf16, strides = [64, 0, 0, 1], offset = 0>
  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse mask %m scale 0.125
      : !stride.tensor<2x4x64x64xbf16>, !stride.tensor<2x4x64x64xbf16>, !stride.tensor<2x4x64x64xbf16>,
        !stride.tensor<2x4x64x64xbf16>, !stride.tensor<2x4x64x64xbf16>, !stride.tensor<2x4x64xf32>,
        !stride.tensor<2x4x64x64xbf16, strides = [64, 0, 0, 1], offset = 0>
      -> !stride.tensor<2x4x64x64xbf16>, !stride.tensor<2x4x64x64xbf16>, !stride.tensor<2x4x64x64xbf16>
  return %dq, %dk, %dv : !stride.tensor<2x4x64x64xbf16>, !stride.tensor<2x4x64x64xbf16>, !stride.tensor<2x4x64x64xbf16>
}

// -----

// The statistics as PyTorch's CPU flash attention returns them (heads
// innermost) and an output whose rows are not contiguous (stride 2): cuDNN writes
// both dense, and clones give the other uses the layouts they had. The
// backward reads the output and the statistics dense too (clones) and
// writes a gradient of non-contiguous rows dense, then copies it.
// CHECK-LABEL: func.func @result_layouts
// CHECK: %[[O:.*]], %[[LSE:.*]] = stride.attention {{.*}} {stride.keep_fused} : {{.*}} -> <1x2x16x16xbf16, strides = [512, 256, 16, 1], offset = 0>, !stride.tensor<1x2x16xf32, strides = [32, 16, 1], offset = 0>
// CHECK-NEXT: %[[LSE2:.*]] = stride.clone %[[LSE]] : {{.*}} -> <1x2x16xf32, strides = [32, 1, 2], offset = 0>
// CHECK-NEXT: %[[O2:.*]] = stride.clone %[[O]] : {{.*}} -> <1x2x16x16xbf16, strides = [1024, 512, 32, 2], offset = 0>
// CHECK-NEXT: %[[OD:.*]] = stride.clone %[[O2]] : {{.*}} -> <1x2x16x16xbf16, strides = [512, 256, 16, 1], offset = 0>
// CHECK-NEXT: %[[DENSE:.*]] = stride.clone %[[LSE2]] : {{.*}} -> <1x2x16xf32, strides = [32, 16, 1], offset = 0>
// CHECK-NEXT: %[[DQ:.*]], %{{.*}}, %{{.*}} = stride.attention_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[OD]], %[[DENSE]] scale {{.*}} {stride.keep_fused} : {{.*}} -> <1x2x16x16xbf16, strides = [512, 256, 16, 1], offset = 0>,
// CHECK-NEXT: stride.clone %[[DQ]] : {{.*}} -> <1x2x16x16xbf16, strides = [1024, 512, 32, 2], offset = 0>
// CHECK: return %[[O2]], %[[LSE2]]
func.func @result_layouts(%q: !stride.tensor<1x2x16x16xbf16>, %k: !stride.tensor<1x2x16x16xbf16>,
                          %v: !stride.tensor<1x2x16x16xbf16>, %do: !stride.tensor<1x2x16x16xbf16>)
    -> (!stride.tensor<1x2x16x16xbf16, strides = [1024, 512, 32, 2], offset = 0>,
        !stride.tensor<1x2x16xf32, strides = [32, 1, 2], offset = 0>,
        !stride.tensor<1x2x16x16xbf16, strides = [1024, 512, 32, 2], offset = 0>) {
  %o, %lse = stride.attention %q, %k, %v scale 0.25 causal
      : !stride.tensor<1x2x16x16xbf16>, !stride.tensor<1x2x16x16xbf16>, !stride.tensor<1x2x16x16xbf16>
      -> !stride.tensor<1x2x16x16xbf16, strides = [1024, 512, 32, 2], offset = 0>,
         !stride.tensor<1x2x16xf32, strides = [32, 1, 2], offset = 0>
  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse scale 0.25 causal
      : !stride.tensor<1x2x16x16xbf16>, !stride.tensor<1x2x16x16xbf16>, !stride.tensor<1x2x16x16xbf16>,
        !stride.tensor<1x2x16x16xbf16>, !stride.tensor<1x2x16x16xbf16, strides = [1024, 512, 32, 2], offset = 0>,
        !stride.tensor<1x2x16xf32, strides = [32, 1, 2], offset = 0>
      -> !stride.tensor<1x2x16x16xbf16, strides = [1024, 512, 32, 2], offset = 0>,
         !stride.tensor<1x2x16x16xbf16>, !stride.tensor<1x2x16x16xbf16>
  return %o, %lse, %dq : !stride.tensor<1x2x16x16xbf16, strides = [1024, 512, 32, 2], offset = 0>,
      !stride.tensor<1x2x16xf32, strides = [32, 1, 2], offset = 0>,
      !stride.tensor<1x2x16x16xbf16, strides = [1024, 512, 32, 2], offset = 0>
}

// -----

// A decode step (1 query row, 4 query heads per key/value head, 512 keys)
// in bf16, which both cuDNN and the split-KV kernel take: cuDNN
// (decode-attention=auto, the default; attention-decode-choice.mlir shows
// each policy); with library=none,
// Stride's split-KV kernel too, and with split-kv=false, decomposition.
// With a logsumexp result (a training forward) or 5 query rows: cuDNN, and
// never the split-KV kernel.
// CHECK-LABEL: func.func @decode_step
// CHECK:       stride.attention %arg0, %arg1, %arg2 mask %{{[0-9]+}} scale 0.088388350000000004 {stride.keep_fused}
// CHECK-NOT:   stride.split_kv
// CHECK:       stride.attention {{.*}} {stride.keep_fused}
// CHECK:       stride.attention {{.*}} {stride.keep_fused}
// NONE-LABEL: func.func @decode_step
// NONE:       stride.attention %arg0, %arg1, %arg2 mask %arg3 scale 0.088388350000000004 {stride.split_kv}
// NONE-NOT:   stride.split_kv
// NONE-NOT:   stride.keep_fused
// NONE:       return
// OFF-LABEL: func.func @decode_step
// OFF-NOT:   stride.split_kv
// OFF-NOT:   stride.keep_fused
// OFF:       return
// RUN: stride-opt --stride-attention-library="library=none split-kv=false" -split-input-file %s | FileCheck %s --check-prefix=OFF
func.func @decode_step(%q: !stride.tensor<2x8x1x128xbf16>, %k: !stride.tensor<2x2x512x128xbf16>,
                       %v: !stride.tensor<2x2x512x128xbf16>,
                       %keep: !stride.tensor<2x8x1x512xi1, strides = [512, 0, 512, 1], offset = 0>,
                       %q5: !stride.tensor<2x8x5x128xbf16>)
    -> (!stride.tensor<2x8x1x128xbf16>, !stride.tensor<2x8x1x128xbf16>, !stride.tensor<2x8x5x128xbf16>) {
  %o = stride.attention %q, %k, %v mask %keep scale 0.08838835
      : !stride.tensor<2x8x1x128xbf16>, !stride.tensor<2x2x512x128xbf16>, !stride.tensor<2x2x512x128xbf16>,
        !stride.tensor<2x8x1x512xi1, strides = [512, 0, 512, 1], offset = 0> -> !stride.tensor<2x8x1x128xbf16>
  %o2, %lse = stride.attention %q, %k, %v scale 0.08838835
      : !stride.tensor<2x8x1x128xbf16>, !stride.tensor<2x2x512x128xbf16>, !stride.tensor<2x2x512x128xbf16>
        -> !stride.tensor<2x8x1x128xbf16>, !stride.tensor<2x8x1xf32>
  %o5 = stride.attention %q5, %k, %v scale 0.08838835
      : !stride.tensor<2x8x5x128xbf16>, !stride.tensor<2x2x512x128xbf16>, !stride.tensor<2x2x512x128xbf16>
        -> !stride.tensor<2x8x5x128xbf16>
  return %o, %o2, %o5 : !stride.tensor<2x8x1x128xbf16>, !stride.tensor<2x8x1x128xbf16>, !stride.tensor<2x8x5x128xbf16>
}

// -----

// A valid key count (kv_length, from stride-fold-index-masks) becomes the
// boolean mask key < kv_length[b], read as cuDNN's bias like any mask:
// cuDNN's padding mask gave wrong results on an H200 (bench/NOTES.md
// section 61). A count beside a mask cuDNN does not take: Stride's
// kernel does (with library=none, both).
// CHECK-LABEL: func.func @valid_keys
// CHECK: %[[KEYS:.*]] = stride.iota dim 1 : <2x96xi64
// CHECK: %[[WIDE:.*]] = stride.cast %arg3
// CHECK: %[[KEEP:.*]] = stride.cmp lt, %[[KEYS]], %{{.*}}
// CHECK: stride.where
// CHECK: stride.attention %arg0, %arg1, %arg2 mask %{{.*}} scale 1.250000e-01 {stride.keep_fused} :
// CHECK-NOT: kv_length
// CHECK: stride.attention %arg0, %arg1, %arg2 mask %arg4 kv_length(%arg3 : {{.*}}) scale 1.250000e-01 {stride.split_kv} :
// NONE-LABEL: func.func @valid_keys
// NONE: stride.attention %arg0, %arg1, %arg2 kv_length(%arg3 : {{.*}}) scale 1.250000e-01 {stride.split_kv} :
// NONE: stride.attention %arg0, %arg1, %arg2 mask %arg4 kv_length(%arg3 : {{.*}}) scale 1.250000e-01 {stride.split_kv} :
!q = !stride.tensor<2x8x1x64xbf16>
!kv = !stride.tensor<2x2x96x64xbf16>
!m = !stride.tensor<2x8x1x96xbf16>
func.func @valid_keys(%q: !q, %k: !kv, %v: !kv, %n: !stride.tensor<2xi32>, %m: !m) -> (!q, !q) {
  %o = stride.attention %q, %k, %v kv_length(%n : !stride.tensor<2xi32>) scale 0.125 : !q, !kv, !kv -> !q
  %o2 = stride.attention %q, %k, %v mask %m kv_length(%n : !stride.tensor<2xi32>) scale 0.125 : !q, !kv, !kv, !m -> !q
  return %o, %o2 : !q, !q
}

// -----

// With the causal flag, a row attends a key where the mask keeps one at or
// before its own position: for a padding mask, where the first key it
// keeps (a minimum over B x Skv) is at most the row's index. The logsumexp
// of a hidden row is -inf, and the backward reads +inf there (its weights
// exp(S - L) then 0).
// CHECK-LABEL: func.func @causal_mask_rows
// CHECK: %[[FIRST:.*]] = stride.min %{{.*}} dims [3] keepdim : {{.*}} -> <1x1x1x1xi64
// CHECK: %[[ROWS:.*]] = stride.cmp le, %{{.*}}, %{{.*}} : {{.*}} -> <1x1x8x1xi1
// CHECK-NOT: stride.and
// CHECK: %[[O:.*]], %[[L:.*]] = stride.attention {{.*}} causal {stride.keep_fused}
// CHECK-DAG: stride.where %{{.*}}, %[[O]], %{{.*}} : {{.*}} -> <1x2x8x16xbf16
// CHECK-DAG: %[[LF:.*]] = stride.where %{{.*}}, %[[L]], %{{.*}} : {{.*}} -> <1x2x8xf32
// CHECK: %[[PINF:.*]] = stride.full 0x7FF0000000000000 : <1x2x8xf32
// CHECK: %[[STATS:.*]] = stride.where %{{.*}}, %[[LF]], %[[PINF]]
// CHECK: stride.attention_backward {{.*}}, %[[STATS]] mask
func.func @causal_mask_rows(%q: !stride.tensor<1x2x8x16xbf16>, %k: !stride.tensor<1x2x8x16xbf16>,
                            %v: !stride.tensor<1x2x8x16xbf16>, %keep: !stride.tensor<1x8xi1>,
                            %do: !stride.tensor<1x2x8x16xbf16>)
    -> (!stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8xf32>, !stride.tensor<1x2x8x16xbf16>,
        !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8x16xbf16>) {
  %k4 = stride.view %keep : !stride.tensor<1x8xi1> -> !stride.tensor<1x1x1x8xi1>
  %m = stride.expand %k4 : !stride.tensor<1x1x1x8xi1>
      -> !stride.tensor<1x2x8x8xi1, strides = [8, 0, 0, 1], offset = 0>
  %o, %lse = stride.attention %q, %k, %v mask %m scale 0.25 causal
      : !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8x16xbf16>,
        !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8x8xi1, strides = [8, 0, 0, 1], offset = 0>
      -> !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8xf32>
  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse mask %m scale 0.25 causal
      : !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8x16xbf16>,
        !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8xf32>,
        !stride.tensor<1x2x8x8xi1, strides = [8, 0, 0, 1], offset = 0>
      -> !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8x16xbf16>
  return %o, %lse, %dq, %dk, %dv : !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8xf32>,
      !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8x16xbf16>
}

// -----

// A mask of its own per query row, with the causal flag: each row's keys
// and the causal order, then whether any is left.
// CHECK-LABEL: func.func @causal_row_mask
// CHECK: %[[AND:.*]] = stride.and %{{.*}}, %{{.*}} : {{.*}} -> <1x1x8x8xi1
// CHECK: %[[ANY:.*]] = stride.any %[[AND]] dims [3] keepdim : {{.*}} -> <1x1x8x1xi1
// CHECK: stride.attention {{.*}} causal {stride.keep_fused}
// CHECK: stride.where
func.func @causal_row_mask(%q: !stride.tensor<1x2x8x16xbf16>, %k: !stride.tensor<1x2x8x16xbf16>,
                           %v: !stride.tensor<1x2x8x16xbf16>, %keep: !stride.tensor<8x8xi1>)
    -> !stride.tensor<1x2x8x16xbf16> {
  %m = stride.expand %keep : !stride.tensor<8x8xi1>
      -> !stride.tensor<1x2x8x8xi1, strides = [0, 0, 8, 1], offset = 0>
  %o = stride.attention %q, %k, %v mask %m scale 0.25 causal
      : !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8x16xbf16>,
        !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8x8xi1, strides = [0, 0, 8, 1], offset = 0>
      -> !stride.tensor<1x2x8x16xbf16>
  return %o : !stride.tensor<1x2x8x16xbf16>
}
