// View layouts over symbolic sizes, proven for every value of the symbols
// in their ranges (stride/Support/SymbolicLayout.h), or refused naming the
// values where they fail.
// RUN: stride-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// [batch*seq, 768] viewed as [batch, seq, 768] and back; a permute; a
// slice of a static extent; an expand of a size-1 dim.
// CHECK-LABEL: func.func @views_that_hold
// CHECK: stride.view %{{.*}} -> <[batch, seq, 768], f32, strides = [seq*768, 768, 1], offset = 0>
// CHECK: stride.view %{{.*}} -> <[batch*seq, 768], f32, strides = [768, 1], offset = 0>
// CHECK: stride.permute %{{.*}} -> <[768, batch*seq], f32, strides = [1, 768], offset = 0>
// CHECK: stride.slice %{{.*}} -> <[batch*seq, 256], f32, strides = [768, 1], offset = 256>
// CHECK: stride.expand %{{.*}} -> <[batch, seq, 768], f32, strides = [0, 0, 1], offset = 0>
func.func @views_that_hold(%x: !stride.tensor<[batch*seq, 768], f32>, %b: !stride.tensor<1x1x768xf32>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 64]>,
                                  #stride.symbol<"seq", range = [1, 4096]>]} {
  %v = stride.view %x : !stride.tensor<[batch*seq, 768], f32> -> !stride.tensor<[batch, seq, 768], f32>
  %w = stride.view %v : !stride.tensor<[batch, seq, 768], f32> -> !stride.tensor<[batch*seq, 768], f32>
  %p = stride.permute %w dims [1, 0] : !stride.tensor<[batch*seq, 768], f32> -> !stride.tensor<[768, batch*seq], f32, strides = [1, 768]>
  %s = stride.slice %w dim 1 start 256 end 512 step 1 : !stride.tensor<[batch*seq, 768], f32> -> !stride.tensor<[batch*seq, 256], f32, strides = [768, 1], offset = 256>
  %e = stride.expand %b : !stride.tensor<1x1x768xf32> -> !stride.tensor<[batch, seq, 768], f32, strides = [0, 0, 1]>
  return
}

// -----

// A slice of the first 8 rows holds only where seq >= 8.
func.func @slice_beyond_the_range(%x: !stride.tensor<[seq, 64], f32>)
    attributes {stride.symbols = [#stride.symbol<"seq", range = [1, 4096]>]} {
  // expected-error @+1 {{'stride.slice' op slice end 8 exceeds the size seq of dim 0 when seq is in [1, 7]}}
  %s = stride.slice %x dim 0 start 0 end 8 step 1 : !stride.tensor<[seq, 64], f32> -> !stride.tensor<8x64xf32>
  return
}

// -----

func.func @select_beyond_the_range(%x: !stride.tensor<[seq, 64], f32>)
    attributes {stride.symbols = [#stride.symbol<"seq", range = [2, 4096], multiple_of = 2>]} {
  // expected-error @+1 {{'stride.select' op select index 3 is out of range for dim 0 of size seq when seq is in [2, 2]}}
  %s = stride.select %x dim 0 index 3 : !stride.tensor<[seq, 64], f32> -> !stride.tensor<64xf32>
  return
}

// -----

// The view's strides must be the ones the rule computes.
func.func @view_wrong_strides(%x: !stride.tensor<[batch*seq, 768], f32>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 64]>,
                                  #stride.symbol<"seq", range = [1, 4096]>]} {
  // expected-error @+1 {{'stride.view' op result type '!stride.tensor<[batch, seq, 768], f32, strides = [768, 768, 1], offset = 0>' does not match the layout the view computes from its operand: expected sizes [batch, seq, 768], strides [seq*768, 768, 1], offset 0}}
  %v = stride.view %x : !stride.tensor<[batch*seq, 768], f32> -> !stride.tensor<[batch, seq, 768], f32, strides = [768, 768, 1]>
  return
}

// -----

// [batch, seq] transposed cannot merge into batch*seq without a copy.
func.func @view_needs_copy(%x: !stride.tensor<[seq, batch], f32>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 64]>,
                                  #stride.symbol<"seq", range = [1, 4096]>]} {
  %p = stride.permute %x dims [1, 0] : !stride.tensor<[seq, batch], f32> -> !stride.tensor<[batch, seq], f32, strides = [1, batch]>
  // expected-error @+1 {{'stride.view' op view of [batch, seq] with strides [1, batch] as [batch*seq] needs a copy, or its sizes do not match for every value of the symbols}}
  %v = stride.view %p : !stride.tensor<[batch, seq], f32, strides = [1, batch]> -> !stride.tensor<[batch*seq], f32>
  return
}

// -----

// Sizes that differ as polynomials: batch*seq elements are not seq*64.
func.func @view_sizes_differ(%x: !stride.tensor<[batch, seq], f32>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 64]>,
                                  #stride.symbol<"seq", range = [1, 4096]>]} {
  // expected-error @+1 {{'stride.view' op view of [batch, seq] with strides [seq, 1] as [seq, 64] needs a copy, or its sizes do not match for every value of the symbols}}
  %v = stride.view %x : !stride.tensor<[batch, seq], f32> -> !stride.tensor<[seq, 64], f32>
  return
}

// -----

// Only a dim of size 1 broadcasts; batch may be 1 but is not always.
func.func @expand_symbolic_dim(%x: !stride.tensor<[batch, 4], f32>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 64]>,
                                  #stride.symbol<"seq", range = [1, 4096]>]} {
  // expected-error @+1 {{'stride.expand' op dim 0 of size batch cannot expand to seq (only dims of size 1 broadcast)}}
  %e = stride.expand %x : !stride.tensor<[batch, 4], f32> -> !stride.tensor<[seq, 4], f32, strides = [4, 1]>
  return
}

// -----

func.func @as_strided(%x: !stride.tensor<[batch, 4], f32>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.as_strided' op as_strided over symbolic sizes is not supported}}
  %e = stride.as_strided %x : !stride.tensor<[batch, 4], f32> -> !stride.tensor<[batch], f32, strides = [4]>
  return
}
