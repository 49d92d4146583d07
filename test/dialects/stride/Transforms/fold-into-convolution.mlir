// stride-fold-into-convolution: an inference batch norm as the importer
// spells it (sub mean, mul rsqrt(var + eps), mul weight, add bias, each
// over the channels) folds into the convolution before it, and a copy into
// a channels-last layout becomes the convolution's own layout; checked
// against the unfolded graph on the reference interpreter (stride-run keeps
// it unfolded) with random inputs. A convolution read twice, an operand
// that is not per channel, a subtraction from a per-channel value and a
// transposed convolution are left alone.
// RUN: stride-opt %s --stride-fold-into-convolution | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: stride-opt %s --stride-fold-into-convolution -o %t/folded.mlir
// RUN: for e in batch_norm kept; do \
// RUN:   stride-run %s --reference --entry=$e --random-inputs --seed 5 --output-dir %t/$e && \
// RUN:   stride-run %t/folded.mlir --reference --entry=$e --random-inputs --seed 5 --expect %t/$e || exit 1; \
// RUN: done | FileCheck %s --check-prefix=SAME
// SAME-COUNT-5: : match
// SAME-NOT: MISMATCH

!y = !stride.tensor<2x4x6x6xf32>
!c = !stride.tensor<2x4x6x6xf32, strides = [0, 1, 0, 0], offset = 0>
!nhwc = !stride.tensor<2x4x6x6xf32, strides = [144, 1, 24, 4], offset = 0>

// CHECK-LABEL: func.func @batch_norm
// CHECK-NOT:   stride.sub %{{.*}}, %{{.*}} : <2x4x6x6
// CHECK:       %[[C:.*]] = stride.convolution %arg0, %{{.*}} bias %{{.*}} stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : {{.*}} -> <2x4x6x6xf32, strides = [144, 1, 24, 4], offset = 0>
// CHECK-NEXT:  return %[[C]]
func.func @batch_norm(%x: !stride.tensor<2x3x6x6xf32>, %w: !stride.tensor<4x3x3x3xf32>,
                      %mean: !stride.tensor<4xf32>, %var: !stride.tensor<4xf32>,
                      %gamma: !stride.tensor<4xf32>, %beta: !stride.tensor<4xf32>) -> !nhwc {
  %y = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
      : !stride.tensor<2x3x6x6xf32>, !stride.tensor<4x3x3x3xf32> -> !y
  %mv = stride.view %mean : !stride.tensor<4xf32> -> !stride.tensor<4x1x1xf32>
  %me = stride.expand %mv : !stride.tensor<4x1x1xf32> -> !c
  %eps = stride.full 1.0e-05 : !stride.tensor<4xf32>
  %ve = stride.add %var, %eps : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %v2 = stride.abs %ve : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %is = stride.rsqrt %v2 : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %iv = stride.view %is : !stride.tensor<4xf32> -> !stride.tensor<4x1x1xf32>
  %ie = stride.expand %iv : !stride.tensor<4x1x1xf32> -> !c
  %gv = stride.view %gamma : !stride.tensor<4xf32> -> !stride.tensor<4x1x1xf32>
  %ge = stride.expand %gv : !stride.tensor<4x1x1xf32> -> !c
  %bv = stride.view %beta : !stride.tensor<4xf32> -> !stride.tensor<4x1x1xf32>
  %be = stride.expand %bv : !stride.tensor<4x1x1xf32> -> !c
  %0 = stride.sub %y, %me : !y, !c -> !y
  %1 = stride.mul %0, %ie : !y, !c -> !y
  %2 = stride.mul %1, %ge : !y, !c -> !y
  %3 = stride.add %be, %2 : !c, !y -> !y
  %4 = stride.clone %3 : !y -> !nhwc
  return %4 : !nhwc
}

// CHECK-LABEL: func.func @kept
// CHECK:       %[[Y:.*]] = stride.convolution %arg0, %arg1 stride
// CHECK-NEXT:  stride.mul %[[Y]], %[[Y]]
// CHECK:       %[[Z:.*]] = stride.convolution %arg0, %arg1 stride
// CHECK-NEXT:  stride.mul %[[Z]], %arg2
// CHECK:       %[[U:.*]] = stride.convolution %arg0, %arg1 stride
// CHECK:       stride.sub %{{.*}}, %[[U]]
// CHECK:       %[[T:.*]] = stride.convolution %arg3, %arg4 stride {{.*}} transposed
// CHECK:       stride.add %[[T]]
func.func @kept(%x: !stride.tensor<2x3x6x6xf32>, %w: !stride.tensor<4x3x3x3xf32>, %full: !y,
                %xt: !stride.tensor<2x4x6x6xf32>, %wt: !stride.tensor<4x4x1x1xf32>,
                %c4: !stride.tensor<4xf32>) -> (!y, !y, !y, !y) {
  %y = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
      : !stride.tensor<2x3x6x6xf32>, !stride.tensor<4x3x3x3xf32> -> !y
  %0 = stride.mul %y, %y : !y, !y -> !y
  %z = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
      : !stride.tensor<2x3x6x6xf32>, !stride.tensor<4x3x3x3xf32> -> !y
  %1 = stride.mul %z, %full : !y, !y -> !y
  %cv = stride.view %c4 : !stride.tensor<4xf32> -> !stride.tensor<4x1x1xf32>
  %ce = stride.expand %cv : !stride.tensor<4x1x1xf32> -> !c
  %u = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
      : !stride.tensor<2x3x6x6xf32>, !stride.tensor<4x3x3x3xf32> -> !y
  %2 = stride.sub %ce, %u : !c, !y -> !y
  %t = stride.convolution %xt, %wt stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 transposed
      : !stride.tensor<2x4x6x6xf32>, !stride.tensor<4x4x1x1xf32> -> !y
  %3 = stride.add %t, %ce : !y, !c -> !y
  return %0, %1, %2, %3 : !y, !y, !y, !y
}
