// stride-decompose-attention: each attention op becomes products and the
// ops of a softmax (python-free-docs/attention.md, "The fallback"); an op
// marked stride.keep_fused is left for the fused call. The default pipeline
// decomposes before fusion.
// RUN: stride-opt %s --stride-decompose-attention | FileCheck %s
// RUN: stride-opt %s --stride-pipeline | FileCheck %s --check-prefix=PIPE

// Grouped-query (4 query heads on 2): the query viewed by group, the key
// broadcast over the group (stride 0) and transposed; scale, the causal
// mask from iota rows and columns, the guarded softmax normalized before
// the product with the value. Through the pipeline the softmax is one
// kernel between the two products (max, exp, sum and the division), with
// no kernel after the second.
// CHECK-LABEL: func.func @causal_gqa
// CHECK-NOT:   stride.attention
// CHECK:       %[[QG:.*]] = stride.view %arg0 : {{.*}} -> <1x2x2x8x16xf32, strides = [512, 256, 128, 16, 1], offset = 0>
// CHECK:       %[[KU:.*]] = stride.unsqueeze %arg1 dim 2 : {{.*}} -> <1x2x1x8x16xf32
// CHECK:       %[[KE:.*]] = stride.expand %[[KU]] : {{.*}} -> <1x2x2x8x16xf32, strides = [256, 128, 0, 16, 1], offset = 0>
// CHECK:       %[[KT:.*]] = stride.permute %[[KE]] dims [0, 1, 2, 4, 3]
// CHECK:       %[[QK:.*]] = stride.matmul %[[QG]], %[[KT]] : {{.*}} -> <1x2x2x8x8xf32
// CHECK:       %[[S0:.*]] = stride.view %[[QK]] : {{.*}} -> <1x4x8x8xf32
// CHECK:       %[[SC:.*]] = stride.full 5.000000e-01 : <1x4x8x8xf32
// CHECK:       %[[S1:.*]] = stride.mul %[[S0]], %[[SC]]
// CHECK:       %[[ROW:.*]] = stride.iota dim 0 : <8x8xi64
// CHECK:       %[[COL:.*]] = stride.iota dim 1 : <8x8xi64
// CHECK:       %[[SEEN:.*]] = stride.cmp le, %[[COL]], %[[ROW]]
// CHECK:       %[[SEEN4:.*]] = stride.expand %[[SEEN]] : <8x8xi1, {{.*}}> -> <1x4x8x8xi1, strides = [0, 0, 8, 1], offset = 0>
// CHECK:       %[[NINF:.*]] = stride.full 0xFFF0000000000000 : <1x4x8x8xf32
// CHECK:       %[[S:.*]] = stride.where %[[SEEN4]], %[[S1]], %[[NINF]]
// CHECK:       %[[MAX:.*]] = stride.max %[[S]] dims [3] keepdim
// CHECK:       %[[EMPTY:.*]] = stride.cmp eq, %[[MAX]], %{{.*}}
// CHECK:       %[[SHIFT:.*]] = stride.where %[[EMPTY]], %{{.*}}, %[[MAX]]
// CHECK:       %[[SHIFT4:.*]] = stride.expand %[[SHIFT]]
// CHECK:       %[[D:.*]] = stride.sub %[[S]], %[[SHIFT4]]
// CHECK:       %[[E:.*]] = stride.exp %[[D]]
// CHECK:       %[[SUM:.*]] = stride.sum %[[E]] dims [3] keepdim
// CHECK:       %[[ZERO:.*]] = stride.cmp eq, %[[SUM]], %{{.*}}
// CHECK:       %[[DIV:.*]] = stride.where %[[ZERO]], %{{.*}}, %[[SUM]]
// CHECK:       %[[DIV4:.*]] = stride.expand %[[DIV]]
// CHECK:       %[[P:.*]] = stride.div %[[E]], %[[DIV4]]
// CHECK:       %[[PG:.*]] = stride.view %[[P]]
// CHECK:       %[[VU:.*]] = stride.unsqueeze %arg2 dim 2
// CHECK:       %[[VE:.*]] = stride.expand %[[VU]]
// CHECK:       %[[PV:.*]] = stride.matmul %[[PG]], %[[VE]]
// CHECK:       %[[O:.*]] = stride.view %[[PV]] : {{.*}} -> <1x4x8x16xf32
// CHECK-NOT:   stride.log
// CHECK:       return %[[O]]
// PIPE-LABEL: func.func @causal_gqa
// PIPE-NOT:   stride.attention
// PIPE:       stride.matmul
// PIPE-NEXT:  stride.kernel
// PIPE:       stride.max
// PIPE:       stride.exp
// PIPE:       stride.sum
// PIPE:       %[[P:.*]] = stride.div
// PIPE-NEXT:  stride.yield %[[P]]
// PIPE:       stride.matmul
// PIPE-NOT:   stride.kernel
// PIPE:       return
func.func @causal_gqa(%q: !stride.tensor<1x4x8x16xf32>, %k: !stride.tensor<1x2x8x16xf32>,
                      %v: !stride.tensor<1x2x8x16xf32>) -> !stride.tensor<1x4x8x16xf32> {
  %o = stride.attention %q, %k, %v scale 0.5 causal
      : !stride.tensor<1x4x8x16xf32>, !stride.tensor<1x2x8x16xf32>,
        !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x4x8x16xf32>
  return %o : !stride.tensor<1x4x8x16xf32>
}

// bf16 is computed in f32: the operands cast first, the result cast back.
// A boolean mask writes -inf where false. One head per key/value head: no
// broadcast. The logsumexp is max + log(sum), squeezed to [B, Hq, Sq].
// CHECK-LABEL: func.func @bf16_boolean_mask
// CHECK:       %[[M:.*]] = stride.expand %arg3
// CHECK:       %[[Q:.*]] = stride.cast %arg0 : <1x2x3x8xbf16, {{.*}}> -> <1x2x3x8xf32
// CHECK:       %[[K:.*]] = stride.cast %arg1 : {{.*}} -> <1x2x5x8xf32
// CHECK:       %[[V:.*]] = stride.cast %arg2 : {{.*}} -> <1x2x5x4xf32
// CHECK-NOT:   stride.expand %{{.*}} -> <1x2x1x
// CHECK:       %[[S1:.*]] = stride.mul
// CHECK:       %[[NINF:.*]] = stride.full 0xFFF0000000000000
// CHECK:       %[[S:.*]] = stride.where %[[M]], %[[S1]], %[[NINF]]
// CHECK:       %[[MAX:.*]] = stride.max %[[S]]
// CHECK:       %[[SHIFT:.*]] = stride.where %{{.*}}, %{{.*}}, %[[MAX]]
// CHECK:       %[[SUM:.*]] = stride.sum
// CHECK:       stride.div
// CHECK:       %[[PV:.*]] = stride.matmul
// CHECK:       %[[O:.*]] = stride.view %[[PV]]
// CHECK:       %[[LOG:.*]] = stride.log %[[SUM]]
// CHECK:       %[[LSE4:.*]] = stride.add %[[SHIFT]], %[[LOG]]
// CHECK:       %[[LSE:.*]] = stride.squeeze %[[LSE4]] dims [3] : {{.*}} -> <1x2x3xf32
// CHECK:       %[[OB:.*]] = stride.cast %[[O]] : <1x2x3x4xf32, {{.*}}> -> <1x2x3x4xbf16
// CHECK:       return %[[OB]], %[[LSE]]
// PIPE-LABEL: func.func @bf16_boolean_mask
// PIPE-NOT:   stride.attention
func.func @bf16_boolean_mask(%q: !stride.tensor<1x2x3x8xbf16>, %k: !stride.tensor<1x2x5x8xbf16>,
                             %v: !stride.tensor<1x2x5x4xbf16>, %m: !stride.tensor<5xi1>)
    -> (!stride.tensor<1x2x3x4xbf16>, !stride.tensor<1x2x3xf32>) {
  %me = stride.expand %m : !stride.tensor<5xi1>
      -> !stride.tensor<1x2x3x5xi1, strides = [0, 0, 0, 1], offset = 0>
  %o, %lse = stride.attention %q, %k, %v mask %me scale 0.35
      : !stride.tensor<1x2x3x8xbf16>, !stride.tensor<1x2x5x8xbf16>, !stride.tensor<1x2x5x4xbf16>,
        !stride.tensor<1x2x3x5xi1, strides = [0, 0, 0, 1], offset = 0>
      -> !stride.tensor<1x2x3x4xbf16>, !stride.tensor<1x2x3xf32>
  return %o, %lse : !stride.tensor<1x2x3x4xbf16>, !stride.tensor<1x2x3xf32>
}

// An f64 attention with an additive mask, computed in f64; its f32
// logsumexp is a cast. A result in another layout than row-major gets a
// copy into it.
// CHECK-LABEL: func.func @f64_additive_mask
// CHECK-NOT:   stride.cast %arg
// CHECK:       %[[S1:.*]] = stride.mul
// CHECK:       %[[S:.*]] = stride.add %[[S1]], %arg3
// CHECK:       stride.div
// CHECK:       %[[PV:.*]] = stride.matmul
// CHECK:       %[[O:.*]] = stride.view %[[PV]]
// CHECK:       %[[LSE:.*]] = stride.squeeze {{.*}} -> <1x1x3xf64
// CHECK:       %[[OT:.*]] = stride.clone %[[O]] : <1x1x3x4xf64, strides = [12, 12, 4, 1], offset = 0> -> <1x1x3x4xf64, strides = [12, 12, 1, 3], offset = 0>
// CHECK:       %[[LSE32:.*]] = stride.cast %[[LSE]] : {{.*}} -> <1x1x3xf32
// CHECK:       return %[[OT]], %[[LSE32]]
func.func @f64_additive_mask(%q: !stride.tensor<1x1x3x8xf64>, %k: !stride.tensor<1x1x5x8xf64>,
                             %v: !stride.tensor<1x1x5x4xf64>, %m: !stride.tensor<1x1x3x5xf64>)
    -> (!stride.tensor<1x1x3x4xf64, strides = [12, 12, 1, 3], offset = 0>, !stride.tensor<1x1x3xf32>) {
  %o, %lse = stride.attention %q, %k, %v mask %m scale 0.35
      : !stride.tensor<1x1x3x8xf64>, !stride.tensor<1x1x5x8xf64>, !stride.tensor<1x1x5x4xf64>,
        !stride.tensor<1x1x3x5xf64>
      -> !stride.tensor<1x1x3x4xf64, strides = [12, 12, 1, 3], offset = 0>, !stride.tensor<1x1x3xf32>
  return %o, %lse : !stride.tensor<1x1x3x4xf64, strides = [12, 12, 1, 3], offset = 0>, !stride.tensor<1x1x3xf32>
}

// No keys: every row is empty, the result 0 and the logsumexp -inf.
// CHECK-LABEL: func.func @no_keys
// CHECK-NEXT:  %[[O:.*]] = stride.full 0.000000e+00 : <1x2x3x4xf32
// CHECK-NEXT:  %[[LSE:.*]] = stride.full 0xFFF0000000000000 : <1x2x3xf32
// CHECK-NEXT:  return %[[O]], %[[LSE]]
func.func @no_keys(%q: !stride.tensor<1x2x3x8xf32>, %k: !stride.tensor<1x2x0x8xf32>,
                   %v: !stride.tensor<1x2x0x4xf32>)
    -> (!stride.tensor<1x2x3x4xf32>, !stride.tensor<1x2x3xf32>) {
  %o, %lse = stride.attention %q, %k, %v scale 0.35
      : !stride.tensor<1x2x3x8xf32>, !stride.tensor<1x2x0x8xf32>, !stride.tensor<1x2x0x4xf32>
      -> !stride.tensor<1x2x3x4xf32>, !stride.tensor<1x2x3xf32>
  return %o, %lse : !stride.tensor<1x2x3x4xf32>, !stride.tensor<1x2x3xf32>
}

// The backward with 2 query heads per key/value head: P from the given
// logsumexp (-inf replaced by +inf), dS = P * (dP - rowsum(dO * O)) times
// the scale, dQ = dS K, and dK = dS^T Q and dV = P^T dO per group, summed
// over the group.
// CHECK-LABEL: func.func @backward_gqa
// CHECK:       %[[S:.*]] = stride.add
// CHECK:       %[[L:.*]] = stride.unsqueeze %arg5 dim 3
// CHECK:       %[[INF:.*]] = stride.full 0x7FF0000000000000
// CHECK:       %[[LS:.*]] = stride.where %{{.*}}, %[[INF]], %[[L]]
// CHECK:       %[[LS4:.*]] = stride.expand %[[LS]]
// CHECK:       %[[SL:.*]] = stride.sub %[[S]], %[[LS4]]
// CHECK:       %[[P:.*]] = stride.exp %[[SL]]
// CHECK:       %[[DOO:.*]] = stride.mul %arg0, %arg4
// CHECK:       %[[ROW:.*]] = stride.sum %[[DOO]] dims [3] keepdim
// CHECK:       %[[DP5:.*]] = stride.matmul
// CHECK:       %[[DP:.*]] = stride.view %[[DP5]]
// CHECK:       %[[DPR:.*]] = stride.sub %[[DP]], %{{.*}}
// CHECK:       %[[DS0:.*]] = stride.mul %[[P]], %[[DPR]]
// CHECK:       %[[DS:.*]] = stride.mul %[[DS0]], %{{.*}}
// CHECK:       %[[DSG:.*]] = stride.view %[[DS]] : {{.*}} -> <1x2x2x3x5xf32
// CHECK:       %[[DQ5:.*]] = stride.matmul %[[DSG]], %{{.*}} -> <1x2x2x3x8xf32
// CHECK:       %[[DQ:.*]] = stride.view %[[DQ5]] : {{.*}} -> <1x4x3x8xf32
// CHECK:       %[[DST:.*]] = stride.permute %[[DSG]] dims [0, 1, 2, 4, 3]
// CHECK:       %[[DK5:.*]] = stride.matmul %[[DST]], %{{.*}} -> <1x2x2x5x8xf32
// CHECK:       %[[DK:.*]] = stride.sum %[[DK5]] dims [2] : {{.*}} -> <1x2x5x8xf32
// CHECK:       %[[PG:.*]] = stride.view %[[P]]
// CHECK:       %[[PT:.*]] = stride.permute %[[PG]] dims [0, 1, 2, 4, 3]
// CHECK:       %[[DV5:.*]] = stride.matmul %[[PT]], %{{.*}} -> <1x2x2x5x4xf32
// CHECK:       %[[DV:.*]] = stride.sum %[[DV5]] dims [2] : {{.*}} -> <1x2x5x4xf32
// CHECK:       return %[[DQ]], %[[DK]], %[[DV]]
func.func @backward_gqa(%do: !stride.tensor<1x4x3x4xf32>, %q: !stride.tensor<1x4x3x8xf32>,
                        %k: !stride.tensor<1x2x5x8xf32>, %v: !stride.tensor<1x2x5x4xf32>,
                        %o: !stride.tensor<1x4x3x4xf32>, %lse: !stride.tensor<1x4x3xf32>,
                        %m: !stride.tensor<1x4x3x5xf32>)
    -> (!stride.tensor<1x4x3x8xf32>, !stride.tensor<1x2x5x8xf32>, !stride.tensor<1x2x5x4xf32>) {
  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse mask %m scale 0.35
      : !stride.tensor<1x4x3x4xf32>, !stride.tensor<1x4x3x8xf32>, !stride.tensor<1x2x5x8xf32>,
        !stride.tensor<1x2x5x4xf32>, !stride.tensor<1x4x3x4xf32>, !stride.tensor<1x4x3xf32>,
        !stride.tensor<1x4x3x5xf32>
      -> !stride.tensor<1x4x3x8xf32>, !stride.tensor<1x2x5x8xf32>, !stride.tensor<1x2x5x4xf32>
  return %dq, %dk, %dv : !stride.tensor<1x4x3x8xf32>, !stride.tensor<1x2x5x8xf32>, !stride.tensor<1x2x5x4xf32>
}

// One query head per key/value head: the gradients need no sum over a
// group (a squeeze of the size-1 group dim, a view).
// CHECK-LABEL: func.func @backward_mha
// CHECK-NOT:   stride.sum %{{.*}} dims [2]
// CHECK:       %[[DK:.*]] = stride.squeeze %{{.*}} dims [2] : {{.*}} -> <1x2x5x8xf32
// CHECK-NOT:   stride.sum %{{.*}} dims [2]
// CHECK:       %[[DV:.*]] = stride.squeeze %{{.*}} dims [2] : {{.*}} -> <1x2x5x4xf32
// CHECK:       return %{{.*}}, %[[DK]], %[[DV]]
func.func @backward_mha(%do: !stride.tensor<1x2x3x4xf32>, %q: !stride.tensor<1x2x3x8xf32>,
                        %k: !stride.tensor<1x2x5x8xf32>, %v: !stride.tensor<1x2x5x4xf32>,
                        %o: !stride.tensor<1x2x3x4xf32>, %lse: !stride.tensor<1x2x3xf32>)
    -> (!stride.tensor<1x2x3x8xf32>, !stride.tensor<1x2x5x8xf32>, !stride.tensor<1x2x5x4xf32>) {
  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse scale 0.35 causal
      : !stride.tensor<1x2x3x4xf32>, !stride.tensor<1x2x3x8xf32>, !stride.tensor<1x2x5x8xf32>,
        !stride.tensor<1x2x5x4xf32>, !stride.tensor<1x2x3x4xf32>, !stride.tensor<1x2x3xf32>
      -> !stride.tensor<1x2x3x8xf32>, !stride.tensor<1x2x5x8xf32>, !stride.tensor<1x2x5x4xf32>
  return %dq, %dk, %dv : !stride.tensor<1x2x3x8xf32>, !stride.tensor<1x2x5x8xf32>, !stride.tensor<1x2x5x4xf32>
}

// Marked for the fused library call: left alone, also by the pipeline.
// CHECK-LABEL: func.func @keep_fused
// CHECK-NEXT:  stride.attention %arg0, %arg1, %arg2 scale 2.500000e-01 causal {stride.keep_fused}
// CHECK-NEXT:  return
// PIPE-LABEL: func.func @keep_fused
// PIPE:       stride.attention {{.*}} {stride.keep_fused}
func.func @keep_fused(%q: !stride.tensor<1x2x3x8xf16>, %k: !stride.tensor<1x2x5x8xf16>,
                      %v: !stride.tensor<1x2x5x8xf16>) -> !stride.tensor<1x2x3x8xf16> {
  %o = stride.attention %q, %k, %v scale 0.25 causal {stride.keep_fused}
      : !stride.tensor<1x2x3x8xf16>, !stride.tensor<1x2x5x8xf16>, !stride.tensor<1x2x5x8xf16>
      -> !stride.tensor<1x2x3x8xf16>
  return %o : !stride.tensor<1x2x3x8xf16>
}
