// Symbolic sizes (python-free-docs/symbolic-sizes.md): sizes, strides and
// offsets as expressions of the symbols a function declares, printed
// explicitly and parsed back to the same type; a type of constants is the
// static type.
// RUN: stride-opt %s | FileCheck %s
// RUN: stride-opt %s | stride-opt | FileCheck %s

// CHECK-LABEL: func.func @row_major
// CHECK-SAME: !stride.tensor<[batch, seq, 768], f32, strides = [seq*768, 768, 1], offset = 0>
// CHECK-SAME: stride.symbols = [#stride.symbol<"batch", range = [1, 1024]>, #stride.symbol<"seq", range = [8, 4096], multiple_of = 8>]
func.func @row_major(%x: !stride.tensor<[batch, seq, 768], f32>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 1024]>,
                                  #stride.symbol<"seq", range = [8, 4096], multiple_of = 8>]} {
  return
}

// Like terms combine, products commute, and the constant prints last.
// CHECK-LABEL: func.func @canonical
// CHECK-SAME: !stride.tensor<[batch*seq, 768], f32, strides = [768, 1], offset = seq*768 + 4>
func.func @canonical(%x: !stride.tensor<[seq*batch, 768], f32, strides = [768, 1], offset = 2 + 768 * seq + 2>)
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 64]>,
                                  #stride.symbol<"seq", range = [1, 4096]>]} {
  return
}

// Expressions of constants only are the static type.
// CHECK-LABEL: func.func @constants
// CHECK-SAME: !stride.tensor<4x768xf32, strides = [768, 1], offset = 0>
func.func @constants(%x: !stride.tensor<[2 * 2, 768], f32>) {
  return
}

// Subtraction and parentheses; the size attribute on its own.
// CHECK-LABEL: func.func @minus
// CHECK-SAME: !stride.tensor<[seq - 1], f32, strides = [2], offset = 2>
// CHECK: stride.size_of_test = #stride.size<batch*seq*2 - 1>
func.func @minus(%x: !stride.tensor<[seq - 1], f32, strides = [2], offset = 2>)
    attributes {stride.symbols = [#stride.symbol<"seq", range = [2, 16]>],
                stride.size_of_test = #stride.size<(batch * seq) * 2 - 1>} {
  return
}

// A pointwise op over symbolic sizes: operands have the result's shape.
// CHECK-LABEL: func.func @pointwise
// CHECK: stride.add %{{.*}}, %{{.*}} : <[batch, 768], f32, strides = [768, 1], offset = 0>
func.func @pointwise(%x: !stride.tensor<[batch, 768], f32>) -> !stride.tensor<[batch, 768], f32>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 1024]>]} {
  %y = stride.add %x, %x : !stride.tensor<[batch, 768], f32>, !stride.tensor<[batch, 768], f32> -> !stride.tensor<[batch, 768], f32>
  return %y : !stride.tensor<[batch, 768], f32>
}
