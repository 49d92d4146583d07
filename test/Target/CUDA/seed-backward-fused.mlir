// The seed's backward graph as the fusion pass forms it: one kernel that
// writes all 4x13x33 = 1716 elements of the dense [429, 33, 1] result and
// reads g through the broadcast layout [33, 0, 1].
// RUN: stridec --emit=cuda %s | FileCheck %s
// RUN: stridec --emit=ptx %s -o %t.ptx

func.func @seed_backward_fused(%g: !stride.tensor<4x33xf32>)
    -> !stride.tensor<4x13x33xf32> {
  %r = stride.kernel "seed_backward" ins(%g : !stride.tensor<4x33xf32>)
      -> (!stride.tensor<4x13x33xf32>) {
  ^bb0(%a: !stride.tensor<4x33xf32>):
    %u = stride.unsqueeze %a dim 1 : !stride.tensor<4x33xf32>
        -> !stride.tensor<4x1x33xf32, strides = [33, 33, 1], offset = 0>
    %e = stride.expand %u : !stride.tensor<4x1x33xf32, strides = [33, 33, 1], offset = 0>
        -> !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0>
    %z = stride.full 0.0 : !stride.tensor<4x6x33xf32>
    %s = stride.slice_scatter %e, %z dim 1 start 0 end 6 step 1
        : !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0>,
          !stride.tensor<4x6x33xf32> -> !stride.tensor<4x13x33xf32>
    stride.yield %s : !stride.tensor<4x13x33xf32>
  }
  return %r : !stride.tensor<4x13x33xf32>
}

// CHECK-LABEL: // Kernel seed_backward: full + slice_scatter (seed-backward-fused.mlir:16:10, 17:10)
// CHECK: seed_backward(const float *__restrict__ in0, float *__restrict__ out0)
// CHECK-NOT: 132
// CHECK: // iteration space: 1716 elements (4x13x33)
// CHECK-NOT: 132
// CHECK: [[L:linear[0-9]+]] < 1716;
// CHECK-NOT: 132
// CHECK: if ([[ROW:i[0-9]+]] < 6)
// CHECK-NEXT: [[V:v[0-9]+]] = 0.0f;
// CHECK: } else {
// CHECK-NEXT: const float [[G:v[0-9]+]] = stride_ld(&in0[[[B:i[0-9]+]] * 33 + [[C:i[0-9]+]]]);
// CHECK-NOT: 132
// CHECK: stride_st(&out0[[[B]] * 429 + [[ROW]] * 33 + [[C]]], [[V]]);
