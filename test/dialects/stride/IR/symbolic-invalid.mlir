// Symbols and symbolic types that do not verify: each error says what was
// expected (python-free-docs/symbolic-sizes.md).
// RUN: stride-opt %s -split-input-file -verify-diagnostics

// expected-error @+2 {{symbol 'batch' has the empty range [8, 4]: its minimum exceeds its maximum}}
func.func @empty_range()
    attributes {stride.symbols = [#stride.symbol<"batch", range = [8, 4]>]} {
  return
}

// -----

// expected-error @+2 {{symbol 'batch' has the range [-1, 4], whose minimum is negative; a size is never negative}}
func.func @negative_min()
    attributes {stride.symbols = [#stride.symbol<"batch", range = [-1, 4]>]} {
  return
}

// -----

// expected-error @+2 {{symbol 'seq' has no value in [1, 7] that is a multiple of 8}}
func.func @no_multiple()
    attributes {stride.symbols = [#stride.symbol<"seq", range = [1, 7], multiple_of = 8>]} {
  return
}

// -----

// expected-error @+2 {{symbol 'seq' has multiple_of 0; it must be at least 1}}
func.func @zero_multiple()
    attributes {stride.symbols = [#stride.symbol<"seq", range = [1, 7], multiple_of = 0>]} {
  return
}

// -----

// expected-error @+1 {{'stride.symbols' declares the symbol 'batch' twice}}
func.func @twice()
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 4]>,
                                  #stride.symbol<"batch", range = [1, 8]>]} {
  return
}

// -----

// expected-error @+1 {{'stride.symbols' must be an array of #stride.symbol, but is ["batch"]}}
func.func @not_symbols() attributes {stride.symbols = ["batch"]} {
  return
}

// -----

// expected-error @+2 {{argument #0 names the symbol 'seq', which its function does not declare}}
// expected-note @+1 {{the function declares its symbols with their ranges in 'stride.symbols', e.g. #stride.symbol<"seq", range = [1, 1024]>}}
func.func @undeclared_argument(%x: !stride.tensor<[batch, seq], f32>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 4]>]} {
  return
}

// -----

// A stride that names an undeclared symbol, in a function that declares none.
// expected-note @+1 {{the function declares its symbols with their ranges in 'stride.symbols', e.g. #stride.symbol<"seq", range = [1, 1024]>}}
func.func @undeclared_stride(%x: !stride.tensor<4x768xf32>) {
  // expected-error @+1 {{'stride.as_strided' op result #0 names the symbol 'seq', which its function does not declare}}
  %v = stride.as_strided %x : !stride.tensor<4x768xf32> -> !stride.tensor<[2], f32, strides = [seq], offset = 0>
  return
}

// -----

// expected-error @+1 {{argument #0 has the size seq - 8, which is negative for some values of its symbols' ranges}}
func.func @negative_size(%x: !stride.tensor<[seq - 8], f32>)
    attributes {stride.symbols = [#stride.symbol<"seq", range = [1, 4096]>]} {
  return
}

// -----

// expected-error @+1 {{expected a size: an integer, a symbol name or a parenthesized expression}}
func.func @bad_expr(%x: !stride.tensor<[batch, *], f32>) {
  return
}

// -----

func.func @pointwise_shapes(%x: !stride.tensor<[batch, 768], f32>, %y: !stride.tensor<[seq, 768], f32>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 4]>,
                                  #stride.symbol<"seq", range = [1, 4]>]} {
  // expected-error @+1 {{'stride.add' op operand #1 has shape [seq, 768] but the result has shape [batch, 768]}}
  %z = stride.add %x, %y : !stride.tensor<[batch, 768], f32>, !stride.tensor<[seq, 768], f32> -> !stride.tensor<[batch, 768], f32>
  return
}
