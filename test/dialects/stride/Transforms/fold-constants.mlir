// stride-fold-constants: ops whose operands are all constants (through
// views) become constants of their result type, computed by the reference
// interpreter; a batch norm folded into a convolution's weight is computed
// once here instead of by a kernel at every run. Blow-ups past
// max-growth-bytes, a weight another op still reads (with a tight bound),
// library calls, collectives, an op the interpreter refuses, ops of inputs
// and ops over symbolic sizes are left alone.
// RUN: stride-opt %s --split-input-file --stride-fold-into-convolution --stride-fold-constants | FileCheck %s
// RUN: stride-opt %s --split-input-file "--stride-fold-constants=max-growth-bytes=200000" | FileCheck %s --check-prefix=LOOSE
// RUN: stride-opt %s --split-input-file "--stride-fold-constants=max-growth-bytes=0" | FileCheck %s --check-prefix=TIGHT
// The folded module computes what the unfolded one does, on the
// interpreter, bit for bit.
// RUN: rm -rf %t && mkdir -p %t
// RUN: stride-opt %s --stride-fold-into-convolution --stride-fold-constants -o %t/folded.mlir
// RUN: stride-opt %s --stride-fold-into-convolution -o %t/unfolded.mlir
// RUN: stride-run %t/unfolded.mlir --reference --entry=batch_norm --random-inputs --seed 3 --output-dir %t/bn
// RUN: stride-run %t/folded.mlir --reference --entry=batch_norm --random-inputs --seed 3 --expect %t/bn --rtol 0 | FileCheck %s --check-prefix=SAME
// SAME: match
// SAME-NOT: MISMATCH

// A batch norm after stride-fold-into-convolution: the weight scaled per
// output channel and the bias, each one constant; the mean, variance and
// the rest are gone. Scale rsqrt(var + 1) * gamma = [1, 3], bias
// -mean * scale + beta = [-0.5, -5].
// CHECK-LABEL: func.func @batch_norm
// CHECK-DAG:   %[[B:.*]] = stride.constant dense<[-5.000000e-01, -5.000000e+00]> : tensor<2xf32>
// CHECK-DAG:   %[[W:.*]] = stride.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}9.000000e+00]], {{\[\[}}1.200000e+01]]]]> : tensor<2x2x1x1xf32>
// CHECK:       %[[C:.*]] = stride.convolution %arg0, %[[W]] bias %[[B]]
// CHECK-NEXT:  return %[[C]]
func.func @batch_norm(%x: !stride.tensor<1x2x3x3xf32>) -> !stride.tensor<1x2x3x3xf32> {
  %w = stride.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32> : !stride.tensor<2x2x1x1xf32>
  %mean = stride.constant dense<[1.0, 2.0]> : tensor<2xf32> : !stride.tensor<2xf32>
  %var = stride.constant dense<[3.0, 0.0]> : tensor<2xf32> : !stride.tensor<2xf32>
  %gamma = stride.constant dense<[2.0, 3.0]> : tensor<2xf32> : !stride.tensor<2xf32>
  %beta = stride.constant dense<[0.5, 1.0]> : tensor<2xf32> : !stride.tensor<2xf32>
  %eps = stride.full 1.0 : !stride.tensor<2xf32>
  %y = stride.convolution %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1
      : !stride.tensor<1x2x3x3xf32>, !stride.tensor<2x2x1x1xf32> -> !stride.tensor<1x2x3x3xf32>
  %ve = stride.add %var, %eps : !stride.tensor<2xf32>, !stride.tensor<2xf32> -> !stride.tensor<2xf32>
  %is = stride.rsqrt %ve : !stride.tensor<2xf32> -> !stride.tensor<2xf32>
  %mv = stride.view %mean : !stride.tensor<2xf32> -> !stride.tensor<2x1x1xf32>
  %me = stride.expand %mv : !stride.tensor<2x1x1xf32> -> !stride.tensor<1x2x3x3xf32, strides = [0, 1, 0, 0], offset = 0>
  %iv = stride.view %is : !stride.tensor<2xf32> -> !stride.tensor<2x1x1xf32>
  %ie = stride.expand %iv : !stride.tensor<2x1x1xf32> -> !stride.tensor<1x2x3x3xf32, strides = [0, 1, 0, 0], offset = 0>
  %gv = stride.view %gamma : !stride.tensor<2xf32> -> !stride.tensor<2x1x1xf32>
  %ge = stride.expand %gv : !stride.tensor<2x1x1xf32> -> !stride.tensor<1x2x3x3xf32, strides = [0, 1, 0, 0], offset = 0>
  %bv = stride.view %beta : !stride.tensor<2xf32> -> !stride.tensor<2x1x1xf32>
  %be = stride.expand %bv : !stride.tensor<2x1x1xf32> -> !stride.tensor<1x2x3x3xf32, strides = [0, 1, 0, 0], offset = 0>
  %0 = stride.sub %y, %me : !stride.tensor<1x2x3x3xf32>, !stride.tensor<1x2x3x3xf32, strides = [0, 1, 0, 0], offset = 0> -> !stride.tensor<1x2x3x3xf32>
  %1 = stride.mul %0, %ie : !stride.tensor<1x2x3x3xf32>, !stride.tensor<1x2x3x3xf32, strides = [0, 1, 0, 0], offset = 0> -> !stride.tensor<1x2x3x3xf32>
  %2 = stride.mul %1, %ge : !stride.tensor<1x2x3x3xf32>, !stride.tensor<1x2x3x3xf32, strides = [0, 1, 0, 0], offset = 0> -> !stride.tensor<1x2x3x3xf32>
  %3 = stride.add %2, %be : !stride.tensor<1x2x3x3xf32>, !stride.tensor<1x2x3x3xf32, strides = [0, 1, 0, 0], offset = 0> -> !stride.tensor<1x2x3x3xf32>
  return %3 : !stride.tensor<1x2x3x3xf32>
}

// -----

// A chain folds op by op into one constant; the op reading an input stays.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:  %[[C:.*]] = stride.constant dense<[-3.000000e+00, -6.000000e+00]> : tensor<2xf32> : <2xf32, strides = [1], offset = 0>
// CHECK-NEXT:  %[[R:.*]] = stride.add %arg0, %[[C]]
// CHECK-NEXT:  return %[[R]]
func.func @chain(%x: !stride.tensor<2xf32>) -> !stride.tensor<2xf32> {
  %c = stride.constant dense<[1.0, 2.0]> : tensor<2xf32> : !stride.tensor<2xf32>
  %three = stride.full 3.0 : !stride.tensor<2xf32>
  %n = stride.neg %c : !stride.tensor<2xf32> -> !stride.tensor<2xf32>
  %m = stride.mul %n, %three : !stride.tensor<2xf32>, !stride.tensor<2xf32> -> !stride.tensor<2xf32>
  %r = stride.add %x, %m : !stride.tensor<2xf32>, !stride.tensor<2xf32> -> !stride.tensor<2xf32>
  return %r : !stride.tensor<2xf32>
}

// -----

// An op reading one constant twice (a fuzzer's find: the constant was
// erased twice), and an iota read by two folded ops, erased once after
// both.
// CHECK-LABEL: func.func @read_twice
// CHECK-NEXT:  %[[S:.*]] = stride.constant dense<[2.000000e+00, 4.000000e+00]>
// CHECK-NEXT:  %[[E:.*]] = stride.constant dense<true>
// CHECK-NEXT:  return %[[S]], %[[E]]
func.func @read_twice() -> (!stride.tensor<2xf32>, !stride.tensor<3xi1>) {
  %c = stride.constant dense<[1.0, 2.0]> : tensor<2xf32> : !stride.tensor<2xf32>
  %s = stride.add %c, %c : !stride.tensor<2xf32>, !stride.tensor<2xf32> -> !stride.tensor<2xf32>
  %i = stride.iota dim 0 : !stride.tensor<3xi64>
  %e = stride.cmp eq, %i, %i : !stride.tensor<3xi64>, !stride.tensor<3xi64> -> !stride.tensor<3xi1>
  return %s, %e : !stride.tensor<2xf32>, !stride.tensor<3xi1>
}

// -----

// The constant has the result's layout: a copy into column-major order is
// the constant of that type, its value in row-major order as always. A
// result whose elements are equal is a splat.
// CHECK-LABEL: func.func @layout_and_splat
// CHECK-DAG:   stride.constant dense<{{\[\[}}1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32> : <2x3xi32, strides = [1, 2], offset = 0>
// CHECK-DAG:   stride.constant dense<true> : tensor<4xi1> : <4xi1, strides = [1], offset = 0>
// CHECK-NOT:   stride.clone
// CHECK-NOT:   stride.cmp
func.func @layout_and_splat() -> (!stride.tensor<2x3xi32, strides = [1, 2], offset = 0>, !stride.tensor<4xi1>) {
  %c = stride.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32> : !stride.tensor<2x3xi32>
  %t = stride.clone %c : !stride.tensor<2x3xi32> -> !stride.tensor<2x3xi32, strides = [1, 2], offset = 0>
  %i = stride.iota dim 0 : !stride.tensor<4xi64>
  %z = stride.full -1.0 : !stride.tensor<4xi64>
  %g = stride.cmp gt, %i, %z : !stride.tensor<4xi64>, !stride.tensor<4xi64> -> !stride.tensor<4xi1>
  return %t, %g : !stride.tensor<2x3xi32, strides = [1, 2], offset = 0>, !stride.tensor<4xi1>
}

// -----

// A broadcast of 4 values to 8192 x 4 (128 KiB): folding it would grow the
// module by more than 64 KiB, so the add stays (a bound of 200,000
// bytes, the LOOSE run, folds it).
// CHECK-LABEL: func.func @blow_up
// CHECK:       stride.expand
// CHECK:       stride.add
// LOOSE-LABEL: func.func @blow_up
// LOOSE-NEXT:  stride.constant dense<{{.*}}> : tensor<8192x4xf32>
// LOOSE-NEXT:  return
func.func @blow_up() -> !stride.tensor<8192x4xf32> {
  %c = stride.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> : !stride.tensor<4xf32>
  %e = stride.expand %c : !stride.tensor<4xf32> -> !stride.tensor<8192x4xf32, strides = [0, 1], offset = 0>
  %one = stride.full 1.0 : !stride.tensor<8192x4xf32>
  %r = stride.add %e, %one : !stride.tensor<8192x4xf32, strides = [0, 1], offset = 0>, !stride.tensor<8192x4xf32> -> !stride.tensor<8192x4xf32>
  return %r : !stride.tensor<8192x4xf32>
}

// -----

// With no growth allowed (TIGHT), a constant read only by the op folds
// (its bytes leave with it), one that another op still reads (a tied
// weight) does not: it would be stored twice.
// TIGHT-LABEL: func.func @tied
// TIGHT-NEXT:  %[[W:.*]] = stride.constant dense<[1.000000e+00, 2.000000e+00]>
// TIGHT-NEXT:  %[[N:.*]] = stride.neg %[[W]]
// TIGHT-NEXT:  %[[A:.*]] = stride.add %arg0, %[[W]]
// TIGHT-NEXT:  return %[[N]], %[[A]]
// TIGHT-LABEL: func.func @sole
// TIGHT-NEXT:  %[[C:.*]] = stride.constant dense<[-1.000000e+00, -2.000000e+00]>
// TIGHT-NEXT:  return %[[C]]
func.func @tied(%x: !stride.tensor<2xf32>) -> (!stride.tensor<2xf32>, !stride.tensor<2xf32>) {
  %w = stride.constant dense<[1.0, 2.0]> : tensor<2xf32> : !stride.tensor<2xf32>
  %n = stride.neg %w : !stride.tensor<2xf32> -> !stride.tensor<2xf32>
  %a = stride.add %x, %w : !stride.tensor<2xf32>, !stride.tensor<2xf32> -> !stride.tensor<2xf32>
  return %n, %a : !stride.tensor<2xf32>, !stride.tensor<2xf32>
}
func.func @sole() -> !stride.tensor<2xf32> {
  %w = stride.constant dense<[1.0, 2.0]> : tensor<2xf32> : !stride.tensor<2xf32>
  %n = stride.neg %w : !stride.tensor<2xf32> -> !stride.tensor<2xf32>
  return %n : !stride.tensor<2xf32>
}

// -----

// Left alone: a library call (a product), a collective, an integer
// division by zero (the module reports it at run time) and an op of an
// input.
// CHECK-LABEL: func.func @left_alone
// CHECK:       stride.matmul
// CHECK:       stride.all_reduce
// CHECK:       stride.div
// CHECK:       stride.mul %arg0
func.func @left_alone(%x: !stride.tensor<2x2xf32>) -> (!stride.tensor<2x2xf32>, !stride.tensor<2x2xf32>, !stride.tensor<3xi64>, !stride.tensor<2x2xf32>) {
  %a = stride.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32> : !stride.tensor<2x2xf32>
  %p = stride.matmul %a, %a : !stride.tensor<2x2xf32>, !stride.tensor<2x2xf32> -> !stride.tensor<2x2xf32>
  %s = stride.all_reduce %a sum world_size 2 : !stride.tensor<2x2xf32> -> !stride.tensor<2x2xf32>
  %n = stride.constant dense<[1, 2, 3]> : tensor<3xi64> : !stride.tensor<3xi64>
  %z = stride.full 0.0 : !stride.tensor<3xi64>
  %d = stride.div %n, %z : !stride.tensor<3xi64>, !stride.tensor<3xi64> -> !stride.tensor<3xi64>
  %m = stride.mul %x, %a : !stride.tensor<2x2xf32>, !stride.tensor<2x2xf32> -> !stride.tensor<2x2xf32>
  return %p, %s, %d, %m : !stride.tensor<2x2xf32>, !stride.tensor<2x2xf32>, !stride.tensor<3xi64>, !stride.tensor<2x2xf32>
}

// -----

// Left alone: an op of constants over symbolic sizes (a bias broadcast over
// symbolic rows), whose elements are not static.
// CHECK-LABEL: func.func @symbolic
// CHECK:       stride.neg
func.func @symbolic(%x: !stride.tensor<[rows, 4], f32>) -> !stride.tensor<[rows, 4], f32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 64]>]} {
  %c = stride.constant dense<[0.5, -1.5, 2.0, 3.25]> : tensor<4xf32> : !stride.tensor<4xf32>
  %e = stride.expand %c : !stride.tensor<4xf32> -> !stride.tensor<[rows, 4], f32, strides = [0, 1]>
  %n = stride.neg %e : !stride.tensor<[rows, 4], f32, strides = [0, 1]> -> !stride.tensor<[rows, 4], f32>
  %y = stride.mul %x, %n : !stride.tensor<[rows, 4], f32>, !stride.tensor<[rows, 4], f32> -> !stride.tensor<[rows, 4], f32>
  return %y : !stride.tensor<[rows, 4], f32>
}
