// stride-attention-library over a symbolic batch and token counts
// (python-free-docs/symbolic-sizes.md, "Attention over symbolic sizes"):
// the same choices as over static sizes, proven for every value of the
// symbols.
// RUN: stride-opt --stride-attention-library -split-input-file %s | FileCheck %s

// Head views of one fused QKV projection: strides and offsets whose every
// coefficient is a multiple of 16 bytes, read in place. A padding mask
// [batch, 1, 1, seq] broadcast over heads and query rows: its broadcast
// dims sliced to 1, turned into 0 and -inf over its symbolic sizes, and
// expanded back. The statistics, heads-innermost, are written dense and
// copied.
// CHECK-LABEL: func.func @qkv_views
// CHECK:      %[[Q:.*]] = stride.permute {{.*}} -> <[batch, 2, seq, 64], bf16, strides = [seq*384, 64, 384, 1], offset = 0>
// CHECK:      %[[K:.*]] = stride.permute {{.*}} -> <[batch, 2, seq, 64], bf16, strides = [seq*384, 64, 384, 1], offset = 128>
// CHECK:      %[[M:.*]] = stride.expand %arg1
// CHECK-NEXT: %[[S1:.*]] = stride.slice %[[M]] dim 1 start 0 end 1 step 1 : {{.*}} -> <[batch, 1, seq, seq], i1, strides = [seq, 0, 0, 1], offset = 0>
// CHECK-NEXT: %[[S2:.*]] = stride.slice %[[S1]] dim 2 start 0 end 1 step 1 : {{.*}} -> <[batch, 1, 1, seq], i1, strides = [seq, 0, 0, 1], offset = 0>
// CHECK-NEXT: %[[ZERO:.*]] = stride.full 0.000000e+00 : <[batch, 1, 1, seq], bf16, strides = [seq, seq, seq, 1], offset = 0>
// CHECK-NEXT: %[[NINF:.*]] = stride.full 0xFFF0000000000000 : <[batch, 1, 1, seq], bf16
// CHECK-NEXT: %[[BIAS:.*]] = stride.where %[[S2]], %[[ZERO]], %[[NINF]] : {{.*}} -> <[batch, 1, 1, seq], bf16, strides = [seq, seq, seq, 1], offset = 0>
// CHECK-NEXT: %[[E:.*]] = stride.expand %[[BIAS]] : {{.*}} -> <[batch, 2, seq, seq], bf16, strides = [seq, 0, 0, 1], offset = 0>
// CHECK-NEXT: %{{.*}}, %[[LSE:.*]] = stride.attention %[[Q]], %[[K]], %[[K]] mask %[[E]] scale 1.250000e-01 causal {stride.keep_fused} : {{.*}} -> <[batch, 2, seq, 64], bf16, strides = [seq*128, seq*64, 64, 1], offset = 0>, !stride.tensor<[batch, 2, seq], f32, strides = [seq*2, seq, 1], offset = 0>
// CHECK-NEXT: stride.clone %[[LSE]] : {{.*}} -> <[batch, 2, seq], f32, strides = [seq*2, 1, 2], offset = 0>
!x = !stride.tensor<[batch, seq, 3, 2, 64], bf16>
!head = !stride.tensor<[batch, seq, 2, 64], bf16, strides = [seq*384, 384, 64, 1], offset = 0>
!headk = !stride.tensor<[batch, seq, 2, 64], bf16, strides = [seq*384, 384, 64, 1], offset = 128>
!q = !stride.tensor<[batch, 2, seq, 64], bf16, strides = [seq*384, 64, 384, 1], offset = 0>
!k = !stride.tensor<[batch, 2, seq, 64], bf16, strides = [seq*384, 64, 384, 1], offset = 128>
!o = !stride.tensor<[batch, 2, seq, 64], bf16>
!lse = !stride.tensor<[batch, 2, seq], f32, strides = [seq*2, 1, 2], offset = 0>
!keep = !stride.tensor<[batch, 2, seq, seq], i1, strides = [seq, 0, 0, 1], offset = 0>
func.func @qkv_views(%x: !x, %keep: !stride.tensor<[batch, 1, 1, seq], i1>) -> (!o, !lse)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 4]>,
                                  #stride.symbol<"seq", range = [1, 80]>]} {
  %q0 = stride.select %x dim 2 index 0 : !x -> !head
  %q = stride.permute %q0 dims [0, 2, 1, 3] : !head -> !q
  %k0 = stride.select %x dim 2 index 1 : !x -> !headk
  %k = stride.permute %k0 dims [0, 2, 1, 3] : !headk -> !k
  %m = stride.expand %keep : !stride.tensor<[batch, 1, 1, seq], i1> -> !keep
  %o, %lse = stride.attention %q, %k, %k mask %m scale 0.125 causal
      : !q, !k, !k, !keep -> !o, !lse
  return %o, %lse : !o, !lse
}

// -----

// An offset of 4 f16 elements (8 bytes): copied dense over the symbolic
// sizes; the dense key is read in place.
// CHECK-LABEL: func.func @copied
// CHECK:      %[[C:.*]] = stride.clone %arg0 : {{.*}} -> <[batch, 2, seq, 8], f16, strides = [seq*16, seq*8, 8, 1], offset = 0>
// CHECK-NEXT: stride.attention %[[C]], %arg1, %arg1 scale 1.250000e-01 {stride.keep_fused}
!p = !stride.tensor<[batch, 2, seq, 8], f16, strides = [seq*24, 8, 24, 1], offset = 4>
!d = !stride.tensor<[batch, 2, seq, 8], f16>
func.func @copied(%q: !p, %k: !d) -> !d
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 4]>,
                                  #stride.symbol<"seq", range = [1, 80]>]} {
  %o = stride.attention %q, %k, %k scale 0.125 : !p, !d, !d -> !d
  return %o : !d
}

// -----

// f32: left to the fallback (which refuses it over symbolic sizes).
// CHECK-LABEL: func.func @f32
// CHECK-NOT: stride.keep_fused
!f = !stride.tensor<[batch, 2, seq, 8], f32>
func.func @f32(%q: !f) -> !f
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 4]>,
                                  #stride.symbol<"seq", range = [1, 80]>]} {
  %o = stride.attention %q, %q, %q scale 0.125 : !f, !f, !f -> !f
  return %o : !f
}
