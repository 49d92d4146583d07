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
// RUN: stride-opt --stride-attention-library=staged-keys=0 -split-input-file %s | FileCheck %s --check-prefix=NEVER
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
// Under auto, its count read from an input of one i32, it gets both,
// chosen at run time (python-free-docs/attention.md, "Chosen at run time
// by the position"): the input binds a symbol whose range is the counts 1
// to the cache's 4096 keys, the staged kernel runs when the count is at
// most 2048 (the option staged-keys), cuDNN otherwise.
// CHECK-LABEL: func.func @batch1_valid_length
// AUTO-SAME:   %arg3: !stride.tensor<1xi32, strides = [1], offset = 0> {stride.binds = "position"})
// AUTO-SAME:   attributes {stride.symbols = [#stride.symbol<"position", range = [1, 4096]>]}
// AUTO:        %[[STAGED:.*]] = stride.kernel "attention_staged" ins({{.*}}) attributes {when = [#stride.symbol<"position", range = [1, 2048]>]}
// AUTO:        stride.attention {{.*}} kv_length({{.*}}) {{.*}} {stride.split_kv, stride.staged_kv}
// AUTO:        %[[CUDNN:.*]] = stride.attention {{.*}} mask {{.*}} {stride.keep_fused}
// AUTO:        stride.select_variant %[[STAGED]] {{.*}} when [#stride.symbol<"position", range = [1, 2048]>] else %[[CUDNN]]
// NEVER-LABEL: func.func @batch1_valid_length
// NEVER-NOT:   stride.symbols
// NEVER:       stride.attention {{.*}} {stride.keep_fused}
// NEVER-NOT:   stride.select_variant
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

// -----

// A cache of at most staged-keys keys: the staged kernel at every
// position, no variant and no symbol.
// AUTO-LABEL: func.func @short_cache
// AUTO-NOT:   stride.symbols
// AUTO:       stride.attention {{.*}} {stride.split_kv, stride.staged_kv}
// AUTO-NOT:   stride.select_variant
// NEVER-LABEL: func.func @short_cache
// NEVER:      stride.attention {{.*}} {stride.keep_fused}
func.func @short_cache(%q: !stride.tensor<1x32x1x128xbf16>,
                       %k: !stride.tensor<1x8x2048x128xbf16>,
                       %v: !stride.tensor<1x8x2048x128xbf16>,
                       %n: !stride.tensor<1xi32>)
    -> !stride.tensor<1x32x1x128xbf16> {
  %o = stride.attention %q, %k, %v kv_length(%n : !stride.tensor<1xi32>) scale 0.08838835
      : !stride.tensor<1x32x1x128xbf16>, !stride.tensor<1x8x2048x128xbf16>, !stride.tensor<1x8x2048x128xbf16>
        -> !stride.tensor<1x32x1x128xbf16>
  return %o : !stride.tensor<1x32x1x128xbf16>
}

// -----

// The count stride-fold-index-masks builds from transformers'
// cache_position, clamp(position + 1, 0, keys): the symbol, named after
// the input, is the position, 0 to 4095; the staged kernel runs at
// positions up to 2047.
// AUTO-LABEL: func.func @from_cache_position
// AUTO-SAME:  {stride.binds = "cache_position", stride.name = "cache_position"}
// AUTO-SAME:  attributes {stride.symbols = [#stride.symbol<"cache_position", range = [0, 4095]>]}
// AUTO:       stride.select_variant {{.*}} when [#stride.symbol<"cache_position", range = [0, 2047]>]
func.func @from_cache_position(%q: !stride.tensor<1x32x1x128xbf16>,
                               %k: !stride.tensor<1x8x4096x128xbf16>,
                               %v: !stride.tensor<1x8x4096x128xbf16>,
                               %pos: !stride.tensor<1xi64> {stride.name = "cache_position"})
    -> !stride.tensor<1x32x1x128xbf16> {
  %p = stride.view %pos : !stride.tensor<1xi64> -> !stride.tensor<i64>
  %e = stride.expand %p : !stride.tensor<i64> -> !stride.tensor<1xi64, strides = [0], offset = 0>
  %one = stride.full 1.0 : !stride.tensor<1xi64>
  %next = stride.add %e, %one : !stride.tensor<1xi64, strides = [0], offset = 0>, !stride.tensor<1xi64> -> !stride.tensor<1xi64>
  %zero = stride.full 0.0 : !stride.tensor<1xi64>
  %low = stride.maximum %next, %zero : !stride.tensor<1xi64>, !stride.tensor<1xi64> -> !stride.tensor<1xi64>
  %keys = stride.full 4096.0 : !stride.tensor<1xi64>
  %count = stride.minimum %low, %keys : !stride.tensor<1xi64>, !stride.tensor<1xi64> -> !stride.tensor<1xi64>
  %n = stride.cast %count : !stride.tensor<1xi64> -> !stride.tensor<1xi32>
  %o = stride.attention %q, %k, %v kv_length(%n : !stride.tensor<1xi32>) scale 0.08838835
      : !stride.tensor<1x32x1x128xbf16>, !stride.tensor<1x8x4096x128xbf16>, !stride.tensor<1x8x4096x128xbf16>
        -> !stride.tensor<1x32x1x128xbf16>
  return %o : !stride.tensor<1x32x1x128xbf16>
}

// -----

// A count computed otherwise (here a product of the input): cuDNN, as
// before, since no input's value gives it.
// AUTO-LABEL: func.func @computed_count
// AUTO-NOT:   stride.symbols
// AUTO:       stride.attention {{.*}} {stride.keep_fused}
// AUTO-NOT:   stride.select_variant
func.func @computed_count(%q: !stride.tensor<1x32x1x128xbf16>,
                          %k: !stride.tensor<1x8x4096x128xbf16>,
                          %v: !stride.tensor<1x8x4096x128xbf16>,
                          %m: !stride.tensor<1xi32>)
    -> !stride.tensor<1x32x1x128xbf16> {
  %n = stride.mul %m, %m : !stride.tensor<1xi32>, !stride.tensor<1xi32> -> !stride.tensor<1xi32>
  %o = stride.attention %q, %k, %v kv_length(%n : !stride.tensor<1xi32>) scale 0.08838835
      : !stride.tensor<1x32x1x128xbf16>, !stride.tensor<1x8x4096x128xbf16>, !stride.tensor<1x8x4096x128xbf16>
        -> !stride.tensor<1x32x1x128xbf16>
  return %o : !stride.tensor<1x32x1x128xbf16>
}
