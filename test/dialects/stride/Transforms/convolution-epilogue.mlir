// stride-convolution-library folds the pointwise ops after a convolution
// that cuDNN's runtime-fusion engines compute in its graph (a bf16 or f16
// channels-last forward convolution of one group, channels multiples of 8)
// into the op's epilogue: an add of a residual of the result's layout
// (the op moved down to the add where the residual is computed after it),
// then a relu. Left alone: a result read twice, an f32 convolution, and
// everything with
// epilogues=false; an epilogue written on an op cuDNN does not fuse is
// split into ops after it. The folded graph computes what the unfolded one
// does on the interpreter (the op rounds once, the ops at each step: a
// bf16 tolerance). Under convolutions=library, so that the 1x1 convolutions
// stay cuDNN's (auto leaves those to cuBLASLt: convolution-library.mlir).
// RUN: stride-opt "--stride-convolution-library=convolutions=library" -split-input-file %s | FileCheck %s
// RUN: stride-opt "--stride-convolution-library=convolutions=library epilogues=false" -split-input-file %s | FileCheck %s --check-prefix=OFF
// RUN: rm -rf %t && mkdir -p %t
// RUN: stride-opt "--stride-convolution-library=convolutions=library" %s -o %t/fused.mlir
// RUN: for e in block relu_only downsample split_f32; do \
// RUN:   stride-run %s --reference --entry=$e --random-inputs --seed 9 --output-dir %t/$e && \
// RUN:   stride-run %t/fused.mlir --reference --entry=$e --random-inputs --seed 9 --expect %t/$e --rtol 2e-2 || exit 1; \
// RUN: done | FileCheck %s --check-prefix=SAME
// SAME-COUNT-4: : match
// SAME-NOT: MISMATCH
// The decomposition computes the epilogue as ops.
// RUN: stride-opt "--stride-convolution-library=convolutions=library" --stride-decompose-convolution %s -o %t/decomposed.mlir
// RUN: stride-run %t/decomposed.mlir --reference --entry=split_f32 --random-inputs --seed 9 --expect %t/split_f32 --rtol 1e-5 | FileCheck %s --check-prefix=DEC
// DEC: match

// ResNet's block: bias, the skip connection and the relu in one call.
// CHECK-LABEL: func.func @block
// CHECK-NEXT:  %[[C:.*]] = stride.convolution %arg0, %arg1 bias %arg2 residual %arg3 : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 relu {stride.keep_fused}
// CHECK-NEXT:  return %[[C]]
// OFF-LABEL:   func.func @block
// OFF:         stride.convolution %arg0, %arg1 bias %arg2 stride
// OFF-NEXT:    stride.add
// OFF-NEXT:    stride.relu
func.func @block(%x: !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, %w: !stride.tensor<16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0>, %b: !stride.tensor<16xbf16>, %r: !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>) -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> {
  %c = stride.convolution %x, %w bias %b stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, !stride.tensor<16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0>, !stride.tensor<16xbf16> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  %s = stride.add %r, %c : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>, !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  %a = stride.relu %s : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  return %a : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
}

// -----

// A relu alone; no bias.
// CHECK-LABEL: func.func @relu_only
// CHECK-NEXT:  %[[C:.*]] = stride.convolution %arg0, %arg1 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 relu {stride.keep_fused}
// CHECK-NEXT:  return %[[C]]
func.func @relu_only(%x: !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, %w: !stride.tensor<16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0>) -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> {
  %c = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, !stride.tensor<16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  %a = stride.relu %c : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  return %a : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
}

// -----

// Results read twice (the first by the second convolution and the add,
// the second returned and added): the add and the relu stay.
// CHECK-LABEL: func.func @late_residual
// CHECK:       %[[C:.*]] = stride.convolution %arg0, %arg1 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 {stride.keep_fused}
// CHECK-NEXT:  %[[D:.*]] = stride.convolution %[[C]], %arg2 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 {stride.keep_fused}
// CHECK-NEXT:  %[[S:.*]] = stride.add %[[C]], %[[D]]
// CHECK-NEXT:  %[[A:.*]] = stride.relu %[[S]]
func.func @late_residual(%x: !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, %w: !stride.tensor<16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0>, %w2: !stride.tensor<16x16x1x1xbf16, strides = [16, 1, 16, 16], offset = 0>) -> (!stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>, !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>) {
  %c = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, !stride.tensor<16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  %d = stride.convolution %c, %w2 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>, !stride.tensor<16x16x1x1xbf16, strides = [16, 1, 16, 16], offset = 0> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  %s = stride.add %c, %d : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>, !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  %a = stride.relu %s : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  return %a, %d : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>, !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
}

// -----

// ResNet's downsampling block: the skip connection is a convolution the
// graph computes after the block's last one; that one moves down to the
// add and takes it as its residual.
// CHECK-LABEL: func.func @downsample
// CHECK-NEXT:  %[[D:.*]] = stride.convolution %arg0, %arg2 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 {stride.keep_fused}
// CHECK-NEXT:  %[[C:.*]] = stride.convolution %arg0, %arg1 residual %[[D]] : {{.*}} stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 relu {stride.keep_fused}
// CHECK-NEXT:  return %[[C]]
func.func @downsample(%x: !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, %w: !stride.tensor<16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0>, %wd: !stride.tensor<16x8x1x1xbf16, strides = [8, 1, 8, 8], offset = 0>) -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> {
  %c = stride.convolution %x, %w stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, !stride.tensor<16x8x3x3xbf16, strides = [72, 1, 24, 8], offset = 0> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  %d = stride.convolution %x, %wd stride [1, 1] padding [0, 0] dilation [1, 1] groups 1 : !stride.tensor<2x8x4x4xbf16, strides = [128, 1, 32, 8], offset = 0>, !stride.tensor<16x8x1x1xbf16, strides = [8, 1, 8, 8], offset = 0> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  %s = stride.add %c, %d : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>, !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  %a = stride.relu %s : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0> -> !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
  return %a : !stride.tensor<2x16x4x4xbf16, strides = [256, 1, 64, 16], offset = 0>
}

// -----

// f32 (no runtime-fusion engine): the relu stays a Stride op; an epilogue
// written on the op is split into ops after it.
// CHECK-LABEL: func.func @split_f32
// CHECK-NEXT:  %[[C:.*]] = stride.convolution %arg0, %arg1 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 {stride.keep_fused}
// CHECK-NEXT:  %[[S:.*]] = stride.add %[[C]], %arg2
// CHECK-NEXT:  %[[A:.*]] = stride.relu %[[S]]
// CHECK-NEXT:  %[[B:.*]] = stride.relu %[[A]]
// CHECK-NEXT:  return %[[B]]
func.func @split_f32(%x: !stride.tensor<1x8x4x4xf32>, %w: !stride.tensor<8x8x3x3xf32>, %r: !stride.tensor<1x8x4x4xf32>) -> !stride.tensor<1x8x4x4xf32> {
  %c = stride.convolution %x, %w residual %r : !stride.tensor<1x8x4x4xf32> stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 relu : !stride.tensor<1x8x4x4xf32>, !stride.tensor<8x8x3x3xf32> -> !stride.tensor<1x8x4x4xf32>
  %a = stride.relu %c : !stride.tensor<1x8x4x4xf32> -> !stride.tensor<1x8x4x4xf32>
  return %a : !stride.tensor<1x8x4x4xf32>
}
