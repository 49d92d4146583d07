// stride-merge-duplicate-kernels (Passes.td): a kernel with the operands,
// result types, attributes (but the name) and body of an earlier one is
// replaced by the earlier one's results; any difference keeps both.
// RUN: stride-opt --stride-merge-duplicate-kernels -split-input-file %s | FileCheck %s
// In the pipeline: test/dialects/plan/Transforms/outline-state.mlir
// (@lengths), test/Import/Torch/decode.test.

// CHECK-LABEL: func.func @equal
// CHECK: %[[A:.*]] = stride.kernel "iota_add"
// CHECK-NOT: stride.kernel
// CHECK: return %[[A]], %[[A]]
func.func @equal(%pos: !stride.tensor<i64>) -> (!stride.tensor<4xi64>, !stride.tensor<4xi64>) {
  %a = stride.kernel "iota_add" ins(%pos : !stride.tensor<i64>) -> (!stride.tensor<4xi64>) {
  ^bb0(%p: !stride.tensor<i64>):
    %i = stride.iota dim 0 : !stride.tensor<4xi64>
    %e = stride.expand %p : !stride.tensor<i64> -> !stride.tensor<4xi64, strides = [0], offset = 0>
    %s = stride.add %i, %e : !stride.tensor<4xi64>, !stride.tensor<4xi64, strides = [0], offset = 0> -> !stride.tensor<4xi64>
    stride.yield %s : !stride.tensor<4xi64>
  }
  %b = stride.kernel "iota_add_1" ins(%pos : !stride.tensor<i64>) -> (!stride.tensor<4xi64>) {
  ^bb0(%q: !stride.tensor<i64>):
    %i = stride.iota dim 0 : !stride.tensor<4xi64>
    %e = stride.expand %q : !stride.tensor<i64> -> !stride.tensor<4xi64, strides = [0], offset = 0>
    %s = stride.add %i, %e : !stride.tensor<4xi64>, !stride.tensor<4xi64, strides = [0], offset = 0> -> !stride.tensor<4xi64>
    stride.yield %s : !stride.tensor<4xi64>
  }
  return %a, %b : !stride.tensor<4xi64>, !stride.tensor<4xi64>
}

// -----

// Equal bodies over other operands, another op, another constant, another
// result type: four kernels stay.
// CHECK-LABEL: func.func @different
// CHECK-COUNT-5: stride.kernel
// CHECK: return
func.func @different(%x: !stride.tensor<4xf32>, %y: !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>, !stride.tensor<4xf32>, !stride.tensor<4xf32>, !stride.tensor<4xf32>, !stride.tensor<4xf64>) {
  %a = stride.kernel "exp" ins(%x : !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>) {
  ^bb0(%v: !stride.tensor<4xf32>):
    %r = stride.exp %v : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    stride.yield %r : !stride.tensor<4xf32>
  }
  %b = stride.kernel "exp_1" ins(%y : !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>) {
  ^bb0(%v: !stride.tensor<4xf32>):
    %r = stride.exp %v : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    stride.yield %r : !stride.tensor<4xf32>
  }
  %c = stride.kernel "neg" ins(%x : !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>) {
  ^bb0(%v: !stride.tensor<4xf32>):
    %r = stride.neg %v : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    stride.yield %r : !stride.tensor<4xf32>
  }
  %d = stride.kernel "full_add" ins(%x : !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>) {
  ^bb0(%v: !stride.tensor<4xf32>):
    %f = stride.full 2.0 : !stride.tensor<4xf32>
    %r = stride.add %v, %f : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    stride.yield %r : !stride.tensor<4xf32>
  }
  %e = stride.kernel "full_add_1" ins(%x : !stride.tensor<4xf32>) -> (!stride.tensor<4xf64>) {
  ^bb0(%v: !stride.tensor<4xf32>):
    %f = stride.full 2.0 : !stride.tensor<4xf32>
    %r = stride.add %v, %f : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    %w = stride.cast %r : !stride.tensor<4xf32> -> !stride.tensor<4xf64>
    stride.yield %w : !stride.tensor<4xf64>
  }
  return %a, %b, %c, %d, %e : !stride.tensor<4xf32>, !stride.tensor<4xf32>, !stride.tensor<4xf32>, !stride.tensor<4xf32>, !stride.tensor<4xf64>
}

// -----

// The same sum twice with other constants (1.0 against 3.0): both stay.
// CHECK-LABEL: func.func @constants
// CHECK-COUNT-2: stride.kernel
func.func @constants(%x: !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>, !stride.tensor<4xf32>) {
  %a = stride.kernel "full_add" ins(%x : !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>) {
  ^bb0(%v: !stride.tensor<4xf32>):
    %f = stride.full 1.0 : !stride.tensor<4xf32>
    %r = stride.add %v, %f : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    stride.yield %r : !stride.tensor<4xf32>
  }
  %b = stride.kernel "full_add_1" ins(%x : !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>) {
  ^bb0(%v: !stride.tensor<4xf32>):
    %f = stride.full 3.0 : !stride.tensor<4xf32>
    %r = stride.add %v, %f : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    stride.yield %r : !stride.tensor<4xf32>
  }
  return %a, %b : !stride.tensor<4xf32>, !stride.tensor<4xf32>
}
