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

// A duplicate's result written back into a state (`stride.writes`) becomes
// a result of its own of the earlier kernel, yielding the value again; the
// result the function only returns is shared.
// CHECK-LABEL: func.func @written_back
// CHECK: %[[A:.*]]:3 = stride.kernel "full_add"
// CHECK: stride.yield %[[S:.*]], %[[S]], %[[S]] :
// CHECK-NOT: stride.kernel
// CHECK: return %[[A]]#0, %[[A]]#1, %[[A]]#2, %[[A]]#0
func.func @written_back(%pos: !stride.tensor<i64>, %l0: !stride.tensor<i64> {stride.name = "l0", stride.state = dense<0> : tensor<i64>}, %l1: !stride.tensor<i64> {stride.name = "l1", stride.state = dense<0> : tensor<i64>}, %l2: !stride.tensor<i64> {stride.name = "l2", stride.state = dense<0> : tensor<i64>}) -> (!stride.tensor<i64> {stride.writes = "l0"}, !stride.tensor<i64> {stride.writes = "l1"}, !stride.tensor<i64> {stride.writes = "l2"}, !stride.tensor<i64>) {
  %a = stride.kernel "full_add" ins(%pos : !stride.tensor<i64>) -> (!stride.tensor<i64>) {
  ^bb0(%p: !stride.tensor<i64>):
    %f = stride.full 1.0 : !stride.tensor<i64>
    %s = stride.add %p, %f : !stride.tensor<i64>, !stride.tensor<i64> -> !stride.tensor<i64>
    stride.yield %s : !stride.tensor<i64>
  }
  %b = stride.kernel "full_add_1" ins(%pos : !stride.tensor<i64>) -> (!stride.tensor<i64>) {
  ^bb0(%p: !stride.tensor<i64>):
    %f = stride.full 1.0 : !stride.tensor<i64>
    %s = stride.add %p, %f : !stride.tensor<i64>, !stride.tensor<i64> -> !stride.tensor<i64>
    stride.yield %s : !stride.tensor<i64>
  }
  %c = stride.kernel "full_add_2" ins(%pos : !stride.tensor<i64>) -> (!stride.tensor<i64>) {
  ^bb0(%p: !stride.tensor<i64>):
    %f = stride.full 1.0 : !stride.tensor<i64>
    %s = stride.add %p, %f : !stride.tensor<i64>, !stride.tensor<i64> -> !stride.tensor<i64>
    stride.yield %s : !stride.tensor<i64>
  }
  return %a, %b, %c, %c : !stride.tensor<i64>, !stride.tensor<i64>, !stride.tensor<i64>, !stride.tensor<i64>
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
