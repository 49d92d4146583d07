// stride-convolution-layout: f16 and bf16 convolutions whose layout Stride
// owns write channels-last, and the pointwise ops after them keep it
// (python-free-docs/convolution.md, "Layouts").
// RUN: stride-opt --stride-convolution-layout -split-input-file %s | FileCheck %s

// The block of test/Emu/Inputs/conv-block-bf16.mlir: the first two
// convolutions, the ReLU between them and the residual add become
// channels-last; the returned ReLU keeps the graph's layout, and so does
// the returned convolution.
// CHECK-LABEL: func.func @block
// CHECK: %[[C1:.*]] = stride.convolution {{.*}} -> <2x8x6x6xbf16, strides = [288, 1, 48, 8], offset = 0>
// CHECK: %[[R1:.*]] = stride.relu %[[C1]] {{.*}} -> <2x8x6x6xbf16, strides = [288, 1, 48, 8], offset = 0>
// CHECK: %[[C2:.*]] = stride.convolution %[[R1]], {{.*}} -> <2x8x6x6xbf16, strides = [288, 1, 48, 8], offset = 0>
// CHECK: %[[S:.*]] = stride.add %[[C2]], %arg0 {{.*}} -> <2x8x6x6xbf16, strides = [288, 1, 48, 8], offset = 0>
// CHECK: %[[R2:.*]] = stride.relu %[[S]] {{.*}} -> <2x8x6x6xbf16, strides = [288, 36, 6, 1], offset = 0>
// CHECK: stride.convolution %[[R2]], {{.*}} -> <2x12x3x3xbf16, strides = [108, 9, 3, 1], offset = 0>
func.func @block(%x: !stride.tensor<2x8x6x6xbf16>, %w1: !stride.tensor<8x8x3x3xbf16>,
                 %b1: !stride.tensor<8xbf16>, %w2: !stride.tensor<8x8x1x1xbf16>,
                 %w3: !stride.tensor<12x4x3x3xbf16>)
    -> (!stride.tensor<2x8x6x6xbf16>, !stride.tensor<2x12x3x3xbf16>) {
  %c1 = stride.convolution %x, %w1 bias %b1 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<8x8x3x3xbf16>, !stride.tensor<8xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %r1 = stride.relu %c1 : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %c2 = stride.convolution %r1, %w2 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<8x8x1x1xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %s = stride.add %c2, %x : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %r2 = stride.relu %s : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %c3 = stride.convolution %r2, %w3 stride [2, 2] padding [1, 1] dilation [1, 1] groups 2 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<12x4x3x3xbf16> -> !stride.tensor<2x12x3x3xbf16>
  return %r2, %c3 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<2x12x3x3xbf16>
}

// -----

// Left alone: f32; a result a view reads (ViT's patch embedding, flattened);
// 1-D.
// CHECK-LABEL: func.func @left_alone
// CHECK: stride.convolution {{.*}} -> <2x4x4x4xf32, strides = [64, 16, 4, 1], offset = 0>
// CHECK: stride.convolution {{.*}} -> <2x4x4x4xbf16, strides = [64, 16, 4, 1], offset = 0>
// CHECK: stride.convolution {{.*}} -> <2x4x6xbf16, strides = [24, 6, 1], offset = 0>
func.func @left_alone(%x: !stride.tensor<2x3x8x8xf32>, %w: !stride.tensor<4x3x2x2xf32>,
                      %xb: !stride.tensor<2x3x8x8xbf16>, %wb: !stride.tensor<4x3x2x2xbf16>,
                      %xl: !stride.tensor<2x3x8xbf16>, %wl: !stride.tensor<4x3x3xbf16>)
    -> (!stride.tensor<2x4x4x4xf32>, !stride.tensor<2x4x16xbf16>, !stride.tensor<2x4x6xbf16>) {
  %a = stride.convolution %x, %w stride [2, 2] padding [0, 0] dilation [1, 1] groups 1 : !stride.tensor<2x3x8x8xf32>, !stride.tensor<4x3x2x2xf32> -> !stride.tensor<2x4x4x4xf32>
  %ra = stride.relu %a : !stride.tensor<2x4x4x4xf32> -> !stride.tensor<2x4x4x4xf32>
  %b = stride.convolution %xb, %wb stride [2, 2] padding [0, 0] dilation [1, 1] groups 1 : !stride.tensor<2x3x8x8xbf16>, !stride.tensor<4x3x2x2xbf16> -> !stride.tensor<2x4x4x4xbf16>
  %v = stride.view %b : !stride.tensor<2x4x4x4xbf16> -> !stride.tensor<2x4x16xbf16>
  %rv = stride.relu %v : !stride.tensor<2x4x16xbf16> -> !stride.tensor<2x4x16xbf16>
  %l = stride.convolution %xl, %wl stride [1] padding [0] dilation [1] groups 1 : !stride.tensor<2x3x8xbf16>, !stride.tensor<4x3x3xbf16> -> !stride.tensor<2x4x6xbf16>
  %rl = stride.relu %l : !stride.tensor<2x4x6xbf16> -> !stride.tensor<2x4x6xbf16>
  return %ra, %rv, %rl : !stride.tensor<2x4x4x4xf32>, !stride.tensor<2x4x16xbf16>, !stride.tensor<2x4x6xbf16>
}

// -----

// Reduced per channel (a batch norm's statistics in training): the
// convolution stays row-major, directly or through a pointwise op, since a
// channel of a channels-last tensor is strided by the channel count; a sum
// that keeps the channels (over dim 1) does not count.
// CHECK-LABEL: func.func @reduced_per_channel
// CHECK: %[[C1:.*]] = stride.convolution {{.*}} -> <2x8x6x6xbf16, strides = [288, 36, 6, 1], offset = 0>
// CHECK: %[[C2:.*]] = stride.convolution {{.*}} -> <2x8x6x6xbf16, strides = [288, 36, 6, 1], offset = 0>
// CHECK: stride.relu %[[C2]] {{.*}} -> <2x8x6x6xbf16, strides = [288, 36, 6, 1], offset = 0>
// CHECK: %[[C3:.*]] = stride.convolution {{.*}} -> <2x8x6x6xbf16, strides = [288, 1, 48, 8], offset = 0>
func.func @reduced_per_channel(%x: !stride.tensor<2x8x6x6xbf16>, %w: !stride.tensor<8x8x3x3xbf16>)
    -> (!stride.tensor<8xbf16>, !stride.tensor<8xbf16>, !stride.tensor<2x6x6xbf16>, !stride.tensor<2x8x6x6xbf16>) {
  %c1 = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<8x8x3x3xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %m1 = stride.sum %c1 dims [0, 2, 3] : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<8xbf16>
  %c2 = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<8x8x3x3xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %r2 = stride.relu %c2 : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %m2 = stride.sum %r2 dims [0, 2, 3] : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<8xbf16>
  %c3 = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<8x8x3x3xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %s3 = stride.sum %c3 dims [1] : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x6x6xbf16>
  %r3 = stride.relu %c3 : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %c4 = stride.convolution %r3, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<8x8x3x3xbf16> -> !stride.tensor<2x8x6x6xbf16>
  return %m1, %m2, %s3, %c4 : !stride.tensor<8xbf16>, !stride.tensor<8xbf16>, !stride.tensor<2x6x6xbf16>, !stride.tensor<2x8x6x6xbf16>
}

// -----

// A max pool of a channels-last image (ResNet's stem: padded by cats of
// -inf, windows as_strided) writes channels-last, so that its threads,
// channels innermost, write neighbouring elements and the next convolution
// reads it in place; a pool of the graph's row-major input stays
// row-major.
// CHECK-LABEL: func.func @pooled
// CHECK: stride.relu {{.*}} -> <2x8x6x6xbf16, strides = [288, 1, 48, 8], offset = 0>
// CHECK: %[[POOL:.*]] = stride.max {{.*}} -> <2x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0>
// CHECK: stride.convolution %[[POOL]]
// CHECK: %[[INPUT_POOL:.*]] = stride.max {{.*}} -> <2x8x3x3xbf16, strides = [72, 9, 3, 1], offset = 0>
// CHECK: stride.convolution %[[INPUT_POOL]]
func.func @pooled(%x: !stride.tensor<2x8x6x6xbf16>, %w: !stride.tensor<8x8x3x3xbf16>) -> (!stride.tensor<2x8x3x3xbf16>, !stride.tensor<2x8x3x3xbf16>) {
  %c = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<8x8x3x3xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %r = stride.relu %c : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %pool_f1 = stride.full -3.3895313892515355E+38 : !stride.tensor<2x8x6x1xbf16>
  %pool_c1 = stride.cat %pool_f1, %r, %pool_f1 dim 3 : !stride.tensor<2x8x6x1xbf16>, !stride.tensor<2x8x6x6xbf16>, !stride.tensor<2x8x6x1xbf16> -> !stride.tensor<2x8x6x8xbf16>
  %pool_f2 = stride.full -3.3895313892515355E+38 : !stride.tensor<2x8x1x8xbf16>
  %pool_c2 = stride.cat %pool_f2, %pool_c1, %pool_f2 dim 2 : !stride.tensor<2x8x1x8xbf16>, !stride.tensor<2x8x6x8xbf16>, !stride.tensor<2x8x1x8xbf16> -> !stride.tensor<2x8x8x8xbf16>
  %pool_w = stride.as_strided %pool_c2 : !stride.tensor<2x8x8x8xbf16> -> !stride.tensor<2x8x3x3x3x3xbf16, strides = [512, 64, 16, 2, 8, 1], offset = 0>
  %pool = stride.max %pool_w dims [4, 5] : !stride.tensor<2x8x3x3x3x3xbf16, strides = [512, 64, 16, 2, 8, 1], offset = 0> -> !stride.tensor<2x8x3x3xbf16>
  %c2 = stride.convolution %pool, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x3x3xbf16>, !stride.tensor<8x8x3x3xbf16> -> !stride.tensor<2x8x3x3xbf16>
  %input_pool_f1 = stride.full -3.3895313892515355E+38 : !stride.tensor<2x8x6x1xbf16>
  %input_pool_c1 = stride.cat %input_pool_f1, %x, %input_pool_f1 dim 3 : !stride.tensor<2x8x6x1xbf16>, !stride.tensor<2x8x6x6xbf16>, !stride.tensor<2x8x6x1xbf16> -> !stride.tensor<2x8x6x8xbf16>
  %input_pool_f2 = stride.full -3.3895313892515355E+38 : !stride.tensor<2x8x1x8xbf16>
  %input_pool_c2 = stride.cat %input_pool_f2, %input_pool_c1, %input_pool_f2 dim 2 : !stride.tensor<2x8x1x8xbf16>, !stride.tensor<2x8x6x8xbf16>, !stride.tensor<2x8x1x8xbf16> -> !stride.tensor<2x8x8x8xbf16>
  %input_pool_w = stride.as_strided %input_pool_c2 : !stride.tensor<2x8x8x8xbf16> -> !stride.tensor<2x8x3x3x3x3xbf16, strides = [512, 64, 16, 2, 8, 1], offset = 0>
  %input_pool = stride.max %input_pool_w dims [4, 5] : !stride.tensor<2x8x3x3x3x3xbf16, strides = [512, 64, 16, 2, 8, 1], offset = 0> -> !stride.tensor<2x8x3x3xbf16>
  %c3 = stride.convolution %input_pool, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x3x3xbf16>, !stride.tensor<8x8x3x3xbf16> -> !stride.tensor<2x8x3x3xbf16>
  return %c2, %c3 : !stride.tensor<2x8x3x3xbf16>, !stride.tensor<2x8x3x3xbf16>
}

// -----

// An average over positions alone (ResNet's closing pool) is no batch
// norm: its threads take neighbouring channels of a channels-last value,
// which stays channels-last.
// CHECK-LABEL: func.func @averaged
// CHECK: stride.convolution {{.*}} -> <2x8x6x6xbf16, strides = [288, 1, 48, 8], offset = 0>
// CHECK: stride.relu {{.*}} -> <2x8x6x6xbf16, strides = [288, 1, 48, 8], offset = 0>
func.func @averaged(%x: !stride.tensor<2x8x6x6xbf16>, %w: !stride.tensor<8x8x3x3xbf16>) -> !stride.tensor<2x8xbf16> {
  %c = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x6x6xbf16>, !stride.tensor<8x8x3x3xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %r = stride.relu %c : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8x6x6xbf16>
  %m = stride.mean %r dims [2, 3] : !stride.tensor<2x8x6x6xbf16> -> !stride.tensor<2x8xbf16>
  return %m : !stride.tensor<2x8xbf16>
}
