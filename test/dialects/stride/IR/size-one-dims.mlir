// The stride of a dim of size 1 addresses nothing, so a view's verifier
// does not compare it (python-free-docs/layouts.md, "Dims of size 1"): the
// result type keeps the stride its author wrote. Every other stride and the
// offset are compared as before.
// RUN: stride-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The view of the LLaMA forward with one key/value head at batch 1: the
// archive claims stride 128 for dim 0, the view computes 0.
// CHECK-LABEL: func.func @llama_kv_view
// CHECK: stride.view %{{.*}} -> <1x2x8x16xf32, strides = [128, 0, 16, 1], offset = 0>
func.func @llama_kv_view(%x: !stride.tensor<1x1x8x16xf32>) {
  %u = stride.unsqueeze %x dim 2 : !stride.tensor<1x1x8x16xf32> -> !stride.tensor<1x1x1x8x16xf32, strides = [128, 128, 128, 16, 1]>
  %e = stride.expand %u : !stride.tensor<1x1x1x8x16xf32, strides = [128, 128, 128, 16, 1]> -> !stride.tensor<1x1x2x8x16xf32, strides = [128, 128, 0, 16, 1]>
  %v = stride.view %e : !stride.tensor<1x1x2x8x16xf32, strides = [128, 128, 0, 16, 1]> -> !stride.tensor<1x2x8x16xf32, strides = [128, 0, 16, 1]>
  return
}

// -----

// Each view op with a size-1 dim whose stride differs from the computed
// one: unsqueeze (the new dim), expand and permute (a kept dim), select and
// slice (a size-1 dim left over), squeeze (the operand's).
// CHECK-LABEL: func.func @each_view
// CHECK: stride.unsqueeze {{.*}} -> <4x1x3xf32, strides = [3, 7, 1]
// CHECK: stride.expand {{.*}} -> <2x4x1x3xf32, strides = [0, 3, 99, 1]
// CHECK: stride.permute {{.*}} -> <1x4x3xf32, strides = [5, 3, 1]
// CHECK: stride.select {{.*}} -> <1x3xf32, strides = [0, 1], offset = 3
// CHECK: stride.slice {{.*}} -> <1x3xf32, strides = [42, 1], offset = 6
func.func @each_view(%x: !stride.tensor<4x3xf32>, %y: !stride.tensor<4x1x3xf32>) {
  %0 = stride.unsqueeze %x dim 1 : !stride.tensor<4x3xf32> -> !stride.tensor<4x1x3xf32, strides = [3, 7, 1]>
  %1 = stride.expand %y : !stride.tensor<4x1x3xf32> -> !stride.tensor<2x4x1x3xf32, strides = [0, 3, 99, 1]>
  %2 = stride.permute %y dims [1, 0, 2] : !stride.tensor<4x1x3xf32> -> !stride.tensor<1x4x3xf32, strides = [5, 3, 1]>
  %3 = stride.select %y dim 0 index 1 : !stride.tensor<4x1x3xf32> -> !stride.tensor<1x3xf32, strides = [0, 1], offset = 3>
  %4 = stride.slice %x dim 0 start 2 end 3 step 1 : !stride.tensor<4x3xf32> -> !stride.tensor<1x3xf32, strides = [42, 1], offset = 6>
  %5 = stride.squeeze %0 dims [1] : !stride.tensor<4x1x3xf32, strides = [3, 7, 1]> -> !stride.tensor<4x3xf32>
  return
}

// -----

// A tensor with no elements addresses nothing: a view of one may claim any
// strides and offset (Stride's rule computes row-major ones).
// CHECK-LABEL: func.func @empty
// CHECK: stride.view {{.*}} -> <2x0x3xf32, strides = [5, 7, 1], offset = 9>
func.func @empty(%x: !stride.tensor<0x6xf32>) {
  %v = stride.view %x : !stride.tensor<0x6xf32> -> !stride.tensor<2x0x3xf32, strides = [5, 7, 1], offset = 9>
  return
}

// -----

// A dim of size 2 is still compared.
func.func @size_two(%x: !stride.tensor<1x1x8x16xf32>) {
  %e = stride.expand %x : !stride.tensor<1x1x8x16xf32> -> !stride.tensor<1x2x8x16xf32, strides = [128, 0, 16, 1]>
  // expected-error @+1 {{'stride.view' op result type '!stride.tensor<1x2x8x16xf32, strides = [128, 128, 16, 1], offset = 0>' does not match the layout the view computes from its operand: expected '!stride.tensor<1x2x8x16xf32, strides = [0, 0, 16, 1], offset = 0>' (the strides of dims of size 1 may differ)}}
  %v = stride.view %e : !stride.tensor<1x2x8x16xf32, strides = [128, 0, 16, 1]> -> !stride.tensor<1x2x8x16xf32, strides = [128, 128, 16, 1]>
  return
}

// -----

// So is the offset.
func.func @offset(%x: !stride.tensor<4x3xf32>) {
  // expected-error @+1 {{'stride.slice' op result type '!stride.tensor<1x3xf32, strides = [3, 1], offset = 0>' does not match the layout the view computes from its operand: expected '!stride.tensor<1x3xf32, strides = [3, 1], offset = 6>'}}
  %0 = stride.slice %x dim 0 start 2 end 3 step 1 : !stride.tensor<4x3xf32> -> !stride.tensor<1x3xf32>
  return
}
