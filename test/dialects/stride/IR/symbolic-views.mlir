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

// Slices whose bounds are expressions (transformers' packed-sequence mask
// slices [0, s) and [1, s + 1) of positions [b, s + 1]): the length end -
// start, the offset start * stride, each printed and parsed back as the
// bound's expression; a bound that is a constant stays static.
// CHECK-LABEL: func.func @symbolic_bounds
// CHECK: stride.slice %{{.*}} dim 1 start 0 end s step 1 : <[b, s + 1], i64, strides = [s + 1, 1], offset = 0> -> <[b, s], i64, strides = [s + 1, 1], offset = 0>
// CHECK: stride.slice %{{.*}} dim 1 start 1 end s + 1 step 1 : {{.*}} -> <[b, s], i64, strides = [s + 1, 1], offset = 1>
// CHECK: stride.slice %{{.*}} dim 1 start s end s + 1 step 1 : {{.*}} -> <[b, 1], i64, strides = [s + 1, 1], offset = s>
// CHECK: stride.slice %{{.*}} dim 0 start 2 end s*2 - 2 step 1 : <[s*2], f32, strides = [1], offset = 0> -> <[s*2 - 4], f32, strides = [1], offset = 2>
// CHECK: stride.slice %{{.*}} dim 0 start 0 end 4 step 1 :
func.func @symbolic_bounds(%x: !stride.tensor<[b, s + 1], i64>, %y: !stride.tensor<[2*s], f32>)
    attributes {stride.symbols = [#stride.symbol<"b", range = [1, 64]>,
                                  #stride.symbol<"s", range = [2, 1024]>]} {
  %a = stride.slice %x dim 1 start 0 end s step 1 : !stride.tensor<[b, s + 1], i64> -> !stride.tensor<[b, s], i64, strides = [s + 1, 1]>
  %c = stride.slice %x dim 1 start 1 end s + 1 step 1 : !stride.tensor<[b, s + 1], i64> -> !stride.tensor<[b, s], i64, strides = [s + 1, 1], offset = 1>
  %d = stride.slice %x dim 1 start s end 1 + s step 1 : !stride.tensor<[b, s + 1], i64> -> !stride.tensor<[b, 1], i64, strides = [s + 1, 1], offset = s>
  %e = stride.slice %y dim 0 start 2 end 2*s - 2 step 1 : !stride.tensor<[2*s], f32> -> !stride.tensor<[2*s - 4], f32, offset = 2>
  %f = stride.slice %y dim 0 start 0 end s - s + 4 step 1 : !stride.tensor<[2*s], f32> -> !stride.tensor<4xf32>
  return
}

// -----

func.func @symbolic_end_beyond_the_dim(%x: !stride.tensor<[b, s], i64>)
    attributes {stride.symbols = [#stride.symbol<"b", range = [1, 64]>,
                                  #stride.symbol<"s", range = [2, 1024]>]} {
  // expected-error @+1 {{'stride.slice' op slice end s + 1 exceeds the size s of dim 1 for every value of the symbols}}
  %a = stride.slice %x dim 1 start 0 end s + 1 step 1 : !stride.tensor<[b, s], i64> -> !stride.tensor<[b, s + 1], i64>
  return
}

// -----

func.func @symbolic_start_after_the_end(%x: !stride.tensor<[s], i64>)
    attributes {stride.symbols = [#stride.symbol<"s", range = [2, 1024]>]} {
  // expected-error @+1 {{'stride.slice' op slice end s*2 - 8 is below its start 4 when s is in [2, 5]}}
  %a = stride.slice %x dim 0 start 4 end 2*s - 8 step 1 : !stride.tensor<[s], i64> -> !stride.tensor<[s], i64>
  return
}

// -----

func.func @symbolic_length_with_a_step(%x: !stride.tensor<[s], i64>)
    attributes {stride.symbols = [#stride.symbol<"s", range = [2, 1024]>]} {
  // expected-error @+1 {{'stride.slice' op a slice from 0 to s step 2 has a length that is not a polynomial of the symbols; a slice of symbolic length takes step 1}}
  %a = stride.slice %x dim 0 start 0 end s step 2 : !stride.tensor<[s], i64> -> !stride.tensor<[s], i64>
  return
}

// -----

func.func @undeclared_symbol_in_a_bound(%x: !stride.tensor<[s], i64>)
    attributes {stride.symbols = [#stride.symbol<"s", range = [2, 1024]>]} {
  // expected-error @+1 {{'stride.slice' op slice bound t names the symbol 't', which the function does not declare in stride.symbols}}
  %a = stride.slice %x dim 0 start 0 end t step 1 : !stride.tensor<[s], i64> -> !stride.tensor<[s], i64>
  return
}

// -----

// The generic form can spell a bound both ways; the verifier takes one.
func.func @bound_held_twice(%x: !stride.tensor<[s], i64>)
    attributes {stride.symbols = [#stride.symbol<"s", range = [2, 1024]>]} {
  // expected-error @+1 {{'stride.slice' op has both a static end 1 and the symbolic one s}}
  %a = "stride.slice"(%x) {dim = 0 : i64, start = 0 : i64, end = 1 : i64, step = 1 : i64, symbolic_end = #stride.size<s>} : (!stride.tensor<[s], i64>) -> !stride.tensor<[s], i64>
  return
}

// -----

func.func @constant_symbolic_bound(%x: !stride.tensor<[s], i64>)
    attributes {stride.symbols = [#stride.symbol<"s", range = [2, 1024]>]} {
  // expected-error @+1 {{'stride.slice' op symbolic_start 1 is a constant; a constant bound is the static start}}
  %a = "stride.slice"(%x) {dim = 0 : i64, start = -9223372036854775808 : i64, end = 2 : i64, step = 1 : i64, symbolic_start = #stride.size<1>} : (!stride.tensor<[s], i64>) -> !stride.tensor<1xi64, strides = [1], offset = 1>
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
