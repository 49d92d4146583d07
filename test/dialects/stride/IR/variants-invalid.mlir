// Variants selected at run time that do not verify
// (python-free-docs/symbolic-sizes.md, "Variants selected at run time"):
// stride.select_variant's guard and operand types, and a guarded
// stride.kernel's body against its inputs at the values it pins.
// RUN: stride-opt %s -split-input-file -verify-diagnostics

func.func @undeclared(%a: !stride.tensor<[rows, 4], f32>, %b: !stride.tensor<[rows, 4], f32>)
    -> !stride.tensor<[rows, 4], f32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.select_variant' op guards symbol 'cols', which the enclosing function does not declare}}
  %s = stride.select_variant %a : !stride.tensor<[rows, 4], f32> when [#stride.symbol<"cols", range = [1, 1]>] else %b : !stride.tensor<[rows, 4], f32>
  return %s : !stride.tensor<[rows, 4], f32>
}

// -----

func.func @outside(%a: !stride.tensor<1x4xf32>, %b: !stride.tensor<[rows, 4], f32>)
    -> !stride.tensor<[rows, 4], f32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [2, 64]>]} {
  // expected-error @+1 {{'stride.select_variant' op guards symbol 'rows' by [1, 1], outside its range: rows in [2, 64]}}
  %s = stride.select_variant %a : !stride.tensor<1x4xf32> when [#stride.symbol<"rows", range = [1, 1]>] else %b : !stride.tensor<[rows, 4], f32>
  return %s : !stride.tensor<[rows, 4], f32>
}

// -----

func.func @twice(%a: !stride.tensor<[rows, 4], f32>, %b: !stride.tensor<[rows, 4], f32>)
    -> !stride.tensor<[rows, 4], f32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.select_variant' op names symbol 'rows' twice in its 'when' guard}}
  %s = stride.select_variant %a : !stride.tensor<[rows, 4], f32> when [#stride.symbol<"rows", range = [1, 4]>, #stride.symbol<"rows", range = [2, 8]>] else %b : !stride.tensor<[rows, 4], f32>
  return %s : !stride.tensor<[rows, 4], f32>
}

// -----

func.func @empty_guard(%a: !stride.tensor<[rows, 4], f32>, %b: !stride.tensor<[rows, 4], f32>)
    -> !stride.tensor<[rows, 4], f32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.select_variant' op has an empty 'when' guard; name at least one symbol's range}}
  %s = stride.select_variant %a : !stride.tensor<[rows, 4], f32> when [] else %b : !stride.tensor<[rows, 4], f32>
  return %s : !stride.tensor<[rows, 4], f32>
}

// -----

// The variant is the value at the pinned row count: one row here.
func.func @variant_type(%a: !stride.tensor<2x4xf32>, %b: !stride.tensor<[rows, 4], f32>)
    -> !stride.tensor<[rows, 4], f32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.select_variant' op has a variant of type '!stride.tensor<2x4xf32, strides = [4, 1], offset = 0>'; expected '!stride.tensor<1x4xf32, strides = [4, 1], offset = 0>', the other operand's type at the values its 'when' guard pins}}
  %s = stride.select_variant %a : !stride.tensor<2x4xf32> when [#stride.symbol<"rows", range = [1, 1]>] else %b : !stride.tensor<[rows, 4], f32>
  return %s : !stride.tensor<[rows, 4], f32>
}

// -----

// A guarded kernel's body is the kernel at the values its guard pins.
func.func @kernel_body(%x: !stride.tensor<[rows, 4], f32>) -> !stride.tensor<2x4xf32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 64]>]} {
  // expected-error @+1 {{'stride.kernel' op body argument #0 has type '!stride.tensor<2x4xf32, strides = [4, 1], offset = 0>' but input #0 has type '!stride.tensor<[rows, 4], f32, strides = [4, 1], offset = 0>' (at the values its 'when' guard pins: rows = 1)}}
  %k = stride.kernel "relu" ins(%x : !stride.tensor<[rows, 4], f32>) attributes {when = [#stride.symbol<"rows", range = [1, 1]>]} -> (!stride.tensor<2x4xf32>) {
  ^bb0(%a: !stride.tensor<2x4xf32>):
    %r = stride.relu %a : !stride.tensor<2x4xf32> -> !stride.tensor<2x4xf32>
    stride.yield %r : !stride.tensor<2x4xf32>
  }
  return %k : !stride.tensor<2x4xf32>
}
