// Variants selected at run time print and parse back
// (python-free-docs/symbolic-sizes.md, "Variants selected at run time"): a
// kernel guarded by `when`, whose body is the kernel at one row, and the
// stride.select_variant between it and the value computed otherwise.
// RUN: stride-opt %s | FileCheck %s
// RUN: stride-opt %s | stride-opt | FileCheck %s

// CHECK-LABEL: func.func @variant
// CHECK: %[[K:.*]] = stride.kernel "relu" ins(%arg0 : !stride.tensor<[rows, 4], f32, strides = [4, 1], offset = 0>) attributes {when = [#stride.symbol<"rows", range = [1, 1]>]} -> (!stride.tensor<1x4xf32, strides = [4, 1], offset = 0>) {
// CHECK-NEXT: ^bb0(%[[A:.*]]: !stride.tensor<1x4xf32, strides = [4, 1], offset = 0>):
// CHECK: %[[S:.*]] = stride.select_variant %[[K]] : <1x4xf32, strides = [4, 1], offset = 0> when [#stride.symbol<"rows", range = [1, 1]>] else %arg1 : <[rows, 4], f32, strides = [4, 1], offset = 0>
// CHECK: return %[[S]]
func.func @variant(%x: !stride.tensor<[rows, 4], f32>, %y: !stride.tensor<[rows, 4], f32>)
    -> !stride.tensor<[rows, 4], f32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 64]>]} {
  %k = stride.kernel "relu" ins(%x : !stride.tensor<[rows, 4], f32>) attributes {when = [#stride.symbol<"rows", range = [1, 1]>]} -> (!stride.tensor<1x4xf32>) {
  ^bb0(%a: !stride.tensor<1x4xf32>):
    %r = stride.relu %a : !stride.tensor<1x4xf32> -> !stride.tensor<1x4xf32>
    stride.yield %r : !stride.tensor<1x4xf32>
  }
  %s = stride.select_variant %k : !stride.tensor<1x4xf32> when [#stride.symbol<"rows", range = [1, 1]>] else %y : !stride.tensor<[rows, 4], f32>
  return %s : !stride.tensor<[rows, 4], f32>
}

// A guard of a range keeps the variant symbolic.
// CHECK-LABEL: func.func @range
// CHECK: stride.select_variant %arg0 : <[rows, 4], f32, strides = [4, 1], offset = 0> when [#stride.symbol<"rows", range = [1, 8]>] else %arg1
func.func @range(%x: !stride.tensor<[rows, 4], f32>, %y: !stride.tensor<[rows, 4], f32>)
    -> !stride.tensor<[rows, 4], f32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 64]>]} {
  %s = stride.select_variant %x : !stride.tensor<[rows, 4], f32> when [#stride.symbol<"rows", range = [1, 8]>] else %y : !stride.tensor<[rows, 4], f32>
  return %s : !stride.tensor<[rows, 4], f32>
}
