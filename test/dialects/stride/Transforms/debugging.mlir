// The passes behind the debugging tools (python-free-docs/debugging.md):
// stride-keep-values makes every kernel and matmul result an output
// value.K, after the graph's own, in program order; the test-only
// stride-test-inject-fault swaps every floating-point op of one kind for its
// counterpart, inside kernels too, keeping operands, types and location, and
// leaves integer ops alone.
// RUN: stride-opt --stride-pipeline=form-kernels=true --stride-keep-values -split-input-file %s | FileCheck %s --check-prefix=KEEP
// RUN: stride-opt --stride-pipeline=form-kernels=true "--stride-test-inject-fault=op=add" -split-input-file --mlir-print-debuginfo --mlir-print-local-scope %s | FileCheck %s --check-prefix=FAULT
// RUN: stride-opt "--stride-test-inject-fault=op=mul" -split-input-file %s | FileCheck %s --check-prefix=MUL

// KEEP-LABEL: func.func @two_kernels
// KEEP-SAME: -> (!stride.tensor<4xf32, strides = [1], offset = 0>, !stride.tensor<4x1xf32, strides = [1, 1], offset = 0> {stride.name = "value.0"}, !stride.tensor<4xf32, strides = [1], offset = 0> {stride.name = "value.1"})
// KEEP: %[[K0:.*]] = stride.kernel "{{.*}}sum{{.*}}"
// KEEP: %[[K1:.*]] = stride.kernel
// KEEP: return %[[K1]], %[[K0]], %[[K1]]

// FAULT-LABEL: func.func @two_kernels
// FAULT: stride.sub %{{.*}}, %{{.*}} : {{.*}} loc("{{.*}}debugging.mlir":32:8)
// FAULT-NOT: stride.add

// MUL-LABEL: func.func @two_kernels
// MUL: stride.div
// MUL: stride.add
// MUL-NOT: stride.mul
func.func @two_kernels(%x: !stride.tensor<4x8xf32>, %b: !stride.tensor<4xf32>)
    -> !stride.tensor<4xf32> {
  %m = stride.mul %x, %x : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>
      -> !stride.tensor<4x8xf32>
  %s = stride.sum %m dims [1] keepdim
      : !stride.tensor<4x8xf32> -> !stride.tensor<4x1xf32>
  %v = stride.view %s : !stride.tensor<4x1xf32> -> !stride.tensor<4xf32>
  %y = stride.add %v, %b : !stride.tensor<4xf32>, !stride.tensor<4xf32>
      -> !stride.tensor<4xf32>
  return %y : !stride.tensor<4xf32>
}

// -----

// Integer adds are left alone: a fault in index arithmetic would stop the
// module on an index out of range rather than give wrong values.
// FAULT-LABEL: func.func @integers
// FAULT: stride.add
// FAULT-NOT: stride.sub
func.func @integers(%i: !stride.tensor<4xi64>, %j: !stride.tensor<4xi64>)
    -> !stride.tensor<4xi64> {
  %s = stride.add %i, %j : !stride.tensor<4xi64>, !stride.tensor<4xi64>
      -> !stride.tensor<4xi64>
  return %s : !stride.tensor<4xi64>
}
