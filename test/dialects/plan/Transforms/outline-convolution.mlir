// stride-outline-executable lowers each convolution that
// stride-convolution-library kept whole to a cudnn.convolution library call
// (python-free-docs/convolution.md, "The cuDNN step"): the forward's x, w
// and y with every stride (channels-last is a stride order), the padding
// at both ends, the bias flag, the epilogue (residual, relu), each
// buffer's offset; a transposed
// convolution is the data gradient (dgrad) of the forward from its result
// to its input.
// RUN: stride-opt --stride-pipeline=form-kernels=1 --stride-outline-executable -split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @nhwc_bias
// CHECK: %[[X:.*]] = plan.input
// CHECK: %[[W:.*]] = plan.input
// CHECK: %[[B:.*]] = plan.input
// CHECK: %[[Y:.*]] = plan.alloc
// CHECK: plan.library_call "cudnn.convolution"(%[[X]], %[[W]], %[[B]], %[[Y]])
// CHECK-SAME: bias = array<i64: 1>
// CHECK-SAME: dilation = array<i64: 1, 1>
// CHECK-SAME: dtype = "bf16"
// CHECK-SAME: kind = "fprop"
// CHECK-SAME: name = "conv1"
// CHECK-SAME: offsets = array<i64: 0, 0, 0, 0>
// CHECK-SAME: post_padding = array<i64: 1, 1>
// CHECK-SAME: pre_padding = array<i64: 1, 1>
// CHECK-SAME: stride = array<i64: 2, 2>
// CHECK-SAME: tf32 = array<i64: 0>
// CHECK-SAME: w_dims = array<i64: 16, 8, 3, 3>
// CHECK-SAME: w_strides = array<i64: 72, 1, 24, 8>
// CHECK-SAME: x_dims = array<i64: 2, 8, 8, 8>
// CHECK-SAME: x_strides = array<i64: 512, 1, 64, 8>
// CHECK-SAME: y_dims = array<i64: 2, 16, 4, 4>
// CHECK-SAME: y_strides = array<i64: 256, 1, 64, 16>
func.func @nhwc_bias(%x: !stride.tensor<2x8x8x8xbf16, strides = [512, 1, 64, 8], offset = 0>, %w: !stride.tensor<16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0>, %b: !stride.tensor<16xbf16>) -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> {
  %y = stride.convolution %x, %w bias %b stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x8x8xbf16, strides = [512, 1, 64, 8], offset = 0>, !stride.tensor<16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0>, !stride.tensor<16xbf16> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> loc("conv1")
  return %y : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
}

// -----

// ResNet's block: the residual add and the relu folded into the call
// (stride-convolution-library), the residual a buffer after the bias.
// CHECK-LABEL: func.func @nhwc_epilogue
// CHECK: %[[X:.*]] = plan.input
// CHECK: %[[W:.*]] = plan.input
// CHECK: %[[B:.*]] = plan.input
// CHECK: %[[R:.*]] = plan.input
// CHECK: %[[Y:.*]] = plan.alloc
// CHECK: plan.library_call "cudnn.convolution"(%[[X]], %[[W]], %[[B]], %[[R]], %[[Y]])
// CHECK-SAME: bias = array<i64: 1>
// CHECK-SAME: offsets = array<i64: 0, 0, 0, 0, 0>
// CHECK-SAME: relu = array<i64: 1>
// CHECK-SAME: residual = array<i64: 1>
// CHECK-NOT: plan.dispatch
func.func @nhwc_epilogue(%x: !stride.tensor<2x8x8x8xbf16, strides = [512, 1, 64, 8], offset = 0>, %w: !stride.tensor<16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0>, %b: !stride.tensor<16xbf16>, %r: !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>) -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> {
  %y = stride.convolution %x, %w bias %b stride [2, 2] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x8x8xbf16, strides = [512, 1, 64, 8], offset = 0>, !stride.tensor<16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0>, !stride.tensor<16xbf16> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> loc("conv1")
  %s = stride.add %y, %r : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>, !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  %a = stride.relu %s : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  return %a : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
}

// -----

// Transposed: dgrad reads the op's input as dy and writes its result as
// dx; x is the op's result [1, 3, 11], y its input [1, 4, 5].
// CHECK-LABEL: func.func @transposed
// CHECK: %[[DY:.*]] = plan.input
// CHECK: %[[W:.*]] = plan.input
// CHECK: %[[DX:.*]] = plan.alloc
// CHECK: plan.library_call "cudnn.convolution"(%[[DY]], %[[W]], %[[DX]])
// CHECK-SAME: bias = array<i64: 0>
// CHECK-SAME: kind = "dgrad"
// CHECK-SAME: name = "{{.*}}outline-convolution.mlir:77:8"
// CHECK-SAME: w_dims = array<i64: 4, 3, 2>
// CHECK-SAME: x_dims = array<i64: 1, 3, 11>
// CHECK-SAME: y_dims = array<i64: 1, 4, 5>
func.func @transposed(%x: !stride.tensor<1x4x5xf32>, %w: !stride.tensor<4x3x2xf32>) -> !stride.tensor<1x3x11xf32> {
  %t = stride.convolution %x, %w stride [2] padding [0] dilation [1] groups 1 transposed output_padding [1] : !stride.tensor<1x4x5xf32>, !stride.tensor<4x3x2xf32> -> !stride.tensor<1x3x11xf32>
  return %t : !stride.tensor<1x3x11xf32>
}


// -----

// A weight gradient: wgrad reads x (the op's input) and dy (its output's
// gradient) and writes dw (its result); the descriptor is the forward
// convolution's, w of the result's dims [6, 2, 3, 3].
// CHECK-LABEL: func.func @weight_gradient
// CHECK: %[[X:.*]] = plan.input
// CHECK: %[[DY:.*]] = plan.input
// CHECK: %[[DW:.*]] = plan.alloc
// CHECK: plan.library_call "cudnn.convolution"(%[[X]], %[[DY]], %[[DW]])
// CHECK-SAME: bias = array<i64: 0>
// CHECK-SAME: dilation = array<i64: 1, 2>
// CHECK-SAME: kind = "wgrad"
// CHECK-SAME: name = "dw"
// CHECK-SAME: offsets = array<i64: 0, 0, 0>
// CHECK-SAME: post_padding = array<i64: 1, 1>
// CHECK-SAME: pre_padding = array<i64: 1, 1>
// CHECK-SAME: stride = array<i64: 2, 1>
// CHECK-SAME: w_dims = array<i64: 6, 2, 3, 3>
// CHECK-SAME: w_strides = array<i64: 18, 9, 3, 1>
// CHECK-SAME: x_dims = array<i64: 2, 4, 8, 6>
// CHECK-SAME: y_dims = array<i64: 2, 6, 4, 4>
// CHECK-NOT: plan.dispatch
func.func @weight_gradient(%x: !stride.tensor<2x4x8x6xf32>, %dy: !stride.tensor<2x6x4x4xf32>) -> !stride.tensor<6x2x3x3xf32> {
  %dw = stride.convolution_weight_gradient %x, %dy stride [2, 1] padding [1, 1] dilation [1, 2] groups 2 : !stride.tensor<2x4x8x6xf32>, !stride.tensor<2x6x4x4xf32> -> !stride.tensor<6x2x3x3xf32> loc("dw")
  return %dw : !stride.tensor<6x2x3x3xf32>
}
