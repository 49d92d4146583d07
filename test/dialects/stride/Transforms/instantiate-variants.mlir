// stride-instantiate-symbols on variants selected at run time
// (python-free-docs/symbolic-sizes.md, "Variants selected at run time"):
// where the given values decide a stride.select_variant, it becomes the
// operand they select; a guarded kernel not selected is erased, and one
// selected runs always. A guard the values decide in part keeps the
// ranges of the symbols not given.
// RUN: stride-opt %s --stride-instantiate-symbols="values=rows=1,batch=1" | FileCheck %s --check-prefix=ONE
// RUN: stride-opt %s --stride-instantiate-symbols="values=rows=5,batch=1" | FileCheck %s --check-prefix=FIVE
// RUN: stride-opt %s --stride-instantiate-symbols="values=rows=1" | FileCheck %s --check-prefix=PARTIAL

// ONE-LABEL: func.func @variant
// ONE: %[[K:.*]] = stride.kernel "relu" ins(%arg0 : !stride.tensor<1x4xf32, strides = [4, 1], offset = 0>) -> (!stride.tensor<1x4xf32, strides = [4, 1], offset = 0>)
// ONE-NOT: select_variant
// ONE: return %[[K]], %{{.*}} :
// FIVE-LABEL: func.func @variant
// FIVE-NOT: stride.kernel
// FIVE-NOT: select_variant
// FIVE: return %arg1, %{{.*}} : !stride.tensor<5x4xf32
// PARTIAL-LABEL: func.func @variant
// PARTIAL: stride.kernel "neg"{{.*}}attributes {when = [#stride.symbol<"batch", range = [1, 1]>, #stride.symbol<"rows", range = [1, 1]>]}
// PARTIAL: stride.select_variant %{{.*}} when [#stride.symbol<"batch", range = [1, 1]>] else %arg2 : <[batch], f32
func.func @variant(%x: !stride.tensor<[rows, 4], f32>, %y: !stride.tensor<[rows, 4], f32>,
                   %z: !stride.tensor<[batch], f32>)
    -> (!stride.tensor<[rows, 4], f32>, !stride.tensor<[batch], f32>)
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 64]>,
                                  #stride.symbol<"batch", range = [1, 8]>]} {
  %k = stride.kernel "relu" ins(%x : !stride.tensor<[rows, 4], f32>) attributes {when = [#stride.symbol<"rows", range = [1, 1]>]} -> (!stride.tensor<1x4xf32>) {
  ^bb0(%a: !stride.tensor<1x4xf32>):
    %r = stride.relu %a : !stride.tensor<1x4xf32> -> !stride.tensor<1x4xf32>
    stride.yield %r : !stride.tensor<1x4xf32>
  }
  %s = stride.select_variant %k : !stride.tensor<1x4xf32> when [#stride.symbol<"rows", range = [1, 1]>] else %y : !stride.tensor<[rows, 4], f32>
  %b = stride.kernel "neg" ins(%z : !stride.tensor<[batch], f32>) attributes {when = [#stride.symbol<"batch", range = [1, 1]>, #stride.symbol<"rows", range = [1, 1]>]} -> (!stride.tensor<1xf32>) {
  ^bb0(%a: !stride.tensor<1xf32>):
    %r = stride.neg %a : !stride.tensor<1xf32> -> !stride.tensor<1xf32>
    stride.yield %r : !stride.tensor<1xf32>
  }
  %t = stride.select_variant %b : !stride.tensor<1xf32> when [#stride.symbol<"batch", range = [1, 1]>, #stride.symbol<"rows", range = [1, 1]>] else %z : !stride.tensor<[batch], f32>
  return %s, %t : !stride.tensor<[rows, 4], f32>, !stride.tensor<[batch], f32>
}
