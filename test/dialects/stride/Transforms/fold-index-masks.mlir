// stride-fold-index-masks (Passes.td; python-free-docs/attention.md,
// "Masks read from their ops"): boolean masks built from index arithmetic
// become the causal flag, nothing, or a valid key count.
// RUN: stride-opt --stride-fold-index-masks -split-input-file %s | FileCheck %s

// A decode step over a static cache of 96 positions: key j attends where
// j <= the position (an input). Both layers read one kv_length,
// clamp(position + 1, 0, 96) as i32 per batch, and no mask.
// CHECK-LABEL: func.func @decode
// CHECK: %[[P:.*]] = stride.view %arg3 : <1xi64, {{.*}}> -> <i64, strides = [], offset = 0>
// CHECK: %[[E:.*]] = stride.expand %[[P]]
// CHECK: %[[ONE:.*]] = stride.full 1.000000e+00 : <1xi64
// CHECK: %[[ADD:.*]] = stride.add %[[E]], %[[ONE]]
// CHECK: %[[ZERO:.*]] = stride.full 0.000000e+00 : <1xi64
// CHECK: %[[LOW:.*]] = stride.maximum %[[ADD]], %[[ZERO]]
// CHECK: %[[KEYS:.*]] = stride.full 9.600000e+01 : <1xi64
// CHECK: %[[HIGH:.*]] = stride.minimum %[[LOW]], %[[KEYS]]
// CHECK: %[[N:.*]] = stride.cast %[[HIGH]] : {{.*}} -> <1xi32
// CHECK: stride.attention %arg0, %arg1, %arg2 kv_length(%[[N]] : !stride.tensor<1xi32, strides = [1], offset = 0>) scale 2.500000e-01 :
// CHECK-NOT: stride.cast
// CHECK: stride.attention %arg0, %arg1, %arg2 kv_length(%[[N]] : !stride.tensor<1xi32, strides = [1], offset = 0>) scale 2.500000e-01 :
!q = !stride.tensor<1x4x1x16xbf16>
!kv = !stride.tensor<1x2x96x16xbf16>
!mask = !stride.tensor<1x4x1x96xi1, strides = [96, 0, 96, 1], offset = 0>
func.func @decode(%q: !q, %k: !kv, %v: !kv, %pos: !stride.tensor<1xi64>) -> (!q, !q) {
  %p0 = stride.select %pos dim 0 index 0 : !stride.tensor<1xi64> -> !stride.tensor<i64>
  %i = stride.iota dim 0 : !stride.tensor<1xi64>
  %pe = stride.expand %p0 : !stride.tensor<i64> -> !stride.tensor<1xi64, strides = [0], offset = 0>
  %qpos = stride.add %i, %pe : !stride.tensor<1xi64>, !stride.tensor<1xi64, strides = [0], offset = 0> -> !stride.tensor<1xi64>
  %keys = stride.iota dim 3 : !stride.tensor<1x1x1x96xi64>
  %qp = stride.view %qpos : !stride.tensor<1xi64> -> !stride.tensor<1x1x1x1xi64>
  %qx = stride.expand %qp : !stride.tensor<1x1x1x1xi64> -> !stride.tensor<1x1x1x96xi64, strides = [1, 1, 1, 0], offset = 0>
  %le = stride.cmp le, %keys, %qx : !stride.tensor<1x1x1x96xi64>, !stride.tensor<1x1x1x96xi64, strides = [1, 1, 1, 0], offset = 0> -> !stride.tensor<1x1x1x96xi1>
  %m = stride.expand %le : !stride.tensor<1x1x1x96xi1> -> !mask
  %o1 = stride.attention %q, %k, %v mask %m scale 0.25 : !q, !kv, !kv, !mask -> !q
  %o2 = stride.attention %q, %k, %v mask %m scale 0.25 : !q, !kv, !kv, !mask -> !q
  return %o1, %o2 : !q, !q
}

// -----

// key < position + 2 over one query row (lt, and a constant added to the
// position): clamp(position + 2, 0, 96).
// CHECK-LABEL: func.func @less_than
// CHECK: %[[TWO:.*]] = stride.full 2.000000e+00 : <1xi64
// CHECK: stride.add %{{.*}}, %[[TWO]]
// CHECK: stride.attention %arg0, %arg1, %arg2 kv_length(
!q = !stride.tensor<1x4x1x16xbf16>
!kv = !stride.tensor<1x2x96x16xbf16>
!mask = !stride.tensor<1x4x1x96xi1, strides = [96, 0, 96, 1], offset = 0>
func.func @less_than(%q: !q, %k: !kv, %v: !kv, %pos: !stride.tensor<i64>) -> !q {
  %one = stride.full 2.0 : !stride.tensor<i64>
  %p1 = stride.add %pos, %one : !stride.tensor<i64>, !stride.tensor<i64> -> !stride.tensor<i64>
  %keys = stride.iota dim 3 : !stride.tensor<1x1x1x96xi64>
  %px = stride.expand %p1 : !stride.tensor<i64> -> !stride.tensor<1x1x1x96xi64, strides = [0, 0, 0, 0], offset = 0>
  %lt = stride.cmp gt, %px, %keys : !stride.tensor<1x1x1x96xi64, strides = [0, 0, 0, 0], offset = 0>, !stride.tensor<1x1x1x96xi64> -> !stride.tensor<1x1x1x96xi1>
  %m = stride.expand %lt : !stride.tensor<1x1x1x96xi1> -> !mask
  %o = stride.attention %q, %k, %v mask %m scale 0.25 : !q, !kv, !kv, !mask -> !q
  return %o : !q
}

// -----

// Several query rows at positions p, p + 1, ... (a prefill into the cache):
// the mask j <= i + p is no valid key count; it stays. So does a mask read
// from an input, and one whose key coefficient is not 1.
// CHECK-LABEL: func.func @kept
// CHECK: stride.attention %arg0, %arg1, %arg2 mask %{{.*}} scale
// CHECK: stride.attention %arg0, %arg1, %arg2 mask %{{.*}} scale
// CHECK: stride.attention %arg0, %arg1, %arg2 mask %{{.*}} scale
!q = !stride.tensor<1x4x3x16xbf16>
!kv = !stride.tensor<1x2x96x16xbf16>
!mask = !stride.tensor<1x4x3x96xi1, strides = [288, 0, 96, 1], offset = 0>
func.func @kept(%q: !q, %k: !kv, %v: !kv, %pos: !stride.tensor<i64>, %pad: !stride.tensor<1x1x3x96xi1>) -> (!q, !q, !q) {
  %rows = stride.iota dim 2 : !stride.tensor<1x1x3x96xi64>
  %px = stride.expand %pos : !stride.tensor<i64> -> !stride.tensor<1x1x3x96xi64, strides = [0, 0, 0, 0], offset = 0>
  %at = stride.add %rows, %px : !stride.tensor<1x1x3x96xi64>, !stride.tensor<1x1x3x96xi64, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x3x96xi64>
  %keys = stride.iota dim 3 : !stride.tensor<1x1x3x96xi64>
  %le = stride.cmp le, %keys, %at : !stride.tensor<1x1x3x96xi64>, !stride.tensor<1x1x3x96xi64> -> !stride.tensor<1x1x3x96xi1>
  %m = stride.expand %le : !stride.tensor<1x1x3x96xi1> -> !mask
  %o1 = stride.attention %q, %k, %v mask %m scale 0.25 : !q, !kv, !kv, !mask -> !q
  %m2 = stride.expand %pad : !stride.tensor<1x1x3x96xi1> -> !mask
  %o2 = stride.attention %q, %k, %v mask %m2 scale 0.25 : !q, !kv, !kv, !mask -> !q
  %twice = stride.add %keys, %keys : !stride.tensor<1x1x3x96xi64>, !stride.tensor<1x1x3x96xi64> -> !stride.tensor<1x1x3x96xi64>
  %le3 = stride.cmp le, %twice, %px : !stride.tensor<1x1x3x96xi64>, !stride.tensor<1x1x3x96xi64, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x3x96xi1>
  %m3 = stride.expand %le3 : !stride.tensor<1x1x3x96xi1> -> !mask
  %o3 = stride.attention %q, %k, %v mask %m3 scale 0.25 : !q, !kv, !kv, !mask -> !q
  return %o1, %o2, %o3 : !q, !q, !q
}

// -----

// A causal mask over symbolic sizes (key <= query as iotas of seq), and-ed
// with true: the forward's and the backward's causal flag. A shifted
// diagonal (key <= query - 1) stays a mask.
// CHECK-LABEL: func.func @causal
// CHECK: %[[O:.*]], %[[LSE:.*]] = stride.attention %arg0, %arg1, %arg2 scale 1.250000e-01 causal :
// CHECK: stride.attention_backward %arg3, %arg0, %arg1, %arg2, %[[O]], %[[LSE]] scale 1.250000e-01 causal :
// CHECK: stride.attention %arg0, %arg1, %arg2 mask %{{.*}} scale 1.250000e-01 :
!q = !stride.tensor<[b, 2, seq, 64], bf16>
!lse = !stride.tensor<[b, 2, seq], f32>
!sq = !stride.tensor<[1, 1, seq, seq], i64>
!sqb = !stride.tensor<[1, 1, seq, seq], i1>
!mask = !stride.tensor<[b, 2, seq, seq], i1, strides = [0, 0, seq, 1], offset = 0>
func.func @causal(%q: !q, %k: !q, %v: !q, %do: !q) -> (!q, !q, !q, !q, !q)
    attributes {stride.symbols = [#stride.symbol<"b", range = [1, 8]>,
                                  #stride.symbol<"seq", range = [1, 1024]>]} {
  %rows = stride.iota dim 2 : !sq
  %keys = stride.iota dim 3 : !sq
  %le = stride.cmp le, %keys, %rows : !sq, !sq -> !sqb
  %true = stride.full 1.0 : !stride.tensor<i1>
  %all = stride.expand %true : !stride.tensor<i1> -> !stride.tensor<[1, 1, seq, seq], i1, strides = [0, 0, 0, 0], offset = 0>
  %and = stride.and %all, %le : !stride.tensor<[1, 1, seq, seq], i1, strides = [0, 0, 0, 0], offset = 0>, !sqb -> !sqb
  %m = stride.expand %and : !sqb -> !mask
  %o, %lse = stride.attention %q, %k, %v mask %m scale 0.125 : !q, !q, !q, !mask -> !q, !lse
  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse mask %m scale 0.125
      : !q, !q, !q, !q, !q, !lse, !mask -> !q, !q, !q
  %one = stride.full 1.0 : !stride.tensor<i64>
  %ones = stride.expand %one : !stride.tensor<i64> -> !stride.tensor<[1, 1, seq, seq], i64, strides = [0, 0, 0, 0], offset = 0>
  %below = stride.sub %rows, %ones : !sq, !stride.tensor<[1, 1, seq, seq], i64, strides = [0, 0, 0, 0], offset = 0> -> !sq
  %shifted = stride.cmp le, %keys, %below : !sq, !sq -> !sqb
  %m2 = stride.expand %shifted : !sqb -> !mask
  %o2 = stride.attention %q, %k, %v mask %m2 scale 0.125 : !q, !q, !q, !mask -> !q
  return %o, %dq, %dk, %dv, %o2 : !q, !q, !q, !q, !q
}

// -----

// transformers' sdpa_mask over a symbolic batch s0 and sequence s1, as
// stridec imports it from Inputs/symbolic/mask-builder.pt2 (test/Import/
// Torch): the causal mask and-ed with the packed-sequence test of positions
// that are an arange (diff, != 1, cumsum, read by index_select): true
// everywhere, so the mask is causal for every s0 and s1.
// CHECK-LABEL: func.func @packed_sequences
// CHECK: stride.attention %arg1, %arg2, %arg3 scale 1.250000e-01 causal :
!q = !stride.tensor<[s0, 2, s1, 64], bf16>
func.func @packed_sequences(%arg0: !stride.tensor<[s0, s1], i64, strides = [s1, 1], offset = 0>, %q: !q, %k: !q, %v: !q) -> !q attributes {stride.symbols = [#stride.symbol<"s0", range = [1, 64]>, #stride.symbol<"s1", range = [2, 1024]>]} {
    %0 = stride.iota dim 0 : <[s1], i64, strides = [1], offset = 0>
    %1 = stride.full 0.000000e+00 : <i64, strides = [], offset = 0>
    %2 = stride.expand %1 : <i64, strides = [], offset = 0> -> <[s1], i64, strides = [0], offset = 0>
    %3 = stride.add %0, %2 : <[s1], i64, strides = [1], offset = 0>, <[s1], i64, strides = [0], offset = 0> -> <[s1], i64, strides = [1], offset = 0>
    %4 = stride.unsqueeze %3 dim 0 : <[s1], i64, strides = [1], offset = 0> -> <[1, s1], i64, strides = [s1, 1], offset = 0>
    %5 = stride.expand %4 : <[1, s1], i64, strides = [s1, 1], offset = 0> -> <[s0, s1], i64, strides = [0, 1], offset = 0>
    %6 = stride.slice %5 dim 1 start 0 end 1 step 1 : <[s0, s1], i64, strides = [0, 1], offset = 0> -> <[s0, 1], i64, strides = [0, 1], offset = 0>
    %7 = stride.full 1.000000e+00 : <i64, strides = [], offset = 0>
    %8 = stride.expand %7 : <i64, strides = [], offset = 0> -> <[s0, 1], i64, strides = [0, 0], offset = 0>
    %9 = stride.sub %6, %8 : <[s0, 1], i64, strides = [0, 1], offset = 0>, <[s0, 1], i64, strides = [0, 0], offset = 0> -> <[s0, 1], i64, strides = [1, 1], offset = 0>
    %10 = stride.cat %9, %5 dim 1 : !stride.tensor<[s0, 1], i64, strides = [1, 1], offset = 0>, !stride.tensor<[s0, s1], i64, strides = [0, 1], offset = 0> -> <[s0, s1 + 1], i64, strides = [s1 + 1, 1], offset = 0>
    %11 = stride.slice %10 dim 1 start 0 end s1 step 1 : <[s0, s1 + 1], i64, strides = [s1 + 1, 1], offset = 0> -> <[s0, s1], i64, strides = [s1 + 1, 1], offset = 0>
    %12 = stride.slice %10 dim 1 start 1 end s1 + 1 step 1 : <[s0, s1 + 1], i64, strides = [s1 + 1, 1], offset = 0> -> <[s0, s1], i64, strides = [s1 + 1, 1], offset = 1>
    %13 = stride.sub %12, %11 : <[s0, s1], i64, strides = [s1 + 1, 1], offset = 1>, <[s0, s1], i64, strides = [s1 + 1, 1], offset = 0> -> <[s0, s1], i64, strides = [s1, 1], offset = 0>
    %14 = stride.full 1.000000e+00 : <i64, strides = [], offset = 0>
    %15 = stride.expand %14 : <i64, strides = [], offset = 0> -> <[s0, s1], i64, strides = [0, 0], offset = 0>
    %16 = stride.cmp ne, %13, %15 : <[s0, s1], i64, strides = [s1, 1], offset = 0>, <[s0, s1], i64, strides = [0, 0], offset = 0> -> <[s0, s1], i1, strides = [s1, 1], offset = 0>
    %17 = stride.cast %16 : <[s0, s1], i1, strides = [s1, 1], offset = 0> -> <[s0, s1], i64, strides = [s1, 1], offset = 0>
    %18 = stride.cumsum %17 dim 1 : <[s0, s1], i64, strides = [s1, 1], offset = 0> -> <[s0, s1], i64, strides = [s1, 1], offset = 0>
    %19 = stride.iota dim 0 : <[s0], i64, strides = [1], offset = 0>
    %20 = stride.iota dim 0 : <[s1], i64, strides = [1], offset = 0>
    %21 = stride.iota dim 0 : <[s1], i64, strides = [1], offset = 0>
    %22 = stride.unsqueeze %19 dim 1 : <[s0], i64, strides = [1], offset = 0> -> <[s0, 1], i64, strides = [1, 1], offset = 0>
    %23 = stride.unsqueeze %22 dim 2 : <[s0, 1], i64, strides = [1, 1], offset = 0> -> <[s0, 1, 1], i64, strides = [1, 1, 1], offset = 0>
    %24 = stride.unsqueeze %23 dim 3 : <[s0, 1, 1], i64, strides = [1, 1, 1], offset = 0> -> <[s0, 1, 1, 1], i64, strides = [1, 1, 1, 1], offset = 0>
    %25 = stride.unsqueeze %20 dim 0 : <[s1], i64, strides = [1], offset = 0> -> <[1, s1], i64, strides = [s1, 1], offset = 0>
    %26 = stride.unsqueeze %25 dim 1 : <[1, s1], i64, strides = [s1, 1], offset = 0> -> <[1, 1, s1], i64, strides = [s1, s1, 1], offset = 0>
    %27 = stride.unsqueeze %26 dim 3 : <[1, 1, s1], i64, strides = [s1, s1, 1], offset = 0> -> <[1, 1, s1, 1], i64, strides = [s1, s1, 1, 1], offset = 0>
    %28 = stride.unsqueeze %21 dim 0 : <[s1], i64, strides = [1], offset = 0> -> <[1, s1], i64, strides = [s1, 1], offset = 0>
    %29 = stride.unsqueeze %28 dim 1 : <[1, s1], i64, strides = [s1, 1], offset = 0> -> <[1, 1, s1], i64, strides = [s1, s1, 1], offset = 0>
    %30 = stride.unsqueeze %29 dim 2 : <[1, 1, s1], i64, strides = [s1, s1, 1], offset = 0> -> <[1, 1, 1, s1], i64, strides = [s1, s1, s1, 1], offset = 0>
    %31 = stride.full 1.000000e+00 : <i1, strides = [], offset = 0>
    %32 = stride.expand %30 : <[1, 1, 1, s1], i64, strides = [s1, s1, s1, 1], offset = 0> -> <[1, 1, s1, s1], i64, strides = [s1, s1, 0, 1], offset = 0>
    %33 = stride.expand %27 : <[1, 1, s1, 1], i64, strides = [s1, s1, 1, 1], offset = 0> -> <[1, 1, s1, s1], i64, strides = [s1, s1, 1, 0], offset = 0>
    %34 = stride.cmp le, %32, %33 : <[1, 1, s1, s1], i64, strides = [s1, s1, 0, 1], offset = 0>, <[1, 1, s1, s1], i64, strides = [s1, s1, 1, 0], offset = 0> -> <[1, 1, s1, s1], i1, strides = [s1*s1, s1*s1, s1, 1], offset = 0>
    %35 = stride.expand %31 : <i1, strides = [], offset = 0> -> <[1, 1, s1, s1], i1, strides = [0, 0, 0, 0], offset = 0>
    %36 = stride.and %35, %34 : <[1, 1, s1, s1], i1, strides = [0, 0, 0, 0], offset = 0>, <[1, 1, s1, s1], i1, strides = [s1*s1, s1*s1, s1, 1], offset = 0> -> <[1, 1, s1, s1], i1, strides = [s1*s1, s1*s1, s1, 1], offset = 0>
    %37 = stride.expand %27 : <[1, 1, s1, 1], i64, strides = [s1, s1, 1, 1], offset = 0> -> <[s0, 1, s1, 1], i64, strides = [0, s1, 1, 1], offset = 0>
    %38 = stride.clone %37 : <[s0, 1, s1, 1], i64, strides = [0, s1, 1, 1], offset = 0> -> <[s0, 1, s1, 1], i64, strides = [s1, s1, 1, 1], offset = 0>
    %39 = stride.expand %24 : <[s0, 1, 1, 1], i64, strides = [1, 1, 1, 1], offset = 0> -> <[s0, 1, s1, 1], i64, strides = [1, 1, 0, 1], offset = 0>
    %40 = stride.full 1.000000e+00 : <[s1], i64, strides = [1], offset = 0>
    %41 = stride.sum %40 dims [0] : <[s1], i64, strides = [1], offset = 0> -> <i64, strides = [], offset = 0>
    %42 = stride.expand %41 : <i64, strides = [], offset = 0> -> <[s0, 1, s1, 1], i64, strides = [0, 0, 0, 0], offset = 0>
    %43 = stride.mul %39, %42 : <[s0, 1, s1, 1], i64, strides = [1, 1, 0, 1], offset = 0>, <[s0, 1, s1, 1], i64, strides = [0, 0, 0, 0], offset = 0> -> <[s0, 1, s1, 1], i64, strides = [s1, s1, 1, 1], offset = 0>
    %44 = stride.add %38, %43 : <[s0, 1, s1, 1], i64, strides = [s1, s1, 1, 1], offset = 0>, <[s0, 1, s1, 1], i64, strides = [s1, s1, 1, 1], offset = 0> -> <[s0, 1, s1, 1], i64, strides = [s1, s1, 1, 1], offset = 0>
    %45 = stride.view %44 : <[s0, 1, s1, 1], i64, strides = [s1, s1, 1, 1], offset = 0> -> <[s0*s1], i64, strides = [1], offset = 0>
    %46 = stride.view %18 : <[s0, s1], i64, strides = [s1, 1], offset = 0> -> <[s0*s1], i64, strides = [1], offset = 0>
    %47 = stride.index_select %46, %45 dim 0 : <[s0*s1], i64, strides = [1], offset = 0>, <[s0*s1], i64, strides = [1], offset = 0> -> <[s0*s1], i64, strides = [1], offset = 0>
    %48 = stride.view %47 : <[s0*s1], i64, strides = [1], offset = 0> -> <[s0, 1, s1, 1], i64, strides = [s1, s1, 1, 1], offset = 0>
    %49 = stride.expand %30 : <[1, 1, 1, s1], i64, strides = [s1, s1, s1, 1], offset = 0> -> <[s0, 1, 1, s1], i64, strides = [0, s1, s1, 1], offset = 0>
    %50 = stride.clone %49 : <[s0, 1, 1, s1], i64, strides = [0, s1, s1, 1], offset = 0> -> <[s0, 1, 1, s1], i64, strides = [s1, s1, s1, 1], offset = 0>
    %51 = stride.expand %24 : <[s0, 1, 1, 1], i64, strides = [1, 1, 1, 1], offset = 0> -> <[s0, 1, 1, s1], i64, strides = [1, 1, 1, 0], offset = 0>
    %52 = stride.full 1.000000e+00 : <[s1], i64, strides = [1], offset = 0>
    %53 = stride.sum %52 dims [0] : <[s1], i64, strides = [1], offset = 0> -> <i64, strides = [], offset = 0>
    %54 = stride.expand %53 : <i64, strides = [], offset = 0> -> <[s0, 1, 1, s1], i64, strides = [0, 0, 0, 0], offset = 0>
    %55 = stride.mul %51, %54 : <[s0, 1, 1, s1], i64, strides = [1, 1, 1, 0], offset = 0>, <[s0, 1, 1, s1], i64, strides = [0, 0, 0, 0], offset = 0> -> <[s0, 1, 1, s1], i64, strides = [s1, s1, s1, 1], offset = 0>
    %56 = stride.add %50, %55 : <[s0, 1, 1, s1], i64, strides = [s1, s1, s1, 1], offset = 0>, <[s0, 1, 1, s1], i64, strides = [s1, s1, s1, 1], offset = 0> -> <[s0, 1, 1, s1], i64, strides = [s1, s1, s1, 1], offset = 0>
    %57 = stride.view %56 : <[s0, 1, 1, s1], i64, strides = [s1, s1, s1, 1], offset = 0> -> <[s0*s1], i64, strides = [1], offset = 0>
    %58 = stride.view %18 : <[s0, s1], i64, strides = [s1, 1], offset = 0> -> <[s0*s1], i64, strides = [1], offset = 0>
    %59 = stride.index_select %58, %57 dim 0 : <[s0*s1], i64, strides = [1], offset = 0>, <[s0*s1], i64, strides = [1], offset = 0> -> <[s0*s1], i64, strides = [1], offset = 0>
    %60 = stride.view %59 : <[s0*s1], i64, strides = [1], offset = 0> -> <[s0, 1, 1, s1], i64, strides = [s1, s1, s1, 1], offset = 0>
    %61 = stride.expand %48 : <[s0, 1, s1, 1], i64, strides = [s1, s1, 1, 1], offset = 0> -> <[s0, 1, s1, s1], i64, strides = [s1, s1, 1, 0], offset = 0>
    %62 = stride.expand %60 : <[s0, 1, 1, s1], i64, strides = [s1, s1, s1, 1], offset = 0> -> <[s0, 1, s1, s1], i64, strides = [s1, s1, 0, 1], offset = 0>
    %63 = stride.cmp eq, %61, %62 : <[s0, 1, s1, s1], i64, strides = [s1, s1, 1, 0], offset = 0>, <[s0, 1, s1, s1], i64, strides = [s1, s1, 0, 1], offset = 0> -> <[s0, 1, s1, s1], i1, strides = [s1*s1, s1*s1, s1, 1], offset = 0>
    %64 = stride.expand %36 : <[1, 1, s1, s1], i1, strides = [s1*s1, s1*s1, s1, 1], offset = 0> -> <[s0, 1, s1, s1], i1, strides = [0, s1*s1, s1, 1], offset = 0>
    %65 = stride.and %64, %63 : <[s0, 1, s1, s1], i1, strides = [0, s1*s1, s1, 1], offset = 0>, <[s0, 1, s1, s1], i1, strides = [s1*s1, s1*s1, s1, 1], offset = 0> -> <[s0, 1, s1, s1], i1, strides = [s1*s1, s1*s1, s1, 1], offset = 0>
    %m = stride.expand %65 : <[s0, 1, s1, s1], i1, strides = [s1*s1, s1*s1, s1, 1], offset = 0> -> <[s0, 2, s1, s1], i1, strides = [s1*s1, 0, s1, 1], offset = 0>
    %o = stride.attention %q, %k, %v mask %m scale 0.125 : !q, !q, !q, !stride.tensor<[s0, 2, s1, s1], i1, strides = [s1*s1, 0, s1, 1], offset = 0> -> !q
    return %o : !q
}

// -----

// Two caches of different capacities read one position: one count each,
// clamped to its own capacity.
// CHECK-LABEL: func.func @two_capacities
// CHECK: stride.full 9.600000e+01 : <1xi64
// CHECK: stride.attention %arg0, %arg1, %arg1 kv_length(
// CHECK: stride.full 3.200000e+01 : <1xi64
// CHECK: stride.attention %arg0, %arg2, %arg2 kv_length(
!q = !stride.tensor<1x4x1x16xbf16>
!kv = !stride.tensor<1x2x96x16xbf16>
!kvs = !stride.tensor<1x2x32x16xbf16>
func.func @two_capacities(%q: !q, %k: !kv, %ks: !kvs, %pos: !stride.tensor<i64>) -> (!q, !q) {
  %keys = stride.iota dim 3 : !stride.tensor<1x1x1x96xi64>
  %px = stride.expand %pos : !stride.tensor<i64> -> !stride.tensor<1x1x1x96xi64, strides = [0, 0, 0, 0], offset = 0>
  %le = stride.cmp le, %keys, %px : !stride.tensor<1x1x1x96xi64>, !stride.tensor<1x1x1x96xi64, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x1x96xi1>
  %m = stride.expand %le : !stride.tensor<1x1x1x96xi1> -> !stride.tensor<1x4x1x96xi1, strides = [96, 0, 96, 1], offset = 0>
  %o1 = stride.attention %q, %k, %k mask %m scale 0.25 : !q, !kv, !kv, !stride.tensor<1x4x1x96xi1, strides = [96, 0, 96, 1], offset = 0> -> !q
  %keys2 = stride.iota dim 3 : !stride.tensor<1x1x1x32xi64>
  %px2 = stride.expand %pos : !stride.tensor<i64> -> !stride.tensor<1x1x1x32xi64, strides = [0, 0, 0, 0], offset = 0>
  %le2 = stride.cmp le, %keys2, %px2 : !stride.tensor<1x1x1x32xi64>, !stride.tensor<1x1x1x32xi64, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x1x32xi1>
  %m2 = stride.expand %le2 : !stride.tensor<1x1x1x32xi1> -> !stride.tensor<1x4x1x32xi1, strides = [32, 0, 32, 1], offset = 0>
  %o2 = stride.attention %q, %ks, %ks mask %m2 scale 0.25 : !q, !kvs, !kvs, !stride.tensor<1x4x1x32xi1, strides = [32, 0, 32, 1], offset = 0> -> !q
  return %o1, %o2 : !q, !q
}
