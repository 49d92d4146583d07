// --stride-print-dot: one cluster per function and per kernel, edges
// labelled with shapes (and strides where not row-major); the IR is
// unchanged. Without fusion there are no kernel clusters.
// RUN: stride-opt --stride-fuse --stride-print-dot -o /dev/null %s | FileCheck %s
// RUN: stride-opt --stride-print-dot -o /dev/null %s | FileCheck %s --check-prefix=UNFUSED
// RUN: stride-opt --stride-fuse --stride-print-dot=output=%t.dot %s | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s < %t.dot

// CHECK:      digraph "stride" {
// CHECK:        subgraph cluster_f0_func {
// CHECK-NEXT:     label="func @seed_backward";
// CHECK:          f0_arg0 [label="arg 0", shape=ellipse];
// CHECK-NEXT:     subgraph cluster_f0_k0 {
// CHECK-NEXT:       label="kernel full_slice_scatter";
// CHECK:            [[U:f0_n[0-9]+]] [label="unsqueeze\ndim 1", style="rounded,dashed"];
// CHECK-NEXT:       [[E:f0_n[0-9]+]] [label="expand", style="rounded,dashed"];
// CHECK-NEXT:       [[F:f0_n[0-9]+]] [label="full\n0"];
// CHECK-NEXT:       [[S:f0_n[0-9]+]] [label="slice_scatter\ndim 1 start 0 end 6 step 1"];
// CHECK-NEXT:     }
// CHECK-NEXT:     f0_result0 [label="result 0", shape=ellipse];
// CHECK-NEXT:     f0_arg0 -> [[U]] [label="4x33xf32"];
// CHECK-NEXT:     [[U]] -> [[E]] [label="4x1x33xf32"];
// CHECK-NEXT:     [[E]] -> [[S]] [label="4x13x33xf32\n[33, 0, 1]"];
// CHECK-NEXT:     [[F]] -> [[S]] [label="4x6x33xf32"];
// CHECK-NEXT:     [[S]] -> f0_result0 [label="4x13x33xf32"];
// CHECK-NEXT:   }
// CHECK:        subgraph cluster_f1_func {
// CHECK-NEXT:     label="func @softmax";
// CHECK:          label="kernel max_sub_exp_sum_div";
// CHECK:          f1_n{{[0-9]+}} -> f1_result0 [label="8x16xf32"];
// CHECK-NEXT:   }
// CHECK-NEXT: }

// UNFUSED-NOT: kernel
// UNFUSED: label="func @seed_backward"
// UNFUSED-NOT: kernel

// IR: stride.kernel "full_slice_scatter"

func.func @seed_backward(%g: !stride.tensor<4x33xf32>) -> !stride.tensor<4x13x33xf32> {
  %u = stride.unsqueeze %g dim 1 : !stride.tensor<4x33xf32>
      -> !stride.tensor<4x1x33xf32, strides = [33, 33, 1], offset = 0>
  %e = stride.expand %u : !stride.tensor<4x1x33xf32, strides = [33, 33, 1], offset = 0>
      -> !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0>
  %zeros = stride.full 0.0 : !stride.tensor<4x6x33xf32>
  %grad = stride.slice_scatter %e, %zeros dim 1 start 0 end 6 step 1
      : !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0>,
        !stride.tensor<4x6x33xf32> -> !stride.tensor<4x13x33xf32>
  return %grad : !stride.tensor<4x13x33xf32>
}

func.func @softmax(%x: !stride.tensor<8x16xf32>) -> !stride.tensor<8x16xf32> {
  %m = stride.max %x dims [1] keepdim : !stride.tensor<8x16xf32> -> !stride.tensor<8x1xf32>
  %mb = stride.expand %m : !stride.tensor<8x1xf32>
      -> !stride.tensor<8x16xf32, strides = [1, 0], offset = 0>
  %d = stride.sub %x, %mb : !stride.tensor<8x16xf32>,
      !stride.tensor<8x16xf32, strides = [1, 0], offset = 0> -> !stride.tensor<8x16xf32>
  %e = stride.exp %d : !stride.tensor<8x16xf32> -> !stride.tensor<8x16xf32>
  %s = stride.sum %e dims [1] keepdim : !stride.tensor<8x16xf32> -> !stride.tensor<8x1xf32>
  %sb = stride.expand %s : !stride.tensor<8x1xf32>
      -> !stride.tensor<8x16xf32, strides = [1, 0], offset = 0>
  %y = stride.div %e, %sb : !stride.tensor<8x16xf32>,
      !stride.tensor<8x16xf32, strides = [1, 0], offset = 0> -> !stride.tensor<8x16xf32>
  return %y : !stride.tensor<8x16xf32>
}
