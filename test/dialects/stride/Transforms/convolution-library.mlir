// stride-convolution-library keeps the convolutions cuDNN takes whole
// (python-free-docs/convolution.md, "The cuDNN step"), copies the operands
// and results whose layouts cuDNN does not read or write, and keeps a bias
// in cuDNN's graph only for f16/bf16 channels-last forward convolutions.
// RUN: stride-opt --stride-convolution-library -split-input-file %s | FileCheck %s
// RUN: stride-opt "--stride-convolution-library=convolutions=generated" -split-input-file %s | FileCheck %s --check-prefix=GEN
// RUN: stride-opt "--stride-convolution-library=convolutions=library" -split-input-file -verify-diagnostics %s | FileCheck %s --check-prefix=LIB
// RUN: not stride-opt "--stride-convolution-library=convolutions=sometimes" %s 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: unknown convolutions policy 'sometimes'; expected auto, library or generated

// An f32 convolution: kept, its bias added after it.
// CHECK-LABEL: func.func @f32_bias
// CHECK: %[[C:.*]] = stride.convolution %arg0, %arg1 stride [2, 2] padding [1, 1] dilation [1, 1] groups 2 {stride.keep_fused}
// CHECK: %[[V:.*]] = stride.view %arg2 {{.*}} -> <1x6x1x1xf32
// CHECK: %[[E:.*]] = stride.expand %[[V]] {{.*}} strides = [0, 1, 0, 0]
// CHECK: %[[S:.*]] = stride.add %[[C]], %[[E]]
// CHECK: return %[[S]]
// GEN-LABEL: func.func @f32_bias
// GEN-NOT: keep_fused
// GEN: stride.convolution %arg0, %arg1 bias %arg2
func.func @f32_bias(%x: !stride.tensor<2x4x8x8xf32>, %w: !stride.tensor<6x2x3x3xf32>, %b: !stride.tensor<6xf32>) -> !stride.tensor<2x6x4x4xf32> {
  %y = stride.convolution %x, %w bias %b stride [2, 2] padding [1, 1] dilation [1, 1] groups 2 : !stride.tensor<2x4x8x8xf32>, !stride.tensor<6x2x3x3xf32>, !stride.tensor<6xf32> -> !stride.tensor<2x6x4x4xf32>
  return %y : !stride.tensor<2x6x4x4xf32>
}

// -----

// bf16 channels-last: the bias stays in cuDNN's graph; channels-last
// operands are read in place.
// CHECK-LABEL: func.func @bf16_nhwc
// CHECK-NOT: stride.clone
// CHECK: stride.convolution %arg0, %arg1 bias %arg2 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 {stride.keep_fused}
// CHECK-NOT: stride.add
func.func @bf16_nhwc(%x: !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, %w: !stride.tensor<16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0>, %b: !stride.tensor<16xbf16>) -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> {
  %y = stride.convolution %x, %w bias %b stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, !stride.tensor<16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0>, !stride.tensor<16xbf16> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  return %y : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
}

// -----

// A pointwise convolution (1x1, stride 1, no padding, one group) whose input
// and result are channels-last is one matrix product as it stands: auto
// leaves it to the decomposition (cuBLASLt); library keeps it for cuDNN.
// Padded, strided or row-major, it stays with cuDNN.
// CHECK-LABEL: func.func @pointwise_product
// CHECK: stride.convolution %arg0, %arg1 bias %arg2 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 :
// CHECK: stride.convolution %arg0, %arg1 bias %arg2 stride [2, 2] padding [0, 0] dilation [1, 1] groups 1 {stride.keep_fused}
// CHECK: stride.convolution %arg0, %arg1 bias %arg2 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 {stride.keep_fused}
// CHECK: stride.convolution {{.*}} stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 {stride.keep_fused}
// LIB-LABEL: func.func @pointwise_product
// LIB: stride.convolution %arg0, %arg1 bias %arg2 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 {stride.keep_fused}
func.func @pointwise_product(%x: !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, %w: !stride.tensor<16x8x1x1xbf16>, %b: !stride.tensor<16xbf16>, %xr: !stride.tensor<2x8x4x4xbf16>)
    -> (!stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>, !stride.tensor<2x16x2x2xbf16, strides = [64, 1, 32, 16], offset = 0>, !stride.tensor<2x16x6x6xbf16, strides = [576, 1, 96, 16], offset = 0>, !stride.tensor<2x16x4x4xbf16>) {
  %y = stride.convolution %x, %w bias %b stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, !stride.tensor<16x8x1x1xbf16>, !stride.tensor<16xbf16> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  %s = stride.convolution %x, %w bias %b stride [2, 2] padding [0, 0] dilation [1, 1] groups 1 : !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, !stride.tensor<16x8x1x1xbf16>, !stride.tensor<16xbf16> -> !stride.tensor<2x16x2x2xbf16, strides = [64, 1, 32, 16], offset = 0>
  %p = stride.convolution %x, %w bias %b stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, !stride.tensor<16x8x1x1xbf16>, !stride.tensor<16xbf16> -> !stride.tensor<2x16x6x6xbf16, strides = [576, 1, 96, 16], offset = 0>
  %r = stride.convolution %xr, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : !stride.tensor<2x8x4x4xbf16>, !stride.tensor<16x8x1x1xbf16> -> !stride.tensor<2x16x4x4xbf16>
  return %y, %s, %p, %r : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>, !stride.tensor<2x16x2x2xbf16, strides = [64, 1, 32, 16], offset = 0>, !stride.tensor<2x16x6x6xbf16, strides = [576, 1, 96, 16], offset = 0>, !stride.tensor<2x16x4x4xbf16>
}

// -----

// bf16 channels-last, but 3 input channels (ResNet's stem): no fusion
// engine reads them, so the bias is added after the call. (Its windows
// copied into a matrix and one cuBLASLt product took 0.65 ms on an H200,
// cuDNN 0.45: bench/NOTES.md section 66.)
// CHECK-LABEL: func.func @bf16_stem
// CHECK: %[[C:.*]] = stride.convolution %arg0, %arg1 stride [2, 2] padding [3, 3] dilation [1, 1] groups 1 {stride.keep_fused}
// CHECK: stride.add %[[C]]
func.func @bf16_stem(%x: !stride.tensor<2x3x8x8xbf16, strides = [192, 1, 24, 3], offset = 0>, %w: !stride.tensor<16x3x7x7xbf16, strides = [147, 1, 21, 3], offset = 0>, %b: !stride.tensor<16xbf16>) -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> {
  %y = stride.convolution %x, %w bias %b stride [2, 2] padding [3, 3] dilation [1, 1] groups 1 : !stride.tensor<2x3x8x8xbf16, strides = [192, 1, 24, 3], offset = 0>, !stride.tensor<16x3x7x7xbf16, strides = [147, 1, 21, 3], offset = 0>, !stride.tensor<16xbf16> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  return %y : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
}

// -----

// An input cuDNN does not read in place (every other column: not packed)
// is copied dense first; a result of another layout (W outermost) is
// written dense and copied into it.
// CHECK-LABEL: func.func @copies
// CHECK: %[[X:.*]] = stride.clone %arg0 {{.*}} -> <1x2x5x5xf32, strides = [50, 25, 5, 1], offset = 0>
// CHECK: %[[C:.*]] = stride.convolution %[[X]], %arg1 {{.*}} {stride.keep_fused} {{.*}} -> <1x3x3x3xf32, strides = [27, 9, 3, 1], offset = 0>
// CHECK: %[[R:.*]] = stride.clone %[[C]] {{.*}} -> <1x3x3x3xf32, strides = [27, 1, 3, 9], offset = 0>
// CHECK: return %[[R]]
func.func @copies(%x: !stride.tensor<1x2x5x5xf32, strides = [100, 50, 10, 2], offset = 0>, %w: !stride.tensor<3x2x3x3xf32>) -> !stride.tensor<1x3x3x3xf32, strides = [27, 1, 3, 9], offset = 0> {
  %y = stride.convolution %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : !stride.tensor<1x2x5x5xf32, strides = [100, 50, 10, 2], offset = 0>, !stride.tensor<3x2x3x3xf32> -> !stride.tensor<1x3x3x3xf32, strides = [27, 1, 3, 9], offset = 0>
  return %y : !stride.tensor<1x3x3x3xf32, strides = [27, 1, 3, 9], offset = 0>
}

// -----

// One stride order per convolution (cuDNN's engines read and write one):
// a row-major input and weight of a channels-last result are copied into
// channels-last first, each as a row-major copy of its channels-last view
// (permuted back), so that the copy's kernel iterates in the order it
// writes and stages its strided reads (the tiled transpose).
// CHECK-LABEL: func.func @mixed
// CHECK: %[[XP:.*]] = stride.permute %arg0 dims [0, 2, 3, 1] : {{.*}} -> <2x4x4x8xf16, strides = [128, 4, 1, 16], offset = 0>
// CHECK: %[[XC:.*]] = stride.clone %[[XP]] {{.*}} -> <2x4x4x8xf16, strides = [128, 32, 8, 1], offset = 0>
// CHECK: %[[X:.*]] = stride.permute %[[XC]] dims [0, 3, 1, 2] : {{.*}} -> <2x8x4x4xf16, strides = [128, 1, 32, 8], offset = 0>
// CHECK: %[[WP:.*]] = stride.permute %arg1 dims [0, 2, 3, 1] : {{.*}} -> <16x3x3x8xf16, strides = [72, 3, 1, 9], offset = 0>
// CHECK: %[[WC:.*]] = stride.clone %[[WP]] {{.*}} -> <16x3x3x8xf16, strides = [72, 24, 8, 1], offset = 0>
// CHECK: %[[W:.*]] = stride.permute %[[WC]] dims [0, 3, 1, 2] : {{.*}} -> <16x8x3x3xf16, strides = [72, 1, 24, 8], offset = 0>
// CHECK: stride.convolution %[[X]], %[[W]] {{.*}} {stride.keep_fused} {{.*}} -> <2x16x4x4xf16, strides = [256, 1, 64, 16], offset = 0>
func.func @mixed(%x: !stride.tensor<2x8x4x4xf16>, %w: !stride.tensor<16x8x3x3xf16>) -> !stride.tensor<2x16x4x4xf16, strides = [256, 1, 64, 16], offset = 0> {
  %y = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x4x4xf16>, !stride.tensor<16x8x3x3xf16> -> !stride.tensor<2x16x4x4xf16, strides = [256, 1, 64, 16], offset = 0>
  return %y : !stride.tensor<2x16x4x4xf16, strides = [256, 1, 64, 16], offset = 0>
}

// -----

// A transposed convolution (cuDNN's data gradient): its bias is added
// after the call; an output_padding below the stride is taken.
// CHECK-LABEL: func.func @transposed
// CHECK: %[[C:.*]] = stride.convolution %arg0, %arg1 stride [2] padding [0] dilation [1] groups 1 transposed output_padding [1] {stride.keep_fused}
// CHECK: stride.add %[[C]]
func.func @transposed(%x: !stride.tensor<1x4x5xf32>, %w: !stride.tensor<4x3x2xf32>, %b: !stride.tensor<3xf32>) -> !stride.tensor<1x3x11xf32> {
  %t = stride.convolution %x, %w bias %b stride [2] padding [0] dilation [1] groups 1 transposed output_padding [1] : !stride.tensor<1x4x5xf32>, !stride.tensor<4x3x2xf32>, !stride.tensor<3xf32> -> !stride.tensor<1x3x11xf32>
  return %t : !stride.tensor<1x3x11xf32>
}

// -----

// f64 is left to stride-decompose-convolution (auto), an error with
// convolutions=library; so is an output_padding only below the dilation.
// CHECK-LABEL: func.func @f64
// CHECK-NOT: keep_fused
func.func @f64(%x: !stride.tensor<1x2x5xf64>, %w: !stride.tensor<3x2x3xf64>) -> !stride.tensor<1x3x3xf64> {
  // expected-error @+1 {{'stride.convolution' op cannot run as a cuDNN call: its element type is not f16, bf16 or f32 (convolutions=library; auto decomposes it)}}
  %y = stride.convolution %x, %w stride [1] padding [0] dilation [1] groups 1 : !stride.tensor<1x2x5xf64>, !stride.tensor<3x2x3xf64> -> !stride.tensor<1x3x3xf64>
  return %y : !stride.tensor<1x3x3xf64>
}

// -----

// CHECK-LABEL: func.func @output_padding_above_stride
// CHECK-NOT: keep_fused
func.func @output_padding_above_stride(%x: !stride.tensor<1x2x4xf32>, %w: !stride.tensor<2x2x3xf32>) -> !stride.tensor<1x2x15xf32> {
  // expected-error @+1 {{cannot run as a cuDNN call: an output_padding is not below its stride}}
  %t = stride.convolution %x, %w stride [2] padding [0] dilation [3] groups 1 transposed output_padding [2] : !stride.tensor<1x2x4xf32>, !stride.tensor<2x2x3xf32> -> !stride.tensor<1x2x15xf32>
  return %t : !stride.tensor<1x2x15xf32>
}

// -----

// An f32 weight gradient over row-major tensors: kept as one call, its
// operands read in place (no copy of the batch-as-channels views).
// CHECK-LABEL: func.func @weight_gradient_f32
// CHECK-NOT: stride.clone
// CHECK: %[[DW:.*]] = stride.convolution_weight_gradient %arg0, %arg1 stride [2, 1] padding [1, 1] dilation [1, 2] groups 2 {stride.keep_fused}
// CHECK-NEXT: return %[[DW]]
// GEN-LABEL: func.func @weight_gradient_f32
// GEN-NOT: keep_fused
func.func @weight_gradient_f32(%x: !stride.tensor<2x4x8x6xf32>, %dy: !stride.tensor<2x6x4x4xf32>) -> !stride.tensor<6x2x3x3xf32> {
  %dw = stride.convolution_weight_gradient %x, %dy stride [2, 1] padding [1, 1] dilation [1, 2] groups 2 : !stride.tensor<2x4x8x6xf32>, !stride.tensor<2x6x4x4xf32> -> !stride.tensor<6x2x3x3xf32>
  return %dw : !stride.tensor<6x2x3x3xf32>
}

// -----

// An f32 weight gradient follows its input's order: channels-last x, the
// output's gradient copied channels-last, the result written
// channels-last and copied into the graph's row-major layout.
// CHECK-LABEL: func.func @weight_gradient_f32_nhwc
// CHECK: %[[DYP:.*]] = stride.permute %arg1 dims [0, 2, 3, 1] : {{.*}} -> <2x4x4x8xf32, strides = [128, 4, 1, 16], offset = 0>
// CHECK: %[[DYC:.*]] = stride.clone %[[DYP]] {{.*}} -> <2x4x4x8xf32, strides = [128, 32, 8, 1], offset = 0>
// CHECK: %[[DY:.*]] = stride.permute %[[DYC]] dims [0, 3, 1, 2] : {{.*}} -> <2x8x4x4xf32, strides = [128, 1, 32, 8], offset = 0>
// CHECK: %[[DW:.*]] = stride.convolution_weight_gradient %arg0, %[[DY]] {{.*}} {stride.keep_fused} {{.*}} -> <8x4x3x3xf32, strides = [36, 1, 12, 4], offset = 0>
// CHECK: %[[R:.*]] = stride.clone %[[DW]] {{.*}} -> <8x4x3x3xf32, strides = [36, 9, 3, 1], offset = 0>
// CHECK: return %[[R]]
func.func @weight_gradient_f32_nhwc(%x: !stride.tensor<2x4x4x4xf32, strides = [64, 1, 16, 4], offset = 0>, %dy: !stride.tensor<2x8x4x4xf32>) -> !stride.tensor<8x4x3x3xf32> {
  %dw = stride.convolution_weight_gradient %x, %dy stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x4x4x4xf32, strides = [64, 1, 16, 4], offset = 0>, !stride.tensor<2x8x4x4xf32> -> !stride.tensor<8x4x3x3xf32>
  return %dw : !stride.tensor<8x4x3x3xf32>
}

// -----

// bf16 over 2-D images runs channels-last (cuDNN's tensor-core engines):
// row-major x and dy are copied into that order, and the data gradient
// (a channels-last transposed convolution) and the weight gradient read
// one copy of dy.
// CHECK-LABEL: func.func @weight_gradient_bf16
// CHECK: %[[DYP:.*]] = stride.permute %arg0 dims [0, 2, 3, 1] : {{.*}} -> <2x4x4x16xbf16, strides = [256, 4, 1, 16], offset = 0>
// CHECK: %[[DYC:.*]] = stride.clone %[[DYP]] {{.*}} -> <2x4x4x16xbf16, strides = [256, 64, 16, 1], offset = 0>
// CHECK: %[[DY:.*]] = stride.permute %[[DYC]] dims [0, 3, 1, 2] : {{.*}} -> <2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
// CHECK: %[[WP:.*]] = stride.permute %arg2 dims [0, 2, 3, 1] : {{.*}} -> <16x3x3x8xbf16, strides = [72, 3, 1, 9], offset = 0>
// CHECK: %[[WC:.*]] = stride.clone %[[WP]] {{.*}} -> <16x3x3x8xbf16, strides = [72, 24, 8, 1], offset = 0>
// CHECK: %[[W:.*]] = stride.permute %[[WC]] dims [0, 3, 1, 2] : {{.*}} -> <16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0>
// CHECK: stride.convolution %[[DY]], %[[W]] {{.*}} transposed {stride.keep_fused}
// CHECK: %[[XP:.*]] = stride.permute %arg1 dims [0, 2, 3, 1] : {{.*}} -> <2x4x4x8xbf16, strides = [128, 4, 1, 16], offset = 0>
// CHECK: %[[XC:.*]] = stride.clone %[[XP]] {{.*}} -> <2x4x4x8xbf16, strides = [128, 32, 8, 1], offset = 0>
// CHECK: %[[X:.*]] = stride.permute %[[XC]] dims [0, 3, 1, 2] : {{.*}} -> <2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>
// CHECK-NOT: stride.permute %arg0
// CHECK: %[[DW:.*]] = stride.convolution_weight_gradient %[[X]], %[[DY]] {{.*}} {stride.keep_fused} {{.*}} -> <16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0>
// CHECK: stride.clone %[[DW]] {{.*}} -> <16x8x3x3xbf16, strides = [72, 9, 3, 1], offset = 0>
func.func @weight_gradient_bf16(%dy: !stride.tensor<2x16x4x4xbf16>, %x: !stride.tensor<2x8x4x4xbf16>, %w: !stride.tensor<16x8x3x3xbf16>) -> (!stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, !stride.tensor<16x8x3x3xbf16>) {
  %dx = stride.convolution %dy, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 transposed : !stride.tensor<2x16x4x4xbf16>, !stride.tensor<16x8x3x3xbf16> -> !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>
  %dw = stride.convolution_weight_gradient %x, %dy stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x4x4xbf16>, !stride.tensor<2x16x4x4xbf16> -> !stride.tensor<16x8x3x3xbf16>
  return %dx, %dw : !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, !stride.tensor<16x8x3x3xbf16>
}

// -----

// An f64 weight gradient is left to stride-decompose-convolution (auto),
// an error with convolutions=library.
// CHECK-LABEL: func.func @weight_gradient_f64
// CHECK-NOT: keep_fused
func.func @weight_gradient_f64(%x: !stride.tensor<2x3x9xf64>, %dy: !stride.tensor<2x4x4xf64>) -> !stride.tensor<4x3x3xf64> {
  // expected-error @+1 {{'stride.convolution_weight_gradient' op cannot run as a cuDNN call: its element type is not f16, bf16 or f32 (convolutions=library; auto decomposes it)}}
  %dw = stride.convolution_weight_gradient %x, %dy stride [2] padding [0] dilation [1] groups 1 : !stride.tensor<2x3x9xf64>, !stride.tensor<2x4x4xf64> -> !stride.tensor<4x3x3xf64>
  return %dw : !stride.tensor<4x3x3xf64>
}
