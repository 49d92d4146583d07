// stride-decompose-convolution: each convolution as its padded input's
// windows (one strided view), a product per group and the bias; checked
// against the op itself on the reference interpreter with random inputs
// (grouped, strided, dilated, padded; a 1x1 kernel over a channels-last
// input, to a row-major and to a channels-last result; depthwise over a
// channels-last input; transposed with groups, output_padding and a padding that crops;
// 1-D and 3-D; bf16).
// RUN: stride-opt %s --stride-decompose-convolution | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: stride-opt %s --stride-decompose-convolution -o %t/decomposed.mlir
// RUN: for e in grouped pointwise_nhwc nhwc_result nhwc_result_bias depthwise_nhwc transposed transposed_crop conv3d weight_gradient weight_gradient_1d_f64 weight_gradient_nhwc; do \
// RUN:   stride-run %s --reference --entry=$e --random-inputs --seed 3 --output-dir %t/$e && \
// RUN:   stride-run %t/decomposed.mlir --reference --entry=$e --random-inputs --seed 3 --expect %t/$e || exit 1; \
// RUN: done | FileCheck %s --check-prefix=SAME
// RUN: stride-run %s --reference --entry=bf16 --random-inputs --seed 3 --output-dir %t/bf16
// RUN: stride-run %t/decomposed.mlir --reference --entry=bf16 --random-inputs --seed 3 --expect %t/bf16 --rtol 2e-2 | FileCheck %s --check-prefix=BF16
// SAME-COUNT-11: result0: match
// SAME-NOT: MISMATCH
// BF16: result0: match

// CHECK-LABEL: func.func @grouped
// CHECK:      stride.full 0.000000e+00 : <2x4x1x6xf32
// CHECK:      %[[H:.*]] = stride.cat %{{.*}}, %arg0, %{{.*}} dim 2
// CHECK:      %[[P:.*]] = stride.cat %{{.*}}, %[[H]], %{{.*}} dim 3 : {{.*}} -> <2x4x9x10xf32
// CHECK:      %[[WV:.*]] = stride.view %arg1 : {{.*}} -> <2x2x12xf32
// CHECK:      %[[W:.*]] = stride.as_strided %[[P]] : {{.*}} -> <2x2x2x3x2x3x5xf32, strides = [360, 180, 90, 20, 1, 20, 2], offset = 0>
// CHECK:      %[[COPY:.*]] = stride.clone %[[W]]
// CHECK:      %[[COLS:.*]] = stride.view %[[COPY]] : {{.*}} -> <2x2x12x15xf32
// CHECK:      stride.unsqueeze %[[WV]] dim 0
// CHECK:      %[[WE:.*]] = stride.expand {{.*}} -> <2x2x2x12xf32, strides = [0, 24, 12, 1], offset = 0>
// CHECK:      %[[M:.*]] = stride.matmul %[[WE]], %[[COLS]] : {{.*}} -> <2x2x2x15xf32
// CHECK:      stride.view %[[M]] : {{.*}} -> <2x4x3x5xf32
// CHECK:      stride.expand
// CHECK:      stride.add
// CHECK-NOT:  stride.convolution
func.func @grouped(%x: !stride.tensor<2x4x7x6xf32>, %w: !stride.tensor<4x2x3x2xf32>,
                   %b: !stride.tensor<4xf32>) -> !stride.tensor<2x4x3x5xf32> {
  %y = stride.convolution %x, %w bias %b stride [2, 2] padding [1, 2] dilation [2, 1] groups 2
      : !stride.tensor<2x4x7x6xf32>, !stride.tensor<4x2x3x2xf32>, !stride.tensor<4xf32>
      -> !stride.tensor<2x4x3x5xf32>
  return %y : !stride.tensor<2x4x3x5xf32>
}

// A 1x1 kernel of stride 1 over a channels-last input: the windows are a
// view, no copy; the product (the weight broadcast over the batch times the
// windows) is the row-major result.
// CHECK-LABEL: func.func @pointwise_nhwc
// CHECK:       stride.view %arg1
// CHECK-NEXT:  stride.as_strided %arg0
// CHECK-NEXT:  stride.view {{.*}} -> <2x1x3x15xf32
// CHECK-NEXT:  stride.unsqueeze
// CHECK-NEXT:  stride.expand
// CHECK-NEXT:  stride.matmul
// CHECK-NEXT:  stride.view {{.*}} -> <2x8x5x3xf32, strides = [120, 15, 3, 1], offset = 0>
// CHECK-NEXT:  return
!pw = !stride.tensor<2x3x5x3xf32, strides = [45, 1, 9, 3], offset = 0>
func.func @pointwise_nhwc(%x: !pw, %w: !stride.tensor<8x3x1x1xf32>) -> !stride.tensor<2x8x5x3xf32> {
  %y = stride.convolution %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1
      : !pw, !stride.tensor<8x3x1x1xf32> -> !stride.tensor<2x8x5x3xf32>
  return %y : !stride.tensor<2x8x5x3xf32>
}

// A channels-last result: the windows [G, N * P, C/G * K] times the
// transposed weight, whose product [N * P, C_out] is that layout, no copy.
// CHECK-LABEL: func.func @nhwc_result
// CHECK:       stride.as_strided %arg0
// CHECK-NEXT:  stride.view {{.*}} -> <1x30x3xf32
// CHECK:       stride.matmul
// CHECK:       stride.permute
// CHECK-NEXT:  stride.view {{.*}} -> <2x8x5x3xf32, strides = [120, 1, 24, 8], offset = 0>
// CHECK-NEXT:  return
!pwout = !stride.tensor<2x8x5x3xf32, strides = [120, 1, 24, 8], offset = 0>
func.func @nhwc_result(%x: !pw, %w: !stride.tensor<8x3x1x1xf32>) -> !pwout {
  %y = stride.convolution %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1
      : !pw, !stride.tensor<8x3x1x1xf32> -> !pwout
  return %y : !pwout
}

// With a bias, one group: the bias is added to the product [1, N * P, C_out]
// (broadcast over its rows), the form stride-fuse folds into cuBLASLt's
// epilogue, before the product is viewed as the image.
// CHECK-LABEL: func.func @nhwc_result_bias
// CHECK:       %[[P:.*]] = stride.matmul {{.*}} -> <1x30x8xf32
// CHECK-NEXT:  %[[B:.*]] = stride.expand %arg2 {{.*}} -> <1x30x8xf32, strides = [0, 0, 1], offset = 0>
// CHECK-NEXT:  stride.add %[[P]], %[[B]]
// CHECK-NOT:   stride.add
// CHECK:       return
func.func @nhwc_result_bias(%x: !pw, %w: !stride.tensor<8x3x1x1xf32>, %b: !stride.tensor<8xf32>) -> !pwout {
  %y = stride.convolution %x, %w bias %b stride [1, 1] padding [0, 0] dilation [1, 1] groups 1
      : !pw, !stride.tensor<8x3x1x1xf32>, !stride.tensor<8xf32> -> !pwout
  return %y : !pwout
}

!nhwc = !stride.tensor<2x3x5x6xf32, strides = [90, 1, 18, 3], offset = 0>
func.func @depthwise_nhwc(%x: !nhwc, %w: !stride.tensor<3x1x3x3xf32>) -> !stride.tensor<2x3x5x6xf32> {
  %y = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 3
      : !nhwc, !stride.tensor<3x1x3x3xf32> -> !stride.tensor<2x3x5x6xf32>
  return %y : !stride.tensor<2x3x5x6xf32>
}

// CHECK-LABEL: func.func @transposed
// CHECK:       stride.slice_scatter
// CHECK:       stride.index_select
// CHECK:       stride.matmul
func.func @transposed(%x: !stride.tensor<2x4x3x4xf32>, %w: !stride.tensor<4x3x3x2xf32>,
                      %b: !stride.tensor<6xf32>) -> !stride.tensor<2x6x6x14xf32> {
  %y = stride.convolution %x, %w bias %b stride [2, 3] padding [1, 0] dilation [1, 2] groups 2
      transposed output_padding [1, 2]
      : !stride.tensor<2x4x3x4xf32>, !stride.tensor<4x3x3x2xf32>, !stride.tensor<6xf32>
      -> !stride.tensor<2x6x6x14xf32>
  return %y : !stride.tensor<2x6x6x14xf32>
}

// Padding 2 over a kernel of 2: the zero-inserted input is cropped by one
// element at each end.
// CHECK-LABEL: func.func @transposed_crop
// CHECK:       stride.slice {{.*}} dim 2 start 1 end 12
func.func @transposed_crop(%x: !stride.tensor<1x2x5xf32>, %w: !stride.tensor<2x3x2xf32>)
    -> !stride.tensor<1x3x10xf32> {
  %y = stride.convolution %x, %w stride [3] padding [2] dilation [1] groups 1 transposed
      : !stride.tensor<1x2x5xf32>, !stride.tensor<2x3x2xf32> -> !stride.tensor<1x3x10xf32>
  return %y : !stride.tensor<1x3x10xf32>
}

func.func @conv3d(%x: !stride.tensor<1x2x4x5x3xf32>, %w: !stride.tensor<3x2x2x3x2xf32>)
    -> !stride.tensor<1x3x2x3x3xf32> {
  %y = stride.convolution %x, %w stride [2, 2, 1] padding [0, 1, 1] dilation [1, 1, 2] groups 1
      : !stride.tensor<1x2x4x5x3xf32>, !stride.tensor<3x2x2x3x2xf32> -> !stride.tensor<1x3x2x3x3xf32>
  return %y : !stride.tensor<1x3x2x3x3xf32>
}

func.func @bf16(%x: !stride.tensor<2x8x6x6xbf16>, %w: !stride.tensor<4x8x3x3xbf16>,
                %b: !stride.tensor<4xbf16>) -> !stride.tensor<2x4x6x6xbf16> {
  %y = stride.convolution %x, %w bias %b stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
      : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<4x8x3x3xbf16>, !stride.tensor<4xbf16>
      -> !stride.tensor<2x4x6x6xbf16>
  return %y : !stride.tensor<2x4x6x6xbf16>
}

// A weight gradient (grouped, strided, dilated) becomes a forward
// convolution of the input viewed [C/G, G N, X..] by the output's gradient
// viewed [C_out, N, Y..], stride and dilation swapped, cut to the kernel
// and permuted; that convolution is decomposed in turn.
// CHECK-LABEL: func.func @weight_gradient
// CHECK:      %[[XG:.*]] = stride.view %arg0 : {{.*}} -> <2x2x2x8x6xf32
// CHECK:      %[[XP:.*]] = stride.permute %[[XG]] dims [2, 1, 0, 3, 4]
// CHECK:      %[[XC:.*]] = stride.clone %[[XP]]
// CHECK:      stride.view %[[XC]] : {{.*}} -> <2x4x8x6xf32
// CHECK:      %[[DG:.*]] = stride.view %arg1 : {{.*}} -> <2x2x3x4x4xf32
// CHECK:      stride.permute %[[DG]] dims [1, 2, 0, 3, 4]
// CHECK:      stride.matmul
// CHECK:      stride.slice
// CHECK:      stride.permute {{.*}} dims [1, 0, 2, 3]
// CHECK-NOT:  stride.convolution
func.func @weight_gradient(%x: !stride.tensor<2x4x8x6xf32>, %dy: !stride.tensor<2x6x4x4xf32>) -> !stride.tensor<6x2x3x3xf32> {
  %dw = stride.convolution_weight_gradient %x, %dy stride [2, 1] padding [1, 1] dilation [1, 2] groups 2
      : !stride.tensor<2x4x8x6xf32>, !stride.tensor<2x6x4x4xf32> -> !stride.tensor<6x2x3x3xf32>
  return %dw : !stride.tensor<6x2x3x3xf32>
}

// A 1-D f64 weight gradient (what cuDNN does not take).
// CHECK-LABEL: func.func @weight_gradient_1d_f64
// CHECK-NOT:  stride.convolution
// CHECK:      stride.matmul {{.*}} -> <3x1x4x3xf64
func.func @weight_gradient_1d_f64(%x: !stride.tensor<2x3x9xf64>, %dy: !stride.tensor<2x4x4xf64>) -> !stride.tensor<4x3x3xf64> {
  %dw = stride.convolution_weight_gradient %x, %dy stride [2] padding [0] dilation [1] groups 1
      : !stride.tensor<2x3x9xf64>, !stride.tensor<2x4x4xf64> -> !stride.tensor<4x3x3xf64>
  return %dw : !stride.tensor<4x3x3xf64>
}

// A channels-last input and a channels-last result.
// CHECK-LABEL: func.func @weight_gradient_nhwc
// CHECK-NOT:  stride.convolution
func.func @weight_gradient_nhwc(%x: !stride.tensor<2x4x5x5xf32, strides = [100, 1, 20, 4], offset = 0>, %dy: !stride.tensor<2x4x3x3xf32>) -> !stride.tensor<4x2x3x3xf32, strides = [18, 1, 6, 2], offset = 0> {
  %dw = stride.convolution_weight_gradient %x, %dy stride [2, 2] padding [1, 1] dilation [1, 1] groups 2
      : !stride.tensor<2x4x5x5xf32, strides = [100, 1, 20, 4], offset = 0>, !stride.tensor<2x4x3x3xf32> -> !stride.tensor<4x2x3x3xf32, strides = [18, 1, 6, 2], offset = 0>
  return %dw : !stride.tensor<4x2x3x3xf32, strides = [18, 1, 6, 2], offset = 0>
}
