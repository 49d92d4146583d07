// stride-recognize-attention: attention spelled out as ops (product,
// scale, mask, softmax, product) becomes one stride.attention; each near
// miss below stays as ops (python-free-docs/attention.md, "Attention
// spelled out as ops"). The default pipeline runs the pass first;
// recognize-attention=false turns it off.
// RUN: stride-opt %s --split-input-file --stride-recognize-attention | FileCheck %s
// RUN: stride-opt %s --split-input-file --stride-pipeline | FileCheck %s --check-prefix=PIPE
// RUN: stride-opt %s --split-input-file --stride-pipeline=recognize-attention=false | FileCheck %s --check-prefix=OFF

// transformers' additive mask, where(keep, 0, min) broadcast over heads:
// kept as the op's mask; the scale of the scores is the op's.
// CHECK-LABEL: func.func @additive_mask
// CHECK:       %[[M:.*]] = stride.where %arg3
// CHECK:       %[[ME:.*]] = stride.expand %[[M]] : {{.*}} -> <1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0>
// CHECK:       stride.attention %arg0, %arg1, %arg2 mask %[[ME]] scale 2.500000e-01 :
// CHECK-NOT:   stride.matmul
// CHECK-NOT:   stride.exp %
// CHECK:       return
func.func @additive_mask(%q: !stride.tensor<1x2x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>, %v: !stride.tensor<1x2x8x16xf32>, %keep: !stride.tensor<1x1x8x8xi1>) -> (!stride.tensor<1x2x8x16xf32>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %c = stride.full 2.500000e-01 : !stride.tensor<f32>
  %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %s1 = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %zero = stride.full 0.000000e+00 : !stride.tensor<f32>
  %min = stride.full -3.4028234663852886E+38 : !stride.tensor<f32>
  %zeroe = stride.expand %zero : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %mine = stride.expand %min : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %m = stride.where %keep, %zeroe, %mine : !stride.tensor<1x1x8x8xi1>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x8x8xf32>
  %me = stride.expand %m : !stride.tensor<1x1x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0>
  %x = stride.add %s1, %me : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
  return %o : !stride.tensor<1x2x8x16xf32>
}

// -----

// LLaMA's spelling in bf16: key and value repeated over the query heads
// (unsqueeze, expand, copy, reshape) are read with their own head, the
// scores divided by 4, the softmax in f32 between casts.
// CHECK-LABEL: func.func @gqa_bf16_upcast_div
// CHECK:       stride.attention %arg0, %arg1, %arg2 mask %{{.*}} scale 2.500000e-01 : <1x2x8x16xbf16, {{.*}}>, <1x1x8x16xbf16, {{.*}}>, <1x1x8x16xbf16, {{.*}}>, {{.*}} -> <1x2x8x16xbf16
// CHECK-NOT:   stride.cast
// CHECK-NOT:   stride.matmul
// CHECK:       return
// PIPE-LABEL: func.func @gqa_bf16_upcast_div
// PIPE:       stride.attention {{.*}} {stride.keep_fused}
// PIPE-NOT:   stride.matmul
// PIPE:       return
// OFF-LABEL: func.func @gqa_bf16_upcast_div
// OFF-NOT:   stride.attention
// OFF:       stride.matmul
func.func @gqa_bf16_upcast_div(%q: !stride.tensor<1x2x8x16xbf16>, %k: !stride.tensor<1x1x8x16xbf16>, %v: !stride.tensor<1x1x8x16xbf16>, %keep: !stride.tensor<1x1x8x8xi1>) -> (!stride.tensor<1x2x8x16xbf16>) {
  %ku = stride.unsqueeze %k dim 2 : !stride.tensor<1x1x8x16xbf16> -> !stride.tensor<1x1x1x8x16xbf16>
  %ke = stride.expand %ku : !stride.tensor<1x1x1x8x16xbf16> -> !stride.tensor<1x1x2x8x16xbf16, strides = [128, 128, 0, 16, 1], offset = 0>
  %kc = stride.clone %ke : !stride.tensor<1x1x2x8x16xbf16, strides = [128, 128, 0, 16, 1], offset = 0> -> !stride.tensor<1x1x2x8x16xbf16>
  %kr = stride.view %kc : !stride.tensor<1x1x2x8x16xbf16> -> !stride.tensor<1x2x8x16xbf16>
  %vu = stride.unsqueeze %v dim 2 : !stride.tensor<1x1x8x16xbf16> -> !stride.tensor<1x1x1x8x16xbf16>
  %ve = stride.expand %vu : !stride.tensor<1x1x1x8x16xbf16> -> !stride.tensor<1x1x2x8x16xbf16, strides = [128, 128, 0, 16, 1], offset = 0>
  %vc = stride.clone %ve : !stride.tensor<1x1x2x8x16xbf16, strides = [128, 128, 0, 16, 1], offset = 0> -> !stride.tensor<1x1x2x8x16xbf16>
  %vr = stride.view %vc : !stride.tensor<1x1x2x8x16xbf16> -> !stride.tensor<1x2x8x16xbf16>
  %kt = stride.permute %kr dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xbf16> -> !stride.tensor<1x2x16x8xbf16, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x16x8xbf16, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xbf16>
  %c = stride.full 4.000000e+00 : !stride.tensor<bf16>
  %ce = stride.expand %c : !stride.tensor<bf16> -> !stride.tensor<1x2x8x8xbf16, strides = [0, 0, 0, 0], offset = 0>
  %s1 = stride.div %s0, %ce : !stride.tensor<1x2x8x8xbf16>, !stride.tensor<1x2x8x8xbf16, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xbf16>
  %zero = stride.full 0.000000e+00 : !stride.tensor<bf16>
  %min = stride.full -3.3895313892515355E+38 : !stride.tensor<bf16>
  %zeroe = stride.expand %zero : !stride.tensor<bf16> -> !stride.tensor<1x1x8x8xbf16, strides = [0, 0, 0, 0], offset = 0>
  %mine = stride.expand %min : !stride.tensor<bf16> -> !stride.tensor<1x1x8x8xbf16, strides = [0, 0, 0, 0], offset = 0>
  %m = stride.where %keep, %zeroe, %mine : !stride.tensor<1x1x8x8xi1>, !stride.tensor<1x1x8x8xbf16, strides = [0, 0, 0, 0], offset = 0>, !stride.tensor<1x1x8x8xbf16, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x8x8xbf16>
  %me = stride.expand %m : !stride.tensor<1x1x8x8xbf16> -> !stride.tensor<1x2x8x8xbf16, strides = [64, 0, 8, 1], offset = 0>
  %x = stride.add %s1, %me : !stride.tensor<1x2x8x8xbf16>, !stride.tensor<1x2x8x8xbf16, strides = [64, 0, 8, 1], offset = 0> -> !stride.tensor<1x2x8x8xbf16>
  %xf = stride.cast %x : !stride.tensor<1x2x8x8xbf16> -> !stride.tensor<1x2x8x8xf32>
  %mx = stride.max %xf dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %xf, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %pd = stride.cast %p : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xbf16>
  %o = stride.matmul %pd, %vr : !stride.tensor<1x2x8x8xbf16>, !stride.tensor<1x2x8x16xbf16> -> !stride.tensor<1x2x8x16xbf16>
  return %o : !stride.tensor<1x2x8x16xbf16>
}

// -----

// A where of the scores with f32's lowest value: the additive mask
// where(keep, 0, lowest), built on the condition before its broadcast.
// CHECK-LABEL: func.func @where_min_fill
// CHECK:       %[[Z:.*]] = stride.full 0.000000e+00 : <1x1x8x8xf32
// CHECK:       %[[L:.*]] = stride.full -3.4028234663852886E+38 : <1x1x8x8xf32
// CHECK:       %[[M:.*]] = stride.where %arg3, %[[Z]], %[[L]]
// CHECK:       %[[ME:.*]] = stride.expand %[[M]] : {{.*}} -> <1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0>
// CHECK:       stride.attention %arg0, %arg1, %arg2 mask %[[ME]] scale 2.500000e-01
func.func @where_min_fill(%q: !stride.tensor<1x2x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>, %v: !stride.tensor<1x2x8x16xf32>, %keep: !stride.tensor<1x1x8x8xi1>) -> (!stride.tensor<1x2x8x16xf32>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %c = stride.full 2.500000e-01 : !stride.tensor<f32>
  %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %s1 = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %keepe = stride.expand %keep : !stride.tensor<1x1x8x8xi1> -> !stride.tensor<1x2x8x8xi1, strides = [64, 0, 8, 1], offset = 0>
  %fill = stride.full -3.4028234663852886E+38 : !stride.tensor<f32>
  %fille = stride.expand %fill : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %x = stride.where %keepe, %s1, %fille : !stride.tensor<1x2x8x8xi1, strides = [64, 0, 8, 1], offset = 0>, !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
  return %o : !stride.tensor<1x2x8x16xf32>
}

// -----

// The query scaled before the product; no mask.
// CHECK-LABEL: func.func @query_scaled_no_mask
// CHECK-NEXT:  %[[O:.*]] = stride.attention %arg0, %arg1, %arg2 scale 2.500000e-01 :
// CHECK-NEXT:  return %[[O]]
func.func @query_scaled_no_mask(%q: !stride.tensor<1x2x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>, %v: !stride.tensor<1x2x8x16xf32>) -> (!stride.tensor<1x2x8x16xf32>) {
  %qc = stride.full 2.500000e-01 : !stride.tensor<f32>
  %qce = stride.expand %qc : !stride.tensor<f32> -> !stride.tensor<1x2x8x16xf32, strides = [0, 0, 0, 0], offset = 0>
  %qs = stride.mul %q, %qce : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x8x16xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x16xf32>
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %qs, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %mx = stride.max %s0 dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %s0, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
  return %o : !stride.tensor<1x2x8x16xf32>
}

// -----

// PyTorch's math attention: a -inf fill under its safe softmax (0 on a
// row that is all -inf), as the op: the condition is a boolean mask.
// CHECK-LABEL: func.func @safe_softmax_inf_fill
// CHECK:       %[[KE:.*]] = stride.expand %arg3 : {{.*}} -> <1x2x8x8xi1
// CHECK:       stride.attention %arg0, %arg1, %arg2 mask %[[KE]] scale 2.500000e-01
// CHECK-NOT:   stride.any
func.func @safe_softmax_inf_fill(%q: !stride.tensor<1x2x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>, %v: !stride.tensor<1x2x8x16xf32>, %keep: !stride.tensor<1x1x8x8xi1>) -> (!stride.tensor<1x2x8x16xf32>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %c = stride.full 2.500000e-01 : !stride.tensor<f32>
  %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %s1 = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %keepe = stride.expand %keep : !stride.tensor<1x1x8x8xi1> -> !stride.tensor<1x2x8x8xi1, strides = [64, 0, 8, 1], offset = 0>
  %fill = stride.full 0xFFF0000000000000 : !stride.tensor<f32>
  %fille = stride.expand %fill : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %x = stride.where %keepe, %s1, %fille : !stride.tensor<1x2x8x8xi1, strides = [64, 0, 8, 1], offset = 0>, !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %ninf = stride.full 0xFFF0000000000000 : !stride.tensor<f32>
  %ninfe = stride.expand %ninf : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %isinf = stride.cmp eq, %x, %ninfe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xi1>
  %fin = stride.not %isinf : !stride.tensor<1x2x8x8xi1> -> !stride.tensor<1x2x8x8xi1>
  %anyf = stride.any %fin dims [3] keepdim : !stride.tensor<1x2x8x8xi1> -> !stride.tensor<1x2x8x1xi1>
  %empty = stride.not %anyf : !stride.tensor<1x2x8x1xi1> -> !stride.tensor<1x2x8x1xi1>
  %emptye = stride.expand %empty : !stride.tensor<1x2x8x1xi1> -> !stride.tensor<1x2x8x8xi1, strides = [16, 8, 1, 0], offset = 0>
  %zeros = stride.full 0.000000e+00 : !stride.tensor<1x2x8x8xf32>
  %ps = stride.where %emptye, %zeros, %p : !stride.tensor<1x2x8x8xi1, strides = [16, 8, 1, 0], offset = 0>, !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %o = stride.matmul %ps, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
  return %o : !stride.tensor<1x2x8x16xf32>
}

// -----

// Near misses, left as ops. The softmax over the query dim.
// CHECK-LABEL: func.func @softmax_over_queries
// CHECK-NOT:   stride.attention
// CHECK:       stride.max {{.*}} dims [2] keepdim
func.func @softmax_over_queries(%q: !stride.tensor<1x2x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>, %v: !stride.tensor<1x2x8x16xf32>, %keep: !stride.tensor<1x1x8x8xi1>) -> (!stride.tensor<1x2x8x16xf32>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %c = stride.full 2.500000e-01 : !stride.tensor<f32>
  %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %s1 = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %zero = stride.full 0.000000e+00 : !stride.tensor<f32>
  %min = stride.full -3.4028234663852886E+38 : !stride.tensor<f32>
  %zeroe = stride.expand %zero : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %mine = stride.expand %min : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %m = stride.where %keep, %zeroe, %mine : !stride.tensor<1x1x8x8xi1>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x8x8xf32>
  %me = stride.expand %m : !stride.tensor<1x1x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0>
  %x = stride.add %s1, %me : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %mx = stride.max %x dims [2] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x1x8xf32>
  %mxe = stride.expand %mx : !stride.tensor<1x2x1x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 0, 1], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 0, 1], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %sm = stride.sum %e dims [2] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x1x8xf32>
  %sme = stride.expand %sm : !stride.tensor<1x2x1x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 0, 1], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 0, 1], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
  return %o : !stride.tensor<1x2x8x16xf32>
}

// -----

// A -inf fill under a plain softmax: a row masked out entirely is NaN
// here and 0 in the op.
// CHECK-LABEL: func.func @where_inf_fill_plain_softmax
// CHECK-NOT:   stride.attention
// CHECK:       stride.matmul
func.func @where_inf_fill_plain_softmax(%q: !stride.tensor<1x2x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>, %v: !stride.tensor<1x2x8x16xf32>, %keep: !stride.tensor<1x1x8x8xi1>) -> (!stride.tensor<1x2x8x16xf32>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %c = stride.full 2.500000e-01 : !stride.tensor<f32>
  %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %s1 = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %keepe = stride.expand %keep : !stride.tensor<1x1x8x8xi1> -> !stride.tensor<1x2x8x8xi1, strides = [64, 0, 8, 1], offset = 0>
  %fill = stride.full 0xFFF0000000000000 : !stride.tensor<f32>
  %fille = stride.expand %fill : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %x = stride.where %keepe, %s1, %fille : !stride.tensor<1x2x8x8xi1, strides = [64, 0, 8, 1], offset = 0>, !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
  return %o : !stride.tensor<1x2x8x16xf32>
}

// -----

// f16's lowest value does not absorb the scores (s - 65504 is not
// -65504): on a row masked out entirely the weights would differ.
// CHECK-LABEL: func.func @f16_min_fill
// CHECK-NOT:   stride.attention
// CHECK:       stride.matmul
func.func @f16_min_fill(%q: !stride.tensor<1x2x8x16xf16>, %k: !stride.tensor<1x2x8x16xf16>, %v: !stride.tensor<1x2x8x16xf16>, %keep: !stride.tensor<1x1x8x8xi1>) -> (!stride.tensor<1x2x8x16xf16>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf16> -> !stride.tensor<1x2x16x8xf16, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf16>, !stride.tensor<1x2x16x8xf16, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf16>
  %c = stride.full 2.500000e-01 : !stride.tensor<f16>
  %ce = stride.expand %c : !stride.tensor<f16> -> !stride.tensor<1x2x8x8xf16, strides = [0, 0, 0, 0], offset = 0>
  %s1 = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf16>, !stride.tensor<1x2x8x8xf16, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf16>
  %keepe = stride.expand %keep : !stride.tensor<1x1x8x8xi1> -> !stride.tensor<1x2x8x8xi1, strides = [64, 0, 8, 1], offset = 0>
  %fill = stride.full -6.550400e+04 : !stride.tensor<f16>
  %fille = stride.expand %fill : !stride.tensor<f16> -> !stride.tensor<1x2x8x8xf16, strides = [0, 0, 0, 0], offset = 0>
  %x = stride.where %keepe, %s1, %fille : !stride.tensor<1x2x8x8xi1, strides = [64, 0, 8, 1], offset = 0>, !stride.tensor<1x2x8x8xf16>, !stride.tensor<1x2x8x8xf16, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf16>
  %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf16> -> !stride.tensor<1x2x8x1xf16>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf16> -> !stride.tensor<1x2x8x8xf16, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf16>, !stride.tensor<1x2x8x8xf16, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf16>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf16> -> !stride.tensor<1x2x8x8xf16>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf16> -> !stride.tensor<1x2x8x1xf16>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf16> -> !stride.tensor<1x2x8x8xf16, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf16>, !stride.tensor<1x2x8x8xf16, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf16>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf16>, !stride.tensor<1x2x8x16xf16> -> !stride.tensor<1x2x8x16xf16>
  return %o : !stride.tensor<1x2x8x16xf16>
}

// -----

// An added mask of unknown values may be -inf on a whole row.
// CHECK-LABEL: func.func @mask_from_argument
// CHECK-NOT:   stride.attention
// CHECK:       stride.matmul
func.func @mask_from_argument(%q: !stride.tensor<1x2x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>, %v: !stride.tensor<1x2x8x16xf32>, %m: !stride.tensor<1x2x8x8xf32>) -> (!stride.tensor<1x2x8x16xf32>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %c = stride.full 2.500000e-01 : !stride.tensor<f32>
  %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %s1 = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %x = stride.add %s1, %m : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
  return %o : !stride.tensor<1x2x8x16xf32>
}

// -----

// The probabilities are also returned: the scores are needed anyway.
// CHECK-LABEL: func.func @probabilities_used_elsewhere
// CHECK-NOT:   stride.attention
// CHECK:       stride.matmul
func.func @probabilities_used_elsewhere(%q: !stride.tensor<1x2x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>, %v: !stride.tensor<1x2x8x16xf32>, %keep: !stride.tensor<1x1x8x8xi1>) -> (!stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x8x8xf32>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %c = stride.full 2.500000e-01 : !stride.tensor<f32>
  %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %s1 = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %zero = stride.full 0.000000e+00 : !stride.tensor<f32>
  %min = stride.full -3.4028234663852886E+38 : !stride.tensor<f32>
  %zeroe = stride.expand %zero : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %mine = stride.expand %min : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %m = stride.where %keep, %zeroe, %mine : !stride.tensor<1x1x8x8xi1>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x8x8xf32>
  %me = stride.expand %m : !stride.tensor<1x1x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0>
  %x = stride.add %s1, %me : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
  return %o, %p : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x8x8xf32>
}

// -----

// The wrong transpose: the scores transposed after the product, so the
// softmax runs over queries.
// CHECK-LABEL: func.func @scores_transposed
// CHECK-NOT:   stride.attention
// CHECK:       stride.permute {{.*}} dims [0, 1, 3, 2]
// CHECK:       stride.matmul
func.func @scores_transposed(%q: !stride.tensor<1x2x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>, %v: !stride.tensor<1x2x8x16xf32>, %keep: !stride.tensor<1x1x8x8xi1>) -> (!stride.tensor<1x2x8x16xf32>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %c = stride.full 2.500000e-01 : !stride.tensor<f32>
  %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %s1 = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %st = stride.permute %s1 dims [0, 1, 3, 2] : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>
  %stc = stride.clone %st : !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %zero = stride.full 0.000000e+00 : !stride.tensor<f32>
  %min = stride.full -3.4028234663852886E+38 : !stride.tensor<f32>
  %zeroe = stride.expand %zero : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %mine = stride.expand %min : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %m = stride.where %keep, %zeroe, %mine : !stride.tensor<1x1x8x8xi1>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x8x8xf32>
  %me = stride.expand %m : !stride.tensor<1x1x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0>
  %x = stride.add %stc, %me : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
  return %o : !stride.tensor<1x2x8x16xf32>
}

// -----

// An imported SDPA call given a mask, whose key and value transformers
// repeated over the query heads first (LLaMA's repeat_kv: unsqueeze,
// expand, copy, reshape; a decode step's cache): the op reads the tensors
// before the repeat, with 1 head for 2 query heads, and the copies go.
// CHECK-LABEL: func.func @sdpa_repeated_key_value
// CHECK-NOT:   stride.clone
// CHECK:       stride.attention %arg0, %arg1, %arg2 mask %arg3 scale 2.500000e-01 : <1x2x1x16xbf16, {{.*}}>, <1x1x8x16xbf16, {{.*}}>, <1x1x8x16xbf16, {{.*}}>, {{.*}} -> <1x2x1x16xbf16
// CHECK-NEXT:  return
// OFF-LABEL: func.func @sdpa_repeated_key_value
// OFF:       stride.clone
func.func @sdpa_repeated_key_value(%q: !stride.tensor<1x2x1x16xbf16>, %k: !stride.tensor<1x1x8x16xbf16>, %v: !stride.tensor<1x1x8x16xbf16>, %keep: !stride.tensor<1x2x1x8xi1, strides = [0, 0, 0, 1], offset = 0>) -> (!stride.tensor<1x2x1x16xbf16>) {
  %ku = stride.unsqueeze %k dim 2 : !stride.tensor<1x1x8x16xbf16> -> !stride.tensor<1x1x1x8x16xbf16>
  %ke = stride.expand %ku : !stride.tensor<1x1x1x8x16xbf16> -> !stride.tensor<1x1x2x8x16xbf16, strides = [128, 128, 0, 16, 1], offset = 0>
  %kc = stride.clone %ke : !stride.tensor<1x1x2x8x16xbf16, strides = [128, 128, 0, 16, 1], offset = 0> -> !stride.tensor<1x1x2x8x16xbf16>
  %kr = stride.view %kc : !stride.tensor<1x1x2x8x16xbf16> -> !stride.tensor<1x2x8x16xbf16>
  %vu = stride.unsqueeze %v dim 2 : !stride.tensor<1x1x8x16xbf16> -> !stride.tensor<1x1x1x8x16xbf16>
  %ve = stride.expand %vu : !stride.tensor<1x1x1x8x16xbf16> -> !stride.tensor<1x1x2x8x16xbf16, strides = [128, 128, 0, 16, 1], offset = 0>
  %vc = stride.clone %ve : !stride.tensor<1x1x2x8x16xbf16, strides = [128, 128, 0, 16, 1], offset = 0> -> !stride.tensor<1x1x2x8x16xbf16>
  %vr = stride.view %vc : !stride.tensor<1x1x2x8x16xbf16> -> !stride.tensor<1x2x8x16xbf16>
  %o = stride.attention %q, %kr, %vr mask %keep scale 2.500000e-01 : !stride.tensor<1x2x1x16xbf16>, !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x1x8xi1, strides = [0, 0, 0, 1], offset = 0> -> !stride.tensor<1x2x1x16xbf16>
  return %o : !stride.tensor<1x2x1x16xbf16>
}

// -----

// T5's relative position bias: an embedding of a learned table ([buckets,
// heads]) by each query and key's bucket, permuted to [1, H, Sq, Skv] and
// added to the padding mask, then to the unscaled scores. The table is a
// constant whose values are finite and small, so the sum is finite (the
// bias plus f32's lowest rounds to f32's lowest): the op's additive mask,
// scale 1.
// CHECK-LABEL: func.func @relative_bias
// CHECK:       %[[T:.*]] = stride.index_select
// CHECK:       %[[B:.*]] = stride.add
// CHECK:       stride.attention %arg0, %arg1, %arg2 mask %[[B]] scale 1.000000e+00 :
// CHECK-NOT:   stride.matmul
// CHECK:       return
func.func @relative_bias(%q: !stride.tensor<1x2x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>, %v: !stride.tensor<1x2x8x16xf32>, %keep: !stride.tensor<1x1x8x8xi1>, %bucket: !stride.tensor<64xi64>) -> (!stride.tensor<1x2x8x16xf32>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %t = stride.constant dense<[[0.5, -1.0], [2.0, 0.25], [-3.0, 1.5], [0.0, 4.0]]> : tensor<4x2xf32> : !stride.tensor<4x2xf32>
  %g = stride.index_select %t, %bucket dim 0 : !stride.tensor<4x2xf32>, !stride.tensor<64xi64> -> !stride.tensor<64x2xf32>
  %gv = stride.view %g : !stride.tensor<64x2xf32> -> !stride.tensor<8x8x2xf32>
  %gp = stride.permute %gv dims [2, 0, 1] : !stride.tensor<8x8x2xf32> -> !stride.tensor<2x8x8xf32, strides = [1, 16, 2], offset = 0>
  %gu = stride.unsqueeze %gp dim 0 : !stride.tensor<2x8x8xf32, strides = [1, 16, 2], offset = 0> -> !stride.tensor<1x2x8x8xf32, strides = [128, 1, 16, 2], offset = 0>
  %zero = stride.full 0.000000e+00 : !stride.tensor<f32>
  %min = stride.full -3.4028234663852886E+38 : !stride.tensor<f32>
  %zeroe = stride.expand %zero : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %mine = stride.expand %min : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %m = stride.where %keep, %zeroe, %mine : !stride.tensor<1x1x8x8xi1>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x8x8xf32>
  %me = stride.expand %m : !stride.tensor<1x1x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0>
  %bias = stride.add %gu, %me : !stride.tensor<1x2x8x8xf32, strides = [128, 1, 16, 2], offset = 0>, !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %x = stride.add %s0, %bias : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
  return %o : !stride.tensor<1x2x8x16xf32>
}

// -----

// The same in f16, whose lowest value is -65504 and half a unit in its
// last place 16: a bias of at most 4 cannot round the sum to -inf.
// CHECK-LABEL: func.func @relative_bias_f16
// CHECK:       stride.attention
func.func @relative_bias_f16(%q: !stride.tensor<1x2x8x16xf16>, %k: !stride.tensor<1x2x8x16xf16>, %v: !stride.tensor<1x2x8x16xf16>, %keep: !stride.tensor<1x1x8x8xi1>, %bucket: !stride.tensor<64xi64>) -> (!stride.tensor<1x2x8x16xf16>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf16> -> !stride.tensor<1x2x16x8xf16, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf16>, !stride.tensor<1x2x16x8xf16, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf16>
  %t = stride.constant dense<[[0.5, -1.0], [2.0, 0.25], [-3.0, 1.5], [0.0, 4.0]]> : tensor<4x2xf16> : !stride.tensor<4x2xf16>
  %g = stride.index_select %t, %bucket dim 0 : !stride.tensor<4x2xf16>, !stride.tensor<64xi64> -> !stride.tensor<64x2xf16>
  %gv = stride.view %g : !stride.tensor<64x2xf16> -> !stride.tensor<8x8x2xf16>
  %gp = stride.permute %gv dims [2, 0, 1] : !stride.tensor<8x8x2xf16> -> !stride.tensor<2x8x8xf16, strides = [1, 16, 2], offset = 0>
  %gu = stride.unsqueeze %gp dim 0 : !stride.tensor<2x8x8xf16, strides = [1, 16, 2], offset = 0> -> !stride.tensor<1x2x8x8xf16, strides = [128, 1, 16, 2], offset = 0>
  %zero = stride.full 0.000000e+00 : !stride.tensor<f16>
  %min = stride.full -6.550400e+04 : !stride.tensor<f16>
  %zeroe = stride.expand %zero : !stride.tensor<f16> -> !stride.tensor<1x1x8x8xf16, strides = [0, 0, 0, 0], offset = 0>
  %mine = stride.expand %min : !stride.tensor<f16> -> !stride.tensor<1x1x8x8xf16, strides = [0, 0, 0, 0], offset = 0>
  %m = stride.where %keep, %zeroe, %mine : !stride.tensor<1x1x8x8xi1>, !stride.tensor<1x1x8x8xf16, strides = [0, 0, 0, 0], offset = 0>, !stride.tensor<1x1x8x8xf16, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x8x8xf16>
  %me = stride.expand %m : !stride.tensor<1x1x8x8xf16> -> !stride.tensor<1x2x8x8xf16, strides = [64, 0, 8, 1], offset = 0>
  %bias = stride.add %gu, %me : !stride.tensor<1x2x8x8xf16, strides = [128, 1, 16, 2], offset = 0>, !stride.tensor<1x2x8x8xf16, strides = [64, 0, 8, 1], offset = 0> -> !stride.tensor<1x2x8x8xf16>
  %x = stride.add %s0, %bias : !stride.tensor<1x2x8x8xf16>, !stride.tensor<1x2x8x8xf16> -> !stride.tensor<1x2x8x8xf16>
  %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf16> -> !stride.tensor<1x2x8x1xf16>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf16> -> !stride.tensor<1x2x8x8xf16, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf16>, !stride.tensor<1x2x8x8xf16, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf16>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf16> -> !stride.tensor<1x2x8x8xf16>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf16> -> !stride.tensor<1x2x8x1xf16>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf16> -> !stride.tensor<1x2x8x8xf16, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf16>, !stride.tensor<1x2x8x8xf16, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf16>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf16>, !stride.tensor<1x2x8x16xf16> -> !stride.tensor<1x2x8x16xf16>
  return %o : !stride.tensor<1x2x8x16xf16>
}

// -----

// Near misses: a table that holds -inf (the sum could be a row of -inf,
// NaN eagerly and 0 in the op), an f16 bias of 20 that takes -65504 to
// -inf, and a table given as an argument (`stridec --weights-as-inputs`:
// its values are not known) are left as ops.
// CHECK-LABEL: func.func @bias_table_with_inf
// CHECK-NOT:   stride.attention
// CHECK:       return
func.func @bias_table_with_inf(%q: !stride.tensor<1x2x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>, %v: !stride.tensor<1x2x8x16xf32>, %keep: !stride.tensor<1x1x8x8xi1>, %bucket: !stride.tensor<64xi64>) -> (!stride.tensor<1x2x8x16xf32>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %t = stride.constant dense<[[0.5, -1.0], [2.0, 0xFF800000], [-3.0, 1.5], [0.0, 4.0]]> : tensor<4x2xf32> : !stride.tensor<4x2xf32>
  %g = stride.index_select %t, %bucket dim 0 : !stride.tensor<4x2xf32>, !stride.tensor<64xi64> -> !stride.tensor<64x2xf32>
  %gv = stride.view %g : !stride.tensor<64x2xf32> -> !stride.tensor<8x8x2xf32>
  %gp = stride.permute %gv dims [2, 0, 1] : !stride.tensor<8x8x2xf32> -> !stride.tensor<2x8x8xf32, strides = [1, 16, 2], offset = 0>
  %gu = stride.unsqueeze %gp dim 0 : !stride.tensor<2x8x8xf32, strides = [1, 16, 2], offset = 0> -> !stride.tensor<1x2x8x8xf32, strides = [128, 1, 16, 2], offset = 0>
  %zero = stride.full 0.000000e+00 : !stride.tensor<f32>
  %min = stride.full -3.4028234663852886E+38 : !stride.tensor<f32>
  %zeroe = stride.expand %zero : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %mine = stride.expand %min : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %m = stride.where %keep, %zeroe, %mine : !stride.tensor<1x1x8x8xi1>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x8x8xf32>
  %me = stride.expand %m : !stride.tensor<1x1x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0>
  %bias = stride.add %gu, %me : !stride.tensor<1x2x8x8xf32, strides = [128, 1, 16, 2], offset = 0>, !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %x = stride.add %s0, %bias : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
  return %o : !stride.tensor<1x2x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @bias_overflows_f16
// CHECK-NOT:   stride.attention
// CHECK:       return
func.func @bias_overflows_f16(%q: !stride.tensor<1x2x8x16xf16>, %k: !stride.tensor<1x2x8x16xf16>, %v: !stride.tensor<1x2x8x16xf16>, %keep: !stride.tensor<1x1x8x8xi1>, %bucket: !stride.tensor<64xi64>) -> (!stride.tensor<1x2x8x16xf16>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf16> -> !stride.tensor<1x2x16x8xf16, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf16>, !stride.tensor<1x2x16x8xf16, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf16>
  %t = stride.constant dense<[[0.5, -1.0], [2.0, 0.25], [-3.0, 1.5], [0.0, 20.0]]> : tensor<4x2xf16> : !stride.tensor<4x2xf16>
  %g = stride.index_select %t, %bucket dim 0 : !stride.tensor<4x2xf16>, !stride.tensor<64xi64> -> !stride.tensor<64x2xf16>
  %gv = stride.view %g : !stride.tensor<64x2xf16> -> !stride.tensor<8x8x2xf16>
  %gp = stride.permute %gv dims [2, 0, 1] : !stride.tensor<8x8x2xf16> -> !stride.tensor<2x8x8xf16, strides = [1, 16, 2], offset = 0>
  %gu = stride.unsqueeze %gp dim 0 : !stride.tensor<2x8x8xf16, strides = [1, 16, 2], offset = 0> -> !stride.tensor<1x2x8x8xf16, strides = [128, 1, 16, 2], offset = 0>
  %zero = stride.full 0.000000e+00 : !stride.tensor<f16>
  %min = stride.full -6.550400e+04 : !stride.tensor<f16>
  %zeroe = stride.expand %zero : !stride.tensor<f16> -> !stride.tensor<1x1x8x8xf16, strides = [0, 0, 0, 0], offset = 0>
  %mine = stride.expand %min : !stride.tensor<f16> -> !stride.tensor<1x1x8x8xf16, strides = [0, 0, 0, 0], offset = 0>
  %m = stride.where %keep, %zeroe, %mine : !stride.tensor<1x1x8x8xi1>, !stride.tensor<1x1x8x8xf16, strides = [0, 0, 0, 0], offset = 0>, !stride.tensor<1x1x8x8xf16, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x8x8xf16>
  %me = stride.expand %m : !stride.tensor<1x1x8x8xf16> -> !stride.tensor<1x2x8x8xf16, strides = [64, 0, 8, 1], offset = 0>
  %bias = stride.add %gu, %me : !stride.tensor<1x2x8x8xf16, strides = [128, 1, 16, 2], offset = 0>, !stride.tensor<1x2x8x8xf16, strides = [64, 0, 8, 1], offset = 0> -> !stride.tensor<1x2x8x8xf16>
  %x = stride.add %s0, %bias : !stride.tensor<1x2x8x8xf16>, !stride.tensor<1x2x8x8xf16> -> !stride.tensor<1x2x8x8xf16>
  %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf16> -> !stride.tensor<1x2x8x1xf16>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf16> -> !stride.tensor<1x2x8x8xf16, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf16>, !stride.tensor<1x2x8x8xf16, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf16>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf16> -> !stride.tensor<1x2x8x8xf16>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf16> -> !stride.tensor<1x2x8x1xf16>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf16> -> !stride.tensor<1x2x8x8xf16, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf16>, !stride.tensor<1x2x8x8xf16, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf16>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf16>, !stride.tensor<1x2x8x16xf16> -> !stride.tensor<1x2x8x16xf16>
  return %o : !stride.tensor<1x2x8x16xf16>
}

// -----

// CHECK-LABEL: func.func @bias_table_argument
// CHECK-NOT:   stride.attention
// CHECK:       return
func.func @bias_table_argument(%q: !stride.tensor<1x2x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>, %v: !stride.tensor<1x2x8x16xf32>, %keep: !stride.tensor<1x1x8x8xi1>, %bucket: !stride.tensor<64xi64>, %t: !stride.tensor<4x2xf32>) -> (!stride.tensor<1x2x8x16xf32>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>

  %g = stride.index_select %t, %bucket dim 0 : !stride.tensor<4x2xf32>, !stride.tensor<64xi64> -> !stride.tensor<64x2xf32>
  %gv = stride.view %g : !stride.tensor<64x2xf32> -> !stride.tensor<8x8x2xf32>
  %gp = stride.permute %gv dims [2, 0, 1] : !stride.tensor<8x8x2xf32> -> !stride.tensor<2x8x8xf32, strides = [1, 16, 2], offset = 0>
  %gu = stride.unsqueeze %gp dim 0 : !stride.tensor<2x8x8xf32, strides = [1, 16, 2], offset = 0> -> !stride.tensor<1x2x8x8xf32, strides = [128, 1, 16, 2], offset = 0>
  %zero = stride.full 0.000000e+00 : !stride.tensor<f32>
  %min = stride.full -3.4028234663852886E+38 : !stride.tensor<f32>
  %zeroe = stride.expand %zero : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %mine = stride.expand %min : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %m = stride.where %keep, %zeroe, %mine : !stride.tensor<1x1x8x8xi1>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x8x8xf32>
  %me = stride.expand %m : !stride.tensor<1x1x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0>
  %bias = stride.add %gu, %me : !stride.tensor<1x2x8x8xf32, strides = [128, 1, 16, 2], offset = 0>, !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %x = stride.add %s0, %bias : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
  return %o : !stride.tensor<1x2x8x16xf32>
}

// -----

// T5 as torch.export records it (transformers 5.17): the bias added to the
// scores, then the padding mask. A where of 0 and f32's lowest adds the
// same to `s + bias` as to `bias` (0 adds nothing; the fill absorbs
// both), so the op's mask is `bias + padding`, exactly.
// CHECK-LABEL: func.func @bias_then_padding
// CHECK:       %[[M:.*]] = stride.add %{{.*}}, %{{.*}} : <1x2x8x8xf32, strides = [128, 1, 16, 2], offset = 0>, <1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0>
// CHECK:       stride.attention %arg0, %arg1, %arg2 mask %[[M]] scale 1.000000e+00 :
// CHECK-NOT:   stride.matmul
// CHECK:       return
func.func @bias_then_padding(%q: !stride.tensor<1x2x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>, %v: !stride.tensor<1x2x8x16xf32>, %keep: !stride.tensor<1x1x8x8xi1>, %bucket: !stride.tensor<64xi64>) -> (!stride.tensor<1x2x8x16xf32>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %t = stride.constant dense<[[0.5, -1.0], [2.0, 0.25], [-3.0, 1.5], [0.0, 4.0]]> : tensor<4x2xf32> : !stride.tensor<4x2xf32>
  %g = stride.index_select %t, %bucket dim 0 : !stride.tensor<4x2xf32>, !stride.tensor<64xi64> -> !stride.tensor<64x2xf32>
  %gv = stride.view %g : !stride.tensor<64x2xf32> -> !stride.tensor<8x8x2xf32>
  %gp = stride.permute %gv dims [2, 0, 1] : !stride.tensor<8x8x2xf32> -> !stride.tensor<2x8x8xf32, strides = [1, 16, 2], offset = 0>
  %gu = stride.unsqueeze %gp dim 0 : !stride.tensor<2x8x8xf32, strides = [1, 16, 2], offset = 0> -> !stride.tensor<1x2x8x8xf32, strides = [128, 1, 16, 2], offset = 0>
  %zero = stride.full 0.000000e+00 : !stride.tensor<f32>
  %min = stride.full -3.4028234663852886E+38 : !stride.tensor<f32>
  %zeroe = stride.expand %zero : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %mine = stride.expand %min : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %m = stride.where %keep, %zeroe, %mine : !stride.tensor<1x1x8x8xi1>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x8x8xf32>
  %me = stride.expand %m : !stride.tensor<1x1x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0>
  %sb = stride.add %s0, %gu : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [128, 1, 16, 2], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %x = stride.add %sb, %me : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
  return %o : !stride.tensor<1x2x8x16xf32>
}

// -----

// The same with a fill of -1e4, which does not absorb the scores: moving
// it onto the bias could change a rounded sum, so nothing is recognized.
// CHECK-LABEL: func.func @bias_then_other_mask
// CHECK-NOT:   stride.attention
// CHECK:       return
func.func @bias_then_other_mask(%q: !stride.tensor<1x2x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>, %v: !stride.tensor<1x2x8x16xf32>, %keep: !stride.tensor<1x1x8x8xi1>, %bucket: !stride.tensor<64xi64>) -> (!stride.tensor<1x2x8x16xf32>) {
  %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
  %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %t = stride.constant dense<[[0.5, -1.0], [2.0, 0.25], [-3.0, 1.5], [0.0, 4.0]]> : tensor<4x2xf32> : !stride.tensor<4x2xf32>
  %g = stride.index_select %t, %bucket dim 0 : !stride.tensor<4x2xf32>, !stride.tensor<64xi64> -> !stride.tensor<64x2xf32>
  %gv = stride.view %g : !stride.tensor<64x2xf32> -> !stride.tensor<8x8x2xf32>
  %gp = stride.permute %gv dims [2, 0, 1] : !stride.tensor<8x8x2xf32> -> !stride.tensor<2x8x8xf32, strides = [1, 16, 2], offset = 0>
  %gu = stride.unsqueeze %gp dim 0 : !stride.tensor<2x8x8xf32, strides = [1, 16, 2], offset = 0> -> !stride.tensor<1x2x8x8xf32, strides = [128, 1, 16, 2], offset = 0>
  %zero = stride.full 0.000000e+00 : !stride.tensor<f32>
  %min = stride.full -1.000000e+04 : !stride.tensor<f32>
  %zeroe = stride.expand %zero : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %mine = stride.expand %min : !stride.tensor<f32> -> !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
  %m = stride.where %keep, %zeroe, %mine : !stride.tensor<1x1x8x8xi1>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0>, !stride.tensor<1x1x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x1x8x8xf32>
  %me = stride.expand %m : !stride.tensor<1x1x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0>
  %sb = stride.add %s0, %gu : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [128, 1, 16, 2], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %x = stride.add %sb, %me : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [64, 0, 8, 1], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
  %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
  %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
  %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
  %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
  return %o : !stride.tensor<1x2x8x16xf32>
}
