// stride-row-major-pointwise: pointwise results packed in a permuted order
// become row-major where Stride owns their layout (Passes.td).
// RUN: stride-opt --stride-row-major-pointwise -split-input-file %s | FileCheck %s

// Whisper's residual stream: a permuted view cloned in its order, then an
// add and a mean over the rows. The clone and the add become row-major
// (the clone is the one transposing copy); the mean reads either.
// CHECK-LABEL: func.func @stream
// CHECK: %[[C:.*]] = stride.clone %{{.*}} -> <2x6x4xf32, strides = [24, 4, 1], offset = 0>
// CHECK: %[[A:.*]] = stride.add %[[C]], %arg1 {{.*}} -> <2x6x4xf32, strides = [24, 4, 1], offset = 0>
// CHECK: stride.mean %[[A]] dims [2] keepdim
// CHECK: stride.matmul
func.func @stream(%x: !stride.tensor<2x4x6xf32>, %o: !stride.tensor<2x6x4xf32>,
                  %w: !stride.tensor<2x4x4xf32>)
    -> (!stride.tensor<2x6x1xf32>, !stride.tensor<2x6x4xf32>) {
  %p = stride.permute %x dims [0, 2, 1] : !stride.tensor<2x4x6xf32> -> !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0>
  %c = stride.clone %p : !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0> -> !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0>
  %a = stride.add %c, %o : !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0>, !stride.tensor<2x6x4xf32> -> !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0>
  %m = stride.mean %a dims [2] keepdim : !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0> -> !stride.tensor<2x6x1xf32>
  %b = stride.matmul %a, %w : !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0>, !stride.tensor<2x4x4xf32> -> !stride.tensor<2x6x4xf32>
  return %m, %b : !stride.tensor<2x6x1xf32>, !stride.tensor<2x6x4xf32>
}

// -----

// Left alone: a returned result, one a view reads, a result that is
// row-major already, and one that is not packed (a slice's gaps kept by a
// clone).
// CHECK-LABEL: func.func @left_alone
// CHECK: stride.relu {{.*}} -> <2x6x4xf32, strides = [24, 1, 6], offset = 0>
// CHECK: stride.neg {{.*}} -> <2x6x4xf32, strides = [24, 1, 6], offset = 0>
// CHECK: stride.permute
// CHECK: stride.exp {{.*}} -> <2x6x4xf32, strides = [24, 4, 1], offset = 0>
// CHECK: stride.clone {{.*}} -> <2x3x4xf32, strides = [24, 1, 6], offset = 0>
func.func @left_alone(%x: !stride.tensor<2x4x6xf32>)
    -> (!stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0>, !stride.tensor<2x4x6xf32>,
        !stride.tensor<2x6x4xf32>, !stride.tensor<2x3x4xf32, strides = [24, 1, 6], offset = 0>) {
  %p = stride.permute %x dims [0, 2, 1] : !stride.tensor<2x4x6xf32> -> !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0>
  %r = stride.relu %p : !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0> -> !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0>
  %n = stride.neg %p : !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0> -> !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0>
  %v = stride.permute %n dims [0, 2, 1] : !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0> -> !stride.tensor<2x4x6xf32>
  %e = stride.exp %p : !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0> -> !stride.tensor<2x6x4xf32>
  %s = stride.slice %p dim 1 start 0 end 3 step 1 : !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0> -> !stride.tensor<2x3x4xf32, strides = [24, 1, 6], offset = 0>
  %c = stride.clone %s : !stride.tensor<2x3x4xf32, strides = [24, 1, 6], offset = 0> -> !stride.tensor<2x3x4xf32, strides = [24, 1, 6], offset = 0>
  return %r, %v, %e, %c : !stride.tensor<2x6x4xf32, strides = [24, 1, 6], offset = 0>, !stride.tensor<2x4x6xf32>, !stride.tensor<2x6x4xf32>, !stride.tensor<2x3x4xf32, strides = [24, 1, 6], offset = 0>
}

// -----

// Images keep their order: a channels-last add of rank 4 (ResNet's
// residual, as a channels-last graph gives it) is stride-convolution-layout's.
// CHECK-LABEL: func.func @image
// CHECK: stride.add {{.*}} -> <2x4x3x3xbf16, strides = [36, 1, 12, 4], offset = 0>
func.func @image(%a: !stride.tensor<2x4x3x3xbf16, strides = [36, 1, 12, 4], offset = 0>,
                 %b: !stride.tensor<2x4x3x3xbf16, strides = [36, 1, 12, 4], offset = 0>)
    -> !stride.tensor<2x4x3x3xbf16> {
  %s = stride.add %a, %b : !stride.tensor<2x4x3x3xbf16, strides = [36, 1, 12, 4], offset = 0>, !stride.tensor<2x4x3x3xbf16, strides = [36, 1, 12, 4], offset = 0> -> !stride.tensor<2x4x3x3xbf16, strides = [36, 1, 12, 4], offset = 0>
  %r = stride.relu %s : !stride.tensor<2x4x3x3xbf16, strides = [36, 1, 12, 4], offset = 0> -> !stride.tensor<2x4x3x3xbf16>
  return %r : !stride.tensor<2x4x3x3xbf16>
}
