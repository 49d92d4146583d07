// RUN: stride-opt %s --split-input-file --stride-pair-training-attention --verify-diagnostics | FileCheck %s

// A training step's eager attention: the forward saves P (and the product
// operands), the backward reads P in dV = P^T dO and in the softmax's
// gradient. Both become ops of the fused attention; P is saved no more, the
// logsumexp and the output are.
// CHECK-LABEL: module @paired
// CHECK:       func.func @forward({{.*}}) -> ({{.*}}{stride.name = "o"}, {{.*}}{stride.name = "q_saved"}, {{.*}}{stride.name = "kt_saved"}, {{.*}}{stride.name = "v_saved"}, !stride.tensor<1x2x8xf32, strides = [16, 8, 1], offset = 0> {stride.name = "p_logsumexp"}, !stride.tensor<1x2x8x16xf32, {{.*}}> {stride.name = "p_output"})
// CHECK:       %[[O:.*]], %[[LSE:.*]] = stride.attention %arg0, %arg1, %arg2 scale 2.500000e-01 :
// CHECK-NOT:   stride.exp
// CHECK:       return %[[O]], %arg0, %{{.*}}, %arg2, %[[LSE]], %[[O]] :
// CHECK:       func.func @backward(%arg0: {{.*}}{stride.name = "q_saved"}, %arg1: {{.*}}{stride.name = "kt_saved"}, %arg2: {{.*}}{stride.name = "v_saved"}, %arg3: {{.*}}{stride.name = "tangents_1"}, %arg4: {{.*}}{stride.name = "p_logsumexp"}, %arg5: {{.*}}{stride.name = "p_output"})
// CHECK:       %[[K:.*]] = stride.permute %arg1 dims [0, 1, 3, 2]
// CHECK:       %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = stride.attention_backward %arg3, %arg0, %[[K]], %arg2, %arg5, %arg4 scale 2.500000e-01 :
// CHECK-NOT:   stride.matmul
// CHECK-NOT:   stride.sum
// CHECK:       %[[DKT:.*]] = stride.permute %[[DK]] dims [0, 1, 3, 2]
// CHECK:       %[[COPY:.*]] = stride.clone %[[DKT]]
// CHECK:       return %[[DQ]], %[[COPY]], %[[DV]] :
module @paired {
  func.func @forward(%q: !stride.tensor<1x2x8x16xf32> {stride.name = "q"}, %k: !stride.tensor<1x2x8x16xf32> {stride.name = "k"}, %v: !stride.tensor<1x2x8x16xf32> {stride.name = "v"}) -> (!stride.tensor<1x2x8x16xf32> {stride.name = "o"}, !stride.tensor<1x2x8x8xf32> {stride.name = "p"}, !stride.tensor<1x2x8x16xf32> {stride.name = "q_saved"}, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "kt_saved"}, !stride.tensor<1x2x8x16xf32> {stride.name = "v_saved"}) {
    %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %c = stride.full 2.500000e-01 : !stride.tensor<f32>
    %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
    %x = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    return %o, %p, %q, %kt, %v : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x16xf32>
  }
  func.func @backward(%p: !stride.tensor<1x2x8x8xf32> {stride.name = "p"}, %q: !stride.tensor<1x2x8x16xf32> {stride.name = "q_saved"}, %kt: !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "kt_saved"}, %v: !stride.tensor<1x2x8x16xf32> {stride.name = "v_saved"}, %do: !stride.tensor<1x2x8x16xf32> {stride.name = "tangents_1"}) -> (!stride.tensor<1x2x8x16xf32> {stride.name = "grad_q"}, !stride.tensor<1x2x16x8xf32> {stride.name = "grad_kt"}, !stride.tensor<1x2x8x16xf32> {stride.name = "grad_v"}) {
    %pt = stride.permute %p dims [0, 1, 3, 2] : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>
    %dv = stride.matmul %pt, %do : !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    %vt = stride.permute %v dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %dp = stride.matmul %do, %vt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %t = stride.mul %dp, %p : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %ts = stride.sum %t dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %tse = stride.expand %ts : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %u = stride.mul %p, %tse : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %dx = stride.sub %t, %u : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %c = stride.full 2.500000e-01 : !stride.tensor<f32>
    %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
    %g = stride.mul %dx, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %k = stride.permute %kt dims [0, 1, 3, 2] : !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x16xf32>
    %dq = stride.matmul %g, %k : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    %qt = stride.permute %q dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %dkt = stride.matmul %qt, %g : !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x16x8xf32>
    return %dq, %dkt, %dv : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32>, !stride.tensor<1x2x8x16xf32>
  }
}

// -----

// What AOTAutograd's min-cut partition saves: P and its transpose (which
// dV = P^T dO reads), the query transposed, the key itself and the value
// transposed. The backward reads them as they are; the op reads them back
// in [B, H, S, D] (transposed where saved transposed).
// CHECK-LABEL: module @transposes_saved
// CHECK:       func.func @forward({{.*}}) -> ({{.*}}{stride.name = "o"}, {{.*}}{stride.name = "qt"}, {{.*}}{stride.name = "k_saved"}, {{.*}}{stride.name = "vt"}, {{.*}}{stride.name = "p_logsumexp"}, {{.*}}{stride.name = "p_output"})
// CHECK:       stride.attention %arg0, %arg1, %arg2 scale 2.500000e-01 :
// CHECK:       func.func @backward(%arg0: {{.*}}{stride.name = "qt"}, %arg1: {{.*}}{stride.name = "k_saved"}, %arg2: {{.*}}{stride.name = "vt"}, %arg3: {{.*}}{stride.name = "tangents_1"}, %arg4: {{.*}}{stride.name = "p_logsumexp"}, %arg5: {{.*}}{stride.name = "p_output"})
// CHECK:       %[[Q:.*]] = stride.permute %arg0 dims [0, 1, 3, 2]
// CHECK:       %[[V:.*]] = stride.permute %arg2 dims [0, 1, 3, 2]
// CHECK:       stride.attention_backward %arg3, %[[Q]], %arg1, %[[V]], %arg5, %arg4 scale 2.500000e-01 :
// CHECK-NOT:   stride.matmul
// CHECK:       return
module @transposes_saved {
  func.func @forward(%q: !stride.tensor<1x2x8x16xf32> {stride.name = "q"}, %k: !stride.tensor<1x2x8x16xf32> {stride.name = "k"}, %v: !stride.tensor<1x2x8x16xf32> {stride.name = "v"}) -> (!stride.tensor<1x2x8x16xf32> {stride.name = "o"}, !stride.tensor<1x2x8x8xf32> {stride.name = "p"}, !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0> {stride.name = "pt"}, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "qt"}, !stride.tensor<1x2x8x16xf32> {stride.name = "k_saved"}, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "vt"}) {
    %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %c = stride.full 2.500000e-01 : !stride.tensor<f32>
    %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
    %x = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    %pt = stride.permute %p dims [0, 1, 3, 2] : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>
    %qt = stride.permute %q dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %vt = stride.permute %v dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    return %o, %p, %pt, %qt, %k, %vt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
  }
  func.func @backward(%p: !stride.tensor<1x2x8x8xf32> {stride.name = "p"}, %pt: !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0> {stride.name = "pt"}, %qt: !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "qt"}, %k: !stride.tensor<1x2x8x16xf32> {stride.name = "k_saved"}, %vt: !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "vt"}, %do: !stride.tensor<1x2x8x16xf32> {stride.name = "tangents_1"}) -> (!stride.tensor<1x2x8x16xf32> {stride.name = "grad_q"}, !stride.tensor<1x2x16x8xf32> {stride.name = "grad_kt"}, !stride.tensor<1x2x8x16xf32> {stride.name = "grad_v"}) {
    %dv = stride.matmul %pt, %do : !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    %dp = stride.matmul %do, %vt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %t = stride.mul %dp, %p : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %ts = stride.sum %t dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %tse = stride.expand %ts : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %u = stride.mul %p, %tse : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %dx = stride.sub %t, %u : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %c = stride.full 2.500000e-01 : !stride.tensor<f32>
    %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
    %g = stride.mul %ce, %dx : !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %dq = stride.matmul %g, %k : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    %dkt = stride.matmul %qt, %g : !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x16x8xf32>
    return %dq, %dkt, %dv : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32>, !stride.tensor<1x2x8x16xf32>
  }
}

// -----

// The scores are saved too: the backward could read them, so nothing is
// paired.
// CHECK-LABEL: module @scores_saved
// CHECK-NOT:   stride.attention
// CHECK:       stride.exp
// CHECK:       func.func @backward
// CHECK-NOT:   stride.attention_backward
module @scores_saved {
  func.func @forward(%q: !stride.tensor<1x2x8x16xf32> {stride.name = "q"}, %k: !stride.tensor<1x2x8x16xf32> {stride.name = "k"}, %v: !stride.tensor<1x2x8x16xf32> {stride.name = "v"}) -> (!stride.tensor<1x2x8x8xf32> {stride.name = "x"}, !stride.tensor<1x2x8x16xf32> {stride.name = "o"}, !stride.tensor<1x2x8x8xf32> {stride.name = "p"}, !stride.tensor<1x2x8x16xf32> {stride.name = "q_saved"}, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "kt_saved"}, !stride.tensor<1x2x8x16xf32> {stride.name = "v_saved"}) {
    %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %c = stride.full 2.500000e-01 : !stride.tensor<f32>
    %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
    %x = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    return %x, %o, %p, %q, %kt, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x16xf32>
  }
  func.func @backward(%p: !stride.tensor<1x2x8x8xf32> {stride.name = "p"}, %q: !stride.tensor<1x2x8x16xf32> {stride.name = "q_saved"}, %kt: !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "kt_saved"}, %v: !stride.tensor<1x2x8x16xf32> {stride.name = "v_saved"}, %do: !stride.tensor<1x2x8x16xf32> {stride.name = "tangents_1"}) -> (!stride.tensor<1x2x8x16xf32> {stride.name = "grad_q"}, !stride.tensor<1x2x16x8xf32> {stride.name = "grad_kt"}, !stride.tensor<1x2x8x16xf32> {stride.name = "grad_v"}) {
    %pt = stride.permute %p dims [0, 1, 3, 2] : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>
    %dv = stride.matmul %pt, %do : !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    %vt = stride.permute %v dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %dp = stride.matmul %do, %vt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %t = stride.mul %dp, %p : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %ts = stride.sum %t dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %tse = stride.expand %ts : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %u = stride.mul %p, %tse : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %dx = stride.sub %t, %u : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %c = stride.full 2.500000e-01 : !stride.tensor<f32>
    %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
    %g = stride.mul %dx, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %k = stride.permute %kt dims [0, 1, 3, 2] : !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x16xf32>
    %dq = stride.matmul %g, %k : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    %qt = stride.permute %q dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %dkt = stride.matmul %qt, %g : !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x16x8xf32>
    return %dq, %dkt, %dv : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32>, !stride.tensor<1x2x8x16xf32>
  }
}

// -----

// The backward scales the gradient by 0.5 where the forward scaled the
// scores by 0.25: not the gradient of this attention.
// CHECK-LABEL: module @scale_mismatch
// CHECK-NOT:   stride.attention
// CHECK:       func.func @backward
// CHECK-NOT:   stride.attention_backward
module @scale_mismatch {
  func.func @forward(%q: !stride.tensor<1x2x8x16xf32> {stride.name = "q"}, %k: !stride.tensor<1x2x8x16xf32> {stride.name = "k"}, %v: !stride.tensor<1x2x8x16xf32> {stride.name = "v"}) -> (!stride.tensor<1x2x8x16xf32> {stride.name = "o"}, !stride.tensor<1x2x8x8xf32> {stride.name = "p"}, !stride.tensor<1x2x8x16xf32> {stride.name = "q_saved"}, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "kt_saved"}, !stride.tensor<1x2x8x16xf32> {stride.name = "v_saved"}) {
    %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %c = stride.full 2.500000e-01 : !stride.tensor<f32>
    %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
    %x = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    return %o, %p, %q, %kt, %v : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x16xf32>
  }
  func.func @backward(%p: !stride.tensor<1x2x8x8xf32> {stride.name = "p"}, %q: !stride.tensor<1x2x8x16xf32> {stride.name = "q_saved"}, %kt: !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "kt_saved"}, %v: !stride.tensor<1x2x8x16xf32> {stride.name = "v_saved"}, %do: !stride.tensor<1x2x8x16xf32> {stride.name = "tangents_1"}) -> (!stride.tensor<1x2x8x16xf32> {stride.name = "grad_q"}, !stride.tensor<1x2x16x8xf32> {stride.name = "grad_kt"}, !stride.tensor<1x2x8x16xf32> {stride.name = "grad_v"}) {
    %pt = stride.permute %p dims [0, 1, 3, 2] : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>
    %dv = stride.matmul %pt, %do : !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    %vt = stride.permute %v dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %dp = stride.matmul %do, %vt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %t = stride.mul %dp, %p : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %ts = stride.sum %t dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %tse = stride.expand %ts : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %u = stride.mul %p, %tse : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %dx = stride.sub %t, %u : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %c = stride.full 5.000000e-01 : !stride.tensor<f32>
    %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
    %g = stride.mul %dx, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %k = stride.permute %kt dims [0, 1, 3, 2] : !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x16xf32>
    %dq = stride.matmul %g, %k : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    %qt = stride.permute %q dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %dkt = stride.matmul %qt, %g : !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x16x8xf32>
    return %dq, %dkt, %dv : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32>, !stride.tensor<1x2x8x16xf32>
  }
}

// -----

// The backward reads P once more (a dropout's mask would): not the
// softmax's gradient alone.
// CHECK-LABEL: module @probabilities_read_elsewhere
// CHECK-NOT:   stride.attention
// CHECK:       func.func @backward
// CHECK-NOT:   stride.attention_backward
module @probabilities_read_elsewhere {
  func.func @forward(%q: !stride.tensor<1x2x8x16xf32> {stride.name = "q"}, %k: !stride.tensor<1x2x8x16xf32> {stride.name = "k"}, %v: !stride.tensor<1x2x8x16xf32> {stride.name = "v"}) -> (!stride.tensor<1x2x8x16xf32> {stride.name = "o"}, !stride.tensor<1x2x8x8xf32> {stride.name = "p"}, !stride.tensor<1x2x8x16xf32> {stride.name = "q_saved"}, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "kt_saved"}, !stride.tensor<1x2x8x16xf32> {stride.name = "v_saved"}) {
    %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %c = stride.full 2.500000e-01 : !stride.tensor<f32>
    %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
    %x = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    return %o, %p, %q, %kt, %v : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x16xf32>
  }
  func.func @backward(%p: !stride.tensor<1x2x8x8xf32> {stride.name = "p"}, %q: !stride.tensor<1x2x8x16xf32> {stride.name = "q_saved"}, %kt: !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "kt_saved"}, %v: !stride.tensor<1x2x8x16xf32> {stride.name = "v_saved"}, %do: !stride.tensor<1x2x8x16xf32> {stride.name = "tangents_1"}) -> (!stride.tensor<1x2x8x16xf32> {stride.name = "grad_q"}, !stride.tensor<1x2x16x8xf32> {stride.name = "grad_kt"}, !stride.tensor<1x2x8x16xf32> {stride.name = "grad_v"}) {
    %pd = stride.mul %p, %p : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %pt = stride.permute %pd dims [0, 1, 3, 2] : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>
    %dv = stride.matmul %pt, %do : !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    %vt = stride.permute %v dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %dp = stride.matmul %do, %vt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %t = stride.mul %dp, %p : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %ts = stride.sum %t dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %tse = stride.expand %ts : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %u = stride.mul %p, %tse : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %dx = stride.sub %t, %u : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %c = stride.full 2.500000e-01 : !stride.tensor<f32>
    %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
    %g = stride.mul %dx, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %k = stride.permute %kt dims [0, 1, 3, 2] : !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x16xf32>
    %dq = stride.matmul %g, %k : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    %qt = stride.permute %q dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %dkt = stride.matmul %qt, %g : !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x16x8xf32>
    return %dq, %dkt, %dv : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32>, !stride.tensor<1x2x8x16xf32>
  }
}

// -----

// The forward saves the value under the name the backward reads as the
// query: the backward's products are not this attention's gradient.
// CHECK-LABEL: module @query_not_saved
// CHECK-NOT:   stride.attention
// CHECK:       func.func @backward
// CHECK-NOT:   stride.attention_backward
module @query_not_saved {
  func.func @forward(%q: !stride.tensor<1x2x8x16xf32> {stride.name = "q"}, %k: !stride.tensor<1x2x8x16xf32> {stride.name = "k"}, %v: !stride.tensor<1x2x8x16xf32> {stride.name = "v"}) -> (!stride.tensor<1x2x8x16xf32> {stride.name = "o"}, !stride.tensor<1x2x8x8xf32> {stride.name = "p"}, !stride.tensor<1x2x8x16xf32> {stride.name = "q_saved"}, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "kt_saved"}, !stride.tensor<1x2x8x16xf32> {stride.name = "v_saved"}) {
    %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %c = stride.full 2.500000e-01 : !stride.tensor<f32>
    %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
    %x = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    return %o, %p, %v, %kt, %v : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x16xf32>
  }
  func.func @backward(%p: !stride.tensor<1x2x8x8xf32> {stride.name = "p"}, %q: !stride.tensor<1x2x8x16xf32> {stride.name = "q_saved"}, %kt: !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "kt_saved"}, %v: !stride.tensor<1x2x8x16xf32> {stride.name = "v_saved"}, %do: !stride.tensor<1x2x8x16xf32> {stride.name = "tangents_1"}) -> (!stride.tensor<1x2x8x16xf32> {stride.name = "grad_q"}, !stride.tensor<1x2x16x8xf32> {stride.name = "grad_kt"}, !stride.tensor<1x2x8x16xf32> {stride.name = "grad_v"}) {
    %pt = stride.permute %p dims [0, 1, 3, 2] : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>
    %dv = stride.matmul %pt, %do : !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    %vt = stride.permute %v dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %dp = stride.matmul %do, %vt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %t = stride.mul %dp, %p : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %ts = stride.sum %t dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %tse = stride.expand %ts : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %u = stride.mul %p, %tse : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %dx = stride.sub %t, %u : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %c = stride.full 2.500000e-01 : !stride.tensor<f32>
    %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
    %g = stride.mul %dx, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %k = stride.permute %kt dims [0, 1, 3, 2] : !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x16xf32>
    %dq = stride.matmul %g, %k : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    %qt = stride.permute %q dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %dkt = stride.matmul %qt, %g : !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x16x8xf32>
    return %dq, %dkt, %dv : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32>, !stride.tensor<1x2x8x16xf32>
  }
}

// -----

// bf16, with the softmax's gradient computed in f32 between casts (PyTorch's
// decomposition of _softmax_backward_data): the casts are the gradient's.
// CHECK-LABEL: module @bf16_gradient_in_f32
// CHECK:       stride.attention {{.*}} -> <1x2x8x16xbf16, {{.*}}>, !stride.tensor<1x2x8xf32,
// CHECK:       func.func @backward
// CHECK:       stride.attention_backward
// CHECK-NOT:   stride.cast
// CHECK:       return
module @bf16_gradient_in_f32 {
  func.func @forward(%q: !stride.tensor<1x2x8x16xbf16> {stride.name = "q"}, %k: !stride.tensor<1x2x8x16xbf16> {stride.name = "k"}, %v: !stride.tensor<1x2x8x16xbf16> {stride.name = "v"}) -> (!stride.tensor<1x2x8x16xbf16> {stride.name = "o"}, !stride.tensor<1x2x8x8xbf16> {stride.name = "p"}, !stride.tensor<1x2x8x16xbf16> {stride.name = "q_saved"}, !stride.tensor<1x2x16x8xbf16, strides = [256, 128, 1, 16], offset = 0> {stride.name = "kt_saved"}, !stride.tensor<1x2x8x16xbf16> {stride.name = "v_saved"}) {
    %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xbf16> -> !stride.tensor<1x2x16x8xbf16, strides = [256, 128, 1, 16], offset = 0>
    %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x16x8xbf16, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xbf16>
    %c = stride.full 2.500000e-01 : !stride.tensor<bf16>
    %ce = stride.expand %c : !stride.tensor<bf16> -> !stride.tensor<1x2x8x8xbf16, strides = [0, 0, 0, 0], offset = 0>
    %x = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xbf16>, !stride.tensor<1x2x8x8xbf16, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xbf16>
    %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xbf16> -> !stride.tensor<1x2x8x1xbf16>
    %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xbf16> -> !stride.tensor<1x2x8x8xbf16, strides = [16, 8, 1, 0], offset = 0>
    %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xbf16>, !stride.tensor<1x2x8x8xbf16, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xbf16>
    %e = stride.exp %sh : !stride.tensor<1x2x8x8xbf16> -> !stride.tensor<1x2x8x8xbf16>
    %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xbf16> -> !stride.tensor<1x2x8x1xbf16>
    %sme = stride.expand %sm : !stride.tensor<1x2x8x1xbf16> -> !stride.tensor<1x2x8x8xbf16, strides = [16, 8, 1, 0], offset = 0>
    %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xbf16>, !stride.tensor<1x2x8x8xbf16, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xbf16>
    %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xbf16>, !stride.tensor<1x2x8x16xbf16> -> !stride.tensor<1x2x8x16xbf16>
    return %o, %p, %q, %kt, %v : !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x8x8xbf16>, !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x16x8xbf16, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x16xbf16>
  }
  func.func @backward(%p: !stride.tensor<1x2x8x8xbf16> {stride.name = "p"}, %q: !stride.tensor<1x2x8x16xbf16> {stride.name = "q_saved"}, %kt: !stride.tensor<1x2x16x8xbf16, strides = [256, 128, 1, 16], offset = 0> {stride.name = "kt_saved"}, %v: !stride.tensor<1x2x8x16xbf16> {stride.name = "v_saved"}, %do: !stride.tensor<1x2x8x16xbf16> {stride.name = "tangents_1"}) -> (!stride.tensor<1x2x8x16xbf16> {stride.name = "grad_q"}, !stride.tensor<1x2x16x8xbf16> {stride.name = "grad_kt"}, !stride.tensor<1x2x8x16xbf16> {stride.name = "grad_v"}) {
    %pt = stride.permute %p dims [0, 1, 3, 2] : !stride.tensor<1x2x8x8xbf16> -> !stride.tensor<1x2x8x8xbf16, strides = [128, 64, 1, 8], offset = 0>
    %dv = stride.matmul %pt, %do : !stride.tensor<1x2x8x8xbf16, strides = [128, 64, 1, 8], offset = 0>, !stride.tensor<1x2x8x16xbf16> -> !stride.tensor<1x2x8x16xbf16>
    %vt = stride.permute %v dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xbf16> -> !stride.tensor<1x2x16x8xbf16, strides = [256, 128, 1, 16], offset = 0>
    %dp = stride.matmul %do, %vt : !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x16x8xbf16, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xbf16>
    %pf = stride.cast %p : !stride.tensor<1x2x8x8xbf16> -> !stride.tensor<1x2x8x8xf32>
    %dpf = stride.cast %dp : !stride.tensor<1x2x8x8xbf16> -> !stride.tensor<1x2x8x8xf32>
    %t = stride.mul %dpf, %pf : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %ts = stride.sum %t dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %tse = stride.expand %ts : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %u = stride.mul %pf, %tse : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %dxf = stride.sub %t, %u : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %dx = stride.cast %dxf : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xbf16>
    %c = stride.full 2.500000e-01 : !stride.tensor<bf16>
    %ce = stride.expand %c : !stride.tensor<bf16> -> !stride.tensor<1x2x8x8xbf16, strides = [0, 0, 0, 0], offset = 0>
    %g = stride.mul %dx, %ce : !stride.tensor<1x2x8x8xbf16>, !stride.tensor<1x2x8x8xbf16, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xbf16>
    %k = stride.permute %kt dims [0, 1, 3, 2] : !stride.tensor<1x2x16x8xbf16, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x16xbf16>
    %dq = stride.matmul %g, %k : !stride.tensor<1x2x8x8xbf16>, !stride.tensor<1x2x8x16xbf16> -> !stride.tensor<1x2x8x16xbf16>
    %qt = stride.permute %q dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xbf16> -> !stride.tensor<1x2x16x8xbf16, strides = [256, 128, 1, 16], offset = 0>
    %dkt = stride.matmul %qt, %g : !stride.tensor<1x2x16x8xbf16, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x8xbf16> -> !stride.tensor<1x2x16x8xbf16>
    return %dq, %dkt, %dv : !stride.tensor<1x2x8x16xbf16>, !stride.tensor<1x2x16x8xbf16>, !stride.tensor<1x2x8x16xbf16>
  }
}

// -----

// P returned twice under one name (a model output and a saved tensor
// alike): the name does not say which the backward reads, so nothing is
// paired.
// CHECK-LABEL: module @name_twice
// CHECK-NOT:   stride.attention
// CHECK:       func.func @backward
// CHECK-NOT:   stride.attention_backward
module @name_twice {
  func.func @forward(%q: !stride.tensor<1x2x8x16xf32> {stride.name = "q"}, %k: !stride.tensor<1x2x8x16xf32> {stride.name = "k"}, %v: !stride.tensor<1x2x8x16xf32> {stride.name = "v"}) -> (!stride.tensor<1x2x8x16xf32> {stride.name = "o"}, !stride.tensor<1x2x8x8xf32> {stride.name = "p"}, !stride.tensor<1x2x8x8xf32> {stride.name = "p"}, !stride.tensor<1x2x8x16xf32> {stride.name = "q_saved"}, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "kt_saved"}, !stride.tensor<1x2x8x16xf32> {stride.name = "v_saved"}) {
    %kt = stride.permute %k dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %s0 = stride.matmul %q, %kt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %c = stride.full 2.500000e-01 : !stride.tensor<f32>
    %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
    %x = stride.mul %s0, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %mx = stride.max %x dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %mxe = stride.expand %mx : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %sh = stride.sub %x, %mxe : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %e = stride.exp %sh : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %sm = stride.sum %e dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %sme = stride.expand %sm : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %p = stride.div %e, %sme : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %o = stride.matmul %p, %v : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    return %o, %p, %p, %q, %kt, %v : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x16xf32>
  }
  func.func @backward(%p: !stride.tensor<1x2x8x8xf32> {stride.name = "p"}, %q: !stride.tensor<1x2x8x16xf32> {stride.name = "q_saved"}, %kt: !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> {stride.name = "kt_saved"}, %v: !stride.tensor<1x2x8x16xf32> {stride.name = "v_saved"}, %do: !stride.tensor<1x2x8x16xf32> {stride.name = "tangents_1"}) -> (!stride.tensor<1x2x8x16xf32> {stride.name = "grad_q"}, !stride.tensor<1x2x16x8xf32> {stride.name = "grad_kt"}, !stride.tensor<1x2x8x16xf32> {stride.name = "grad_v"}) {
    %pt = stride.permute %p dims [0, 1, 3, 2] : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>
    %dv = stride.matmul %pt, %do : !stride.tensor<1x2x8x8xf32, strides = [128, 64, 1, 8], offset = 0>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    %vt = stride.permute %v dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %dp = stride.matmul %do, %vt : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %t = stride.mul %dp, %p : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %ts = stride.sum %t dims [3] keepdim : !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x1xf32>
    %tse = stride.expand %ts : !stride.tensor<1x2x8x1xf32> -> !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0>
    %u = stride.mul %p, %tse : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [16, 8, 1, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %dx = stride.sub %t, %u : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x8x8xf32>
    %c = stride.full 2.500000e-01 : !stride.tensor<f32>
    %ce = stride.expand %c : !stride.tensor<f32> -> !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0>
    %g = stride.mul %dx, %ce : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x8xf32, strides = [0, 0, 0, 0], offset = 0> -> !stride.tensor<1x2x8x8xf32>
    %k = stride.permute %kt dims [0, 1, 3, 2] : !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0> -> !stride.tensor<1x2x8x16xf32>
    %dq = stride.matmul %g, %k : !stride.tensor<1x2x8x8xf32>, !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x8x16xf32>
    %qt = stride.permute %q dims [0, 1, 3, 2] : !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>
    %dkt = stride.matmul %qt, %g : !stride.tensor<1x2x16x8xf32, strides = [256, 128, 1, 16], offset = 0>, !stride.tensor<1x2x8x8xf32> -> !stride.tensor<1x2x16x8xf32>
    return %dq, %dkt, %dv : !stride.tensor<1x2x8x16xf32>, !stride.tensor<1x2x16x8xf32>, !stride.tensor<1x2x8x16xf32>
  }
}

// -----

// expected-error @+1 {{stride-pair-training-attention needs a module with the functions 'forward' and 'backward' (a training step's two graphs)}}
module @one_function {
  func.func @forward(%x: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
    return %x : !stride.tensor<4xf32>
  }
}
