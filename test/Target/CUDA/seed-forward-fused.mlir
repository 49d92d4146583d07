// The seed's forward graph as the fusion pass forms it: one kernel that reads
// all 4x13x33 = 1716 elements of the scattered tensor (rows [0, 6) from src,
// the rest from x) while it sums over dim 1.
// RUN: stridec --emit=cuda %s | FileCheck %s
// RUN: stridec --emit=ptx %s -o %t.ptx

func.func @seed_forward_fused(%x: !stride.tensor<4x13x33xf32>,
                              %src: !stride.tensor<4x6x33xf32>)
    -> !stride.tensor<4x33xf32> {
  %r = stride.kernel "slice_scatter_sum" ins(%x, %src : !stride.tensor<4x13x33xf32>,
      !stride.tensor<4x6x33xf32>) -> (!stride.tensor<4x33xf32>) {
  ^bb0(%a: !stride.tensor<4x13x33xf32>, %b: !stride.tensor<4x6x33xf32>):
    %s = stride.slice_scatter %a, %b dim 1 start 0 end 6 step 1
        : !stride.tensor<4x13x33xf32>, !stride.tensor<4x6x33xf32>
        -> !stride.tensor<4x13x33xf32>
    %t = stride.sum %s dims [1] : !stride.tensor<4x13x33xf32> -> !stride.tensor<4x33xf32>
    stride.yield %t : !stride.tensor<4x33xf32>
  }
  return %r : !stride.tensor<4x33xf32>
}

// CHECK-LABEL: // Kernel slice_scatter_sum: slice_scatter + sum (seed-forward-fused.mlir:13:10, 16:10)
// CHECK-NEXT: //   stride.slice_scatter at seed-forward-fused.mlir:13:10
// CHECK-NEXT: //   stride.sum at seed-forward-fused.mlir:16:10
// CHECK: slice_scatter_sum(const float *__restrict__ in0, const float *__restrict__ in1, float *__restrict__ out0)
// CHECK: reduction of 4x13x33 over dims [1]: 132 outputs (4x33) x 13 reduced elements = 1716 elements read
// CHECK: for (idx_t [[R:r[0-9]+]] = 0; [[R]] < 13; [[R]] += 1)
// CHECK-NEXT: const idx_t [[ROW:i[0-9]+]] = [[R]];
// CHECK: if ([[ROW]] < 6)
// CHECK-NEXT: stride_ld(&in1[{{.*}}[[ROW]] * 33
// CHECK: } else {
// CHECK-NEXT: stride_ld(&in0[{{.*}}[[ROW]] * 33
// CHECK: acc0 = stride_add(acc0,
// CHECK: stride_st(&out0[
