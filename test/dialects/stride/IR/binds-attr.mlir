// stride.binds: an argument whose value binds a declared symbol (a decode
// step's position choosing its attention; python-free-docs/
// symbolic-sizes.md, "Symbols bound from a value"). The symbol is no size:
// one i32 or i64 binds it, once, and no type names it.
// RUN: stride-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @position
// CHECK-SAME: {stride.binds = "pos", stride.name = "cache_position"}
func.func @position(%p: !stride.tensor<1xi64> {stride.name = "cache_position", stride.binds = "pos"})
    attributes {stride.symbols = [#stride.symbol<"pos", range = [0, 4095]>]} {
  return
}

// -----

// CHECK-LABEL: func.func @scalar_i32
func.func @scalar_i32(%p: !stride.tensor<i32> {stride.binds = "pos"})
    attributes {stride.symbols = [#stride.symbol<"pos", range = [0, 4095]>]} {
  return
}

// -----

// expected-error @+1 {{'stride.binds' of argument #0 must be the name of a declared symbol, but is 3 : i64}}
func.func @not_a_name(%p: !stride.tensor<1xi64> {stride.binds = 3})
    attributes {stride.symbols = [#stride.symbol<"pos", range = [0, 4095]>]} {
  return
}

// -----

// expected-error @+1 {{'stride.binds' of argument #0 names 'position', which the function's 'stride.symbols' does not declare}}
func.func @undeclared(%p: !stride.tensor<1xi64> {stride.binds = "position"})
    attributes {stride.symbols = [#stride.symbol<"pos", range = [0, 4095]>]} {
  return
}

// -----

// expected-error @+1 {{'stride.binds' of argument #0 binds 'pos' from an argument of '!stride.tensor<2xi64, strides = [1], offset = 0>'; a symbol is bound from one i32 or i64}}
func.func @two_positions(%p: !stride.tensor<2xi64> {stride.binds = "pos"})
    attributes {stride.symbols = [#stride.symbol<"pos", range = [0, 4095]>]} {
  return
}

// -----

// expected-error @+1 {{'stride.binds' of argument #0 binds 'pos' from an argument of '!stride.tensor<1xf32, strides = [1], offset = 0>'; a symbol is bound from one i32 or i64}}
func.func @float_position(%p: !stride.tensor<1xf32> {stride.binds = "pos"})
    attributes {stride.symbols = [#stride.symbol<"pos", range = [0, 4095]>]} {
  return
}

// -----

func.func @bound_twice(%p: !stride.tensor<1xi64> {stride.binds = "pos"},
                       // expected-error @+1 {{'stride.binds' of argument #1 binds 'pos', which argument #0 binds}}
                       %q: !stride.tensor<1xi64> {stride.binds = "pos"})
    attributes {stride.symbols = [#stride.symbol<"pos", range = [0, 4095]>]} {
  return
}

// -----

// expected-error @+1 {{'stride.binds' of argument #0 binds 'rows' from a value, and '!stride.tensor<[rows, 8], f32, strides = [8, 1], offset = 0>' names it as a size}}
func.func @also_a_size(%p: !stride.tensor<1xi64> {stride.binds = "rows"},
                       %x: !stride.tensor<[rows, 8], f32>)
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 64]>]} {
  return
}
