// A stride.kernel runs its body with the same op implementations as the
// unfused graph (bit-identical results) and copies each yielded value into a
// fresh buffer with the kernel result's layout (here a yielded zero-stride
// view becomes a dense buffer).
// RUN: stride-run %s --reference --entry=fused --print | FileCheck %s
// RUN: stride-run %s --reference --entry=unfused --print | FileCheck %s

func.func @fused() -> (!stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>) {
  %a = stride.iota dim 0 : !stride.tensor<6xf32>
  %x = stride.view %a : !stride.tensor<6xf32>
      -> !stride.tensor<2x3xf32, strides = [3, 1], offset = 0>
  %src = stride.full 0.5 : !stride.tensor<2x1xf32>
  %r:2 = stride.kernel "scatter_sum" ins(%x, %src
      : !stride.tensor<2x3xf32, strides = [3, 1], offset = 0>,
        !stride.tensor<2x1xf32>) -> (!stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>) {
  ^bb0(%in: !stride.tensor<2x3xf32, strides = [3, 1], offset = 0>,
       %s: !stride.tensor<2x1xf32>):
    %sc = stride.slice_scatter %in, %s dim 1 start 0 end 1 step 1
        : !stride.tensor<2x3xf32, strides = [3, 1], offset = 0>,
          !stride.tensor<2x1xf32> -> !stride.tensor<2x3xf32>
    %t = stride.tanh %sc : !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
    %sum = stride.sum %t dims [1] keepdim : !stride.tensor<2x3xf32>
        -> !stride.tensor<2x1xf32>
    %e = stride.expand %sum : !stride.tensor<2x1xf32>
        -> !stride.tensor<2x3xf32, strides = [1, 0], offset = 0>
    stride.yield %t, %e : !stride.tensor<2x3xf32>,
        !stride.tensor<2x3xf32, strides = [1, 0], offset = 0>
  }
  return %r#0, %r#1 : !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>
}

func.func @unfused() -> (!stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>) {
  %a = stride.iota dim 0 : !stride.tensor<6xf32>
  %x = stride.view %a : !stride.tensor<6xf32>
      -> !stride.tensor<2x3xf32, strides = [3, 1], offset = 0>
  %src = stride.full 0.5 : !stride.tensor<2x1xf32>
  %sc = stride.slice_scatter %x, %src dim 1 start 0 end 1 step 1
      : !stride.tensor<2x3xf32, strides = [3, 1], offset = 0>,
        !stride.tensor<2x1xf32> -> !stride.tensor<2x3xf32>
  %t = stride.tanh %sc : !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  %sum = stride.sum %t dims [1] keepdim : !stride.tensor<2x3xf32>
      -> !stride.tensor<2x1xf32>
  %e = stride.expand %sum : !stride.tensor<2x1xf32>
      -> !stride.tensor<2x3xf32, strides = [1, 0], offset = 0>
  %d = stride.clone %e : !stride.tensor<2x3xf32, strides = [1, 0], offset = 0>
      -> !stride.tensor<2x3xf32>
  return %t, %d : !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>
}

// CHECK: result0: f32 [2, 3]
// CHECK-NEXT: {{\[\[}}0.46211717, 0.7615942, 0.9640276],
// CHECK-NEXT: [0.46211717, 0.9993293, 0.9999092]]
// CHECK-NEXT: result1: f32 [2, 3]
// CHECK-NEXT: {{\[\[}}2.187739, 2.187739, 2.187739],
// CHECK-NEXT: [2.4613557, 2.4613557, 2.4613557]]
