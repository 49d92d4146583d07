// stride-legalize-layouts over symbolic sizes: a functional result's
// layout must be non-overlapping for every value of the symbols in their
// ranges; where it is not, the error names the values
// (python-free-docs/symbolic-sizes.md).
// RUN: stride-opt %s -split-input-file -verify-diagnostics --stride-legalize-layouts | FileCheck %s

// Row-major results hold for every value; a result returned as a view is
// copied into a row-major buffer of symbolic strides.
// CHECK-LABEL: func.func @holds
// CHECK: stride.add {{.*}} -> <[batch, seq, 768], f32, strides = [seq*768, 768, 1], offset = 0>
// CHECK: stride.permute
// CHECK: stride.clone {{.*}} -> <[seq, batch, 768], f32, strides = [batch*768, 768, 1], offset = 0>
func.func @holds(%x: !stride.tensor<[batch, seq, 768], f32>) -> !stride.tensor<[seq, batch, 768], f32, strides = [768, seq*768, 1]>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 64]>,
                                  #stride.symbol<"seq", range = [1, 4096]>]} {
  %y = stride.add %x, %x : !stride.tensor<[batch, seq, 768], f32>, !stride.tensor<[batch, seq, 768], f32> -> !stride.tensor<[batch, seq, 768], f32>
  %p = stride.permute %y dims [1, 0, 2] : !stride.tensor<[batch, seq, 768], f32> -> !stride.tensor<[seq, batch, 768], f32, strides = [768, seq*768, 1]>
  return %p : !stride.tensor<[seq, batch, 768], f32, strides = [768, seq*768, 1]>
}

// -----

// A stride 0 on a dim of size batch in [1, 1024]: one address for every
// batch index once batch is 2 or more.
func.func @zero_stride(%x: !stride.tensor<1x768xf32>) -> !stride.tensor<[batch, 768], f32, strides = [0, 1]>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 1024]>]} {
  %e = stride.expand %x : !stride.tensor<1x768xf32> -> !stride.tensor<[batch, 768], f32, strides = [0, 1]>
  // expected-error @+2 {{'stride.neg' op result #0 has an overlapping layout when batch is in [2, 1024]: dim 0 has size batch and stride 0, so all indices of that dim share one address; a functional op writes a fresh buffer, which needs a distinct address for every element}}
  // expected-note @+1 {{the row-major strides [768, 1] are legal for every value; --repair-layouts does not repair symbolic layouts}}
  %n = stride.neg %e : !stride.tensor<[batch, 768], f32, strides = [0, 1]> -> !stride.tensor<[batch, 768], f32, strides = [0, 1]>
  return %n : !stride.tensor<[batch, 768], f32, strides = [0, 1]>
}

// -----

// The same stride 0 over a range of one value, 1: it addresses nothing.
// CHECK-LABEL: func.func @zero_stride_size_one
// CHECK: stride.neg
func.func @zero_stride_size_one(%x: !stride.tensor<1x768xf32>) -> !stride.tensor<[batch, 768], f32, strides = [0, 1]>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 1]>]} {
  %e = stride.expand %x : !stride.tensor<1x768xf32> -> !stride.tensor<[batch, 768], f32, strides = [0, 1]>
  %n = stride.neg %e : !stride.tensor<[batch, 768], f32, strides = [0, 1]> -> !stride.tensor<[batch, 768], f32, strides = [0, 1]>
  return %n : !stride.tensor<[batch, 768], f32, strides = [0, 1]>
}

// -----

// Rows of 768 elements, 512 apart: they overlap for every batch >= 2, and
// the check names a witness at a corner of the range.
func.func @overlapping_rows(%x: !stride.tensor<[batch, 768], f32, strides = [512, 1]>) -> !stride.tensor<[batch, 768], f32, strides = [512, 1]>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 16]>]} {
  // expected-error @+2 {{'stride.neg' op result #0 has an overlapping layout when batch = 16: logical indices [1, 0] and [0, 512] both map to storage address offset + 512 (shape [batch, 768], strides [512, 1])}}
  // expected-note @+1 {{the row-major strides [768, 1] are legal}}
  %n = stride.neg %x : !stride.tensor<[batch, 768], f32, strides = [512, 1]> -> !stride.tensor<[batch, 768], f32, strides = [512, 1]>
  return %n : !stride.tensor<[batch, 768], f32, strides = [512, 1]>
}

// -----

// Rows of seq + 1 elements, seq*64 + 64 apart: the row stride minus the
// span of a row, 63*seq + 63, is non-negative over the whole range.
// CHECK-LABEL: func.func @proven_by_bounds
func.func @proven_by_bounds(%x: !stride.tensor<[batch, seq + 1], f32, strides = [seq*64 + 64, 1]>) -> !stride.tensor<[batch, seq + 1], f32, strides = [seq*64 + 64, 1]>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 16]>,
                                  #stride.symbol<"seq", range = [1, 16]>]} {
  %n = stride.neg %x : !stride.tensor<[batch, seq + 1], f32, strides = [seq*64 + 64, 1]> -> !stride.tensor<[batch, seq + 1], f32, strides = [seq*64 + 64, 1]>
  return %n : !stride.tensor<[batch, seq + 1], f32, strides = [seq*64 + 64, 1]>
}
