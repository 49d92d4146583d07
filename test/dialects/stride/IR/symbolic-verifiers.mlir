// The op verifiers over symbolic sizes: sizes are compared as expressions
// (two polynomials that differ are not equal for every value of the
// symbols), an inequality holds where the bounds over the function's
// ranges prove it (python-free-docs/symbolic-sizes.md).
// RUN: stride-opt %s -split-input-file -verify-diagnostics

// What verifies: a product over a symbolic number of rows with its bias, a
// reduction with keepdim, a cat of symbolic parts, an embedding's
// index_select, a gather bounded over the ranges, attention with symbolic
// batch and tokens.
func.func @valid(%x: !stride.tensor<[b*s, 16], f32>, %w: !stride.tensor<16x32xf32>,
                 %bias: !stride.tensor<32xf32>, %y: !stride.tensor<[s, 4], f32>,
                 %table: !stride.tensor<32x16xf32>, %ids: !stride.tensor<[b*s], i64>,
                 %g: !stride.tensor<[b, 8], f32>, %gi: !stride.tensor<[b, 4], i64>,
                 %q: !stride.tensor<[b, 2, s, 8], f32>, %m: !stride.tensor<[b, 2, s, s], i1>)
    attributes {stride.symbols = [#stride.symbol<"b", range = [1, 64]>,
                                  #stride.symbol<"s", range = [2, 1024]>]} {
  %p = stride.matmul %x, %w bias %bias : !stride.tensor<[b*s, 16], f32>, !stride.tensor<16x32xf32>, !stride.tensor<32xf32> -> !stride.tensor<[b*s, 32], f32>
  %r = stride.sum %p dims [1] keepdim : !stride.tensor<[b*s, 32], f32> -> !stride.tensor<[b*s, 1], f32>
  %c = stride.cat %y, %y dim 0 : !stride.tensor<[s, 4], f32>, !stride.tensor<[s, 4], f32> -> !stride.tensor<[2*s, 4], f32>
  %e = stride.index_select %table, %ids dim 0 : !stride.tensor<32x16xf32>, !stride.tensor<[b*s], i64> -> !stride.tensor<[b*s, 16], f32>
  %h = stride.gather %g, %gi dim 1 : !stride.tensor<[b, 8], f32>, !stride.tensor<[b, 4], i64> -> !stride.tensor<[b, 4], f32>
  %a = stride.attention %q, %q, %q mask %m scale 0.35 : !stride.tensor<[b, 2, s, 8], f32>, !stride.tensor<[b, 2, s, 8], f32>, !stride.tensor<[b, 2, s, 8], f32>, !stride.tensor<[b, 2, s, s], i1> -> !stride.tensor<[b, 2, s, 8], f32>
  return
}

// -----

func.func @matmul_contraction(%x: !stride.tensor<[b, s], f32>, %w: !stride.tensor<[b, 32], f32>)
    attributes {stride.symbols = [#stride.symbol<"b", range = [1, 64]>,
                                  #stride.symbol<"s", range = [1, 64]>]} {
  // expected-error @+2 {{'stride.matmul' op contracts lhs dim 1 of size s with rhs dim 0 of size b; the sizes must be equal}}
  // expected-note @-4 {{rhs is defined here}}
  %0 = stride.matmul %x, %w : !stride.tensor<[b, s], f32>, !stride.tensor<[b, 32], f32> -> !stride.tensor<[b, 32], f32>
  return
}

// -----

func.func @matmul_batch(%x: !stride.tensor<[b, s, 8], f32>, %w: !stride.tensor<[s, 8, 4], f32>)
    attributes {stride.symbols = [#stride.symbol<"b", range = [1, 64]>,
                                  #stride.symbol<"s", range = [1, 64]>]} {
  // expected-error @+2 {{'stride.matmul' op batch dim 0 has size b in lhs but s in rhs; batch dims must be equal (broadcast with stride.expand)}}
  // expected-note @-4 {{rhs is defined here}}
  %0 = stride.matmul %x, %w : !stride.tensor<[b, s, 8], f32>, !stride.tensor<[s, 8, 4], f32> -> !stride.tensor<[b, s, 4], f32>
  return
}

// -----

func.func @matmul_result(%x: !stride.tensor<[b, 8], f32>, %w: !stride.tensor<8x4xf32>)
    attributes {stride.symbols = [#stride.symbol<"b", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.matmul' op result has shape [b + 1, 4], expected [b, 4] (lhs's batch dims and rows, rhs's columns)}}
  %0 = stride.matmul %x, %w : !stride.tensor<[b, 8], f32>, !stride.tensor<8x4xf32> -> !stride.tensor<[b + 1, 4], f32>
  return
}

// -----

func.func @matmul_result_layout(%x: !stride.tensor<[b, 8], f32>, %w: !stride.tensor<8x4xf32>)
    attributes {stride.symbols = [#stride.symbol<"b", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.matmul' op result type '!stride.tensor<[b, 4], f32, strides = [1, b], offset = 0>' is not rows of consecutive elements at offset 0}}
  %0 = stride.matmul %x, %w : !stride.tensor<[b, 8], f32>, !stride.tensor<8x4xf32> -> !stride.tensor<[b, 4], f32, strides = [1, b], offset = 0>
  return
}

// -----

func.func @reduction(%x: !stride.tensor<[b, s], f32>)
    attributes {stride.symbols = [#stride.symbol<"b", range = [1, 64]>,
                                  #stride.symbol<"s", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.sum' op result has shape [b, s], expected [b, 1] (the input's shape with the reduced dims of size 1)}}
  %0 = stride.sum %x dims [1] keepdim : !stride.tensor<[b, s], f32> -> !stride.tensor<[b, s], f32>
  return
}

// -----

func.func @cat(%x: !stride.tensor<[b, 4], f32>, %y: !stride.tensor<[s, 4], f32>)
    attributes {stride.symbols = [#stride.symbol<"b", range = [1, 64]>,
                                  #stride.symbol<"s", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.cat' op result dim 0 has size b + 1, but the inputs' sizes in it add up to s + b}}
  %0 = stride.cat %x, %y dim 0 : !stride.tensor<[b, 4], f32>, !stride.tensor<[s, 4], f32> -> !stride.tensor<[b + 1, 4], f32>
  return
}

// -----

func.func @cat_other_dim(%x: !stride.tensor<[b, 4], f32>, %y: !stride.tensor<[s, 4], f32>)
    attributes {stride.symbols = [#stride.symbol<"b", range = [1, 64]>,
                                  #stride.symbol<"s", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.cat' op input #1 has shape [s, 4], expected [b, 4] (the result's shape but in dim 1)}}
  %0 = stride.cat %x, %y dim 1 : !stride.tensor<[b, 4], f32>, !stride.tensor<[s, 4], f32> -> !stride.tensor<[b, 8], f32>
  return
}

// -----

func.func @index_select(%table: !stride.tensor<32x16xf32>, %ids: !stride.tensor<[s], i64>)
    attributes {stride.symbols = [#stride.symbol<"b", range = [1, 64]>,
                                  #stride.symbol<"s", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.index_select' op result has shape [b, 16], expected [s, 16] (the input's shape with dim 0 of the index's length)}}
  %0 = stride.index_select %table, %ids dim 0 : !stride.tensor<32x16xf32>, !stride.tensor<[s], i64> -> !stride.tensor<[b, 16], f32>
  return
}

// -----

// The index's dim 0 (b, up to 64) may exceed the input's (s, from 1).
func.func @gather_bound(%x: !stride.tensor<[s, 8], f32>, %i: !stride.tensor<[b, 4], i64>)
    attributes {stride.symbols = [#stride.symbol<"b", range = [1, 64]>,
                                  #stride.symbol<"s", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.gather' op index dim 0 has size b, larger than the input's s}}
  %0 = stride.gather %x, %i dim 1 : !stride.tensor<[s, 8], f32>, !stride.tensor<[b, 4], i64> -> !stride.tensor<[b, 4], f32>
  return
}

// -----

func.func @attention_batch(%q: !stride.tensor<[b, 2, s, 8], f32>, %k: !stride.tensor<[s, 2, s, 8], f32>)
    attributes {stride.symbols = [#stride.symbol<"b", range = [1, 64]>,
                                  #stride.symbol<"s", range = [1, 64]>]} {
  // expected-error @+2 {{'stride.attention' op key has batch size s but query has b; the batch dims must be equal (broadcast with stride.expand)}}
  // expected-note @-4 {{key is defined here}}
  %0 = stride.attention %q, %k, %k scale 0.35 : !stride.tensor<[b, 2, s, 8], f32>, !stride.tensor<[s, 2, s, 8], f32>, !stride.tensor<[s, 2, s, 8], f32> -> !stride.tensor<[b, 2, s, 8], f32>
  return
}

// -----

func.func @attention_mask(%q: !stride.tensor<[b, 2, s, 8], f32>, %m: !stride.tensor<[b, 2, s, b], i1>)
    attributes {stride.symbols = [#stride.symbol<"b", range = [1, 64]>,
                                  #stride.symbol<"s", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.attention' op mask has shape [b, 2, s, b], expected [b, 2, s, s] (query's batch, heads and rows by key's rows; broadcast a smaller mask with stride.expand)}}
  %0 = stride.attention %q, %q, %q mask %m scale 0.35 : !stride.tensor<[b, 2, s, 8], f32>, !stride.tensor<[b, 2, s, 8], f32>, !stride.tensor<[b, 2, s, 8], f32>, !stride.tensor<[b, 2, s, b], i1> -> !stride.tensor<[b, 2, s, 8], f32>
  return
}
