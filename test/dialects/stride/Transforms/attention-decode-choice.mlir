// stride-attention-library's decode-attention option: a decode step that
// both cuDNN and Stride's kernel take runs as the policy says
// (python-free-docs/attention.md, "Decode attention"). auto (the default)
// and library take cuDNN for every such step (measured faster in the
// batch-1 step, bench/NOTES.md sections 63 and 78), staged and split-kv
// Stride's kernel (whose schedule picks the scheme). Steps only one of them takes
// are not the option's: f32 always runs as Stride's kernel, a prefill
// (many query rows) always as cuDNN.
// RUN: stride-opt --stride-attention-library -split-input-file %s | FileCheck %s --check-prefixes=CHECK,AUTO
// RUN: stride-opt --stride-attention-library=decode-attention=auto -split-input-file %s | FileCheck %s --check-prefixes=CHECK,AUTO
// RUN: stride-opt --stride-attention-library=decode-attention=split-kv -split-input-file %s | FileCheck %s --check-prefixes=CHECK,SPLIT
// RUN: stride-opt --stride-attention-library=decode-attention=staged -split-input-file %s | FileCheck %s --check-prefixes=CHECK,SPLIT
// RUN: stride-opt --stride-attention-library=decode-attention=library -split-input-file %s | FileCheck %s --check-prefixes=CHECK,LIBRARY
// RUN: not stride-opt --stride-attention-library=decode-attention=cudnn %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// The pipeline's option reaches the pass (stridec's --decode-attention:
// test/Emu/split-kv-attention.test).
// RUN: stride-opt --stride-pipeline=decode-attention=library -split-input-file %s | FileCheck %s --check-prefix=PIPELINE

// UNKNOWN: stride-attention-library: unknown decode-attention policy 'cudnn'; expected auto, staged, split-kv or library

// Batch 1, 32 query heads on 8 key/value heads, head dim 128, a cache of
// 4096 positions and its mask: bench/decode's step at batch 1 before
// stride-fold-index-masks makes its mask a kv_length (next).
// CHECK-LABEL: func.func @batch1
// AUTO:        stride.attention {{.*}} {stride.keep_fused}
// SPLIT:       stride.attention {{.*}} {stride.split_kv}
// LIBRARY:     stride.attention {{.*}} {stride.keep_fused}
// PIPELINE-LABEL: func.func @batch1
// PIPELINE:    stride.attention {{.*}} {stride.keep_fused}
func.func @batch1(%q: !stride.tensor<1x32x1x128xbf16>, %k: !stride.tensor<1x8x4096x128xbf16>,
                  %v: !stride.tensor<1x8x4096x128xbf16>,
                  %keep: !stride.tensor<1x32x1x4096xi1, strides = [4096, 0, 4096, 1], offset = 0>)
    -> !stride.tensor<1x32x1x128xbf16> {
  %o = stride.attention %q, %k, %v mask %keep scale 0.08838835
      : !stride.tensor<1x32x1x128xbf16>, !stride.tensor<1x8x4096x128xbf16>, !stride.tensor<1x8x4096x128xbf16>,
        !stride.tensor<1x32x1x4096xi1, strides = [4096, 0, 4096, 1], offset = 0> -> !stride.tensor<1x32x1x128xbf16>
  return %o : !stride.tensor<1x32x1x128xbf16>
}

// -----

// The same step with its valid length (as stride-fold-index-masks leaves
// it), which the staged scheme takes.
// CHECK-LABEL: func.func @batch1_valid_length
// AUTO:        stride.attention {{.*}} {stride.keep_fused}
// SPLIT:       stride.attention {{.*}} {stride.split_kv}
// LIBRARY:     stride.attention {{.*}} {stride.keep_fused}
// PIPELINE-LABEL: func.func @batch1_valid_length
// PIPELINE:    stride.attention {{.*}} {stride.keep_fused}
func.func @batch1_valid_length(%q: !stride.tensor<1x32x1x128xbf16>,
                               %k: !stride.tensor<1x8x4096x128xbf16>,
                               %v: !stride.tensor<1x8x4096x128xbf16>,
                               %n: !stride.tensor<1xi32>)
    -> !stride.tensor<1x32x1x128xbf16> {
  %o = stride.attention %q, %k, %v kv_length(%n : !stride.tensor<1xi32>) scale 0.08838835
      : !stride.tensor<1x32x1x128xbf16>, !stride.tensor<1x8x4096x128xbf16>, !stride.tensor<1x8x4096x128xbf16>
        -> !stride.tensor<1x32x1x128xbf16>
  return %o : !stride.tensor<1x32x1x128xbf16>
}

// -----

// Batch 8 (256 query heads over the batch).
// CHECK-LABEL: func.func @batch8
// AUTO:        stride.attention {{.*}} {stride.keep_fused}
// SPLIT:       stride.attention {{.*}} {stride.split_kv}
// LIBRARY:     stride.attention {{.*}} {stride.keep_fused}
func.func @batch8(%q: !stride.tensor<8x32x1x128xbf16>, %k: !stride.tensor<8x8x1024x128xbf16>,
                  %v: !stride.tensor<8x8x1024x128xbf16>) -> !stride.tensor<8x32x1x128xbf16> {
  %o = stride.attention %q, %k, %v scale 0.08838835
      : !stride.tensor<8x32x1x128xbf16>, !stride.tensor<8x8x1024x128xbf16>, !stride.tensor<8x8x1024x128xbf16>
        -> !stride.tensor<8x32x1x128xbf16>
  return %o : !stride.tensor<8x32x1x128xbf16>
}

// -----

// Batch 32 (1024 query heads over the batch).
// CHECK-LABEL: func.func @batch32
// AUTO:        stride.attention {{.*}} {stride.keep_fused}
// SPLIT:       stride.attention {{.*}} {stride.split_kv}
// LIBRARY:     stride.attention {{.*}} {stride.keep_fused}
func.func @batch32(%q: !stride.tensor<32x32x1x128xbf16>, %k: !stride.tensor<32x8x1024x128xbf16>,
                   %v: !stride.tensor<32x8x1024x128xbf16>) -> !stride.tensor<32x32x1x128xbf16> {
  %o = stride.attention %q, %k, %v scale 0.08838835
      : !stride.tensor<32x32x1x128xbf16>, !stride.tensor<32x8x1024x128xbf16>, !stride.tensor<32x8x1024x128xbf16>
        -> !stride.tensor<32x32x1x128xbf16>
  return %o : !stride.tensor<32x32x1x128xbf16>
}

// -----

// Only one of them takes it: f32 (not cuDNN's) is the split-KV kernel's
// under every policy; a prefill of 64 query rows (not the split-KV
// kernel's) is cuDNN's.
// CHECK-LABEL: func.func @one_taker
// CHECK:       stride.attention {{.*}} {stride.split_kv}
// CHECK:       stride.attention {{.*}} {stride.keep_fused}
func.func @one_taker(%q: !stride.tensor<1x32x1x128xf32>, %k: !stride.tensor<1x8x256x128xf32>,
                     %v: !stride.tensor<1x8x256x128xf32>, %qp: !stride.tensor<1x32x64x128xbf16>,
                     %kp: !stride.tensor<1x8x64x128xbf16>, %vp: !stride.tensor<1x8x64x128xbf16>)
    -> (!stride.tensor<1x32x1x128xf32>, !stride.tensor<1x32x64x128xbf16>) {
  %o = stride.attention %q, %k, %v scale 0.08838835
      : !stride.tensor<1x32x1x128xf32>, !stride.tensor<1x8x256x128xf32>, !stride.tensor<1x8x256x128xf32>
        -> !stride.tensor<1x32x1x128xf32>
  %p = stride.attention %qp, %kp, %vp scale 0.08838835 causal
      : !stride.tensor<1x32x64x128xbf16>, !stride.tensor<1x8x64x128xbf16>, !stride.tensor<1x8x64x128xbf16>
        -> !stride.tensor<1x32x64x128xbf16>
  return %o, %p : !stride.tensor<1x32x1x128xf32>, !stride.tensor<1x32x64x128xbf16>
}
