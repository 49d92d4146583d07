// stride-shrink-shapes on one class (numbered in program order of its
// first dim: class 0 is the 4s, class 1 the 8s) to a given size (the
// example of the pass's description).
// RUN: stride-opt "--stride-shrink-shapes=class=1 size=1" %s | FileCheck %s --check-prefix=ONE
// RUN: stride-opt "--stride-shrink-shapes=class=0 size=3" %s | FileCheck %s --check-prefix=THREE

// Class 1, the 8s, only.
// ONE-LABEL: func.func @transpose
// ONE-SAME: (%[[X:.*]]: !stride.tensor<4x1xf32, strides = [1, 1], offset = 0>, %[[Y:.*]]: !stride.tensor<1x4xf32, strides = [4, 1], offset = 0>) -> !stride.tensor<4x1xf32, strides = [1, 1], offset = 0>
// ONE: %[[T:.*]] = stride.permute %[[Y]] dims [1, 0] : <1x4xf32, strides = [4, 1], offset = 0> -> <4x1xf32, strides = [1, 4], offset = 0>
// ONE: stride.add %[[X]], %[[T]] : <4x1xf32, strides = [1, 1], offset = 0>, <4x1xf32, strides = [1, 4], offset = 0> -> <4x1xf32, strides = [1, 1], offset = 0>

// Class 0, the 4s, to 3.
// THREE-LABEL: func.func @transpose
// THREE-SAME: (%{{.*}}: !stride.tensor<3x8xf32, strides = [8, 1], offset = 0>, %{{.*}}: !stride.tensor<8x3xf32, strides = [3, 1], offset = 0>)
// THREE: stride.permute {{.*}} -> <3x8xf32, strides = [1, 3], offset = 0>
func.func @transpose(%x: !stride.tensor<4x8xf32>, %y: !stride.tensor<8x4xf32>)
    -> !stride.tensor<4x8xf32> {
  %t = stride.permute %y dims [1, 0] : !stride.tensor<8x4xf32>
      -> !stride.tensor<4x8xf32, strides = [1, 4], offset = 0>
  %s = stride.add %x, %t : !stride.tensor<4x8xf32>,
      !stride.tensor<4x8xf32, strides = [1, 4], offset = 0>
      -> !stride.tensor<4x8xf32>
  return %s : !stride.tensor<4x8xf32>
}
