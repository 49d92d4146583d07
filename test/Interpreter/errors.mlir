// Run-time errors and bad inputs: one clear message, exit status 1.
//
// Make valid .npy files with stride-run itself.
// RUN: rm -rf %t && mkdir -p %t
// RUN: stride-run %s --reference --entry=make --output-dir %t/made
//
// RUN: printf 'garbage bytes, no magic at all' > %t/bad.npy
// RUN: not stride-run %s --reference --entry=takes_f32 --input x=%t/bad.npy 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: stride-run: error: {{.*}}bad.npy: {{.*}}magic
//
// result0 is f64 [2, 3]; result1 is f32 [3, 2].
// RUN: not stride-run %s --reference --entry=takes_f32 --input x=%t/made/result0.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: stride-run: error: {{.*}}result0.npy: input 'x' expects f32 of shape (2, 3), but the file holds f64 of shape (2, 3)
// RUN: not stride-run %s --reference --entry=takes_f32 --input x=%t/made/result1.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: stride-run: error: {{.*}}result1.npy: input 'x' expects f32 of shape (2, 3), but the file holds f32 of shape (3, 2)
//
// RUN: not stride-run %s --reference --entry=takes_f32 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: stride-run: error: missing input 'x' (argument 0 of @takes_f32, !stride.tensor<2x3xf32, strides = [3, 1], offset = 0>): pass --input x=FILE.npy or --random-inputs
// RUN: not stride-run %s --reference --entry=takes_f32 --input y=%t/made/result1.npy 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: stride-run: error: --input y={{.*}}: @takes_f32 has no input 'y' (its inputs: x)
// RUN: not stride-run %s --reference --entry=takes_f32 --input x=%t/does-not-exist.npy 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: stride-run: error: {{.*}}does-not-exist.npy: {{.*}}
// A good input runs (the positional name arg0 of an unnamed argument works too).
// RUN: stride-run %s --reference --entry=positional --input arg0=%t/made/result1.npy --print | FileCheck %s --check-prefix=GOOD
// GOOD: result0: f32 [3, 2]
// GOOD-NEXT: {{\[\[}}0, 0],
// GOOD-NEXT: [1, 1],
// GOOD-NEXT: [2, 2]]
//
// RUN: not stride-run %s --reference --entry=gather_oob 2>&1 | FileCheck %s --check-prefix=GATHER
// GATHER: stride-run: error: index 5 at position (1, 0) of the index operand is out of range [0, 3) for dim 1 in 'stride.gather' at {{.*}}errors.mlir:{{[0-9]+}}:8
// RUN: not stride-run %s --reference --entry=index_select_oob 2>&1 | FileCheck %s --check-prefix=ISEL
// ISEL: stride-run: error: index -1 at position (1) of the index operand is out of range [0, 2) for dim 0 in 'stride.index_select' at {{.*}}errors.mlir:
// RUN: not stride-run %s --reference --entry=scatter_add_oob 2>&1 | FileCheck %s --check-prefix=SADD
// SADD: stride-run: error: index 2 at position (0, 1) of the index operand is out of range [0, 2) for dim 0 in 'stride.scatter_add' at {{.*}}errors.mlir:
// RUN: not stride-run %s --reference --entry=index_add_oob 2>&1 | FileCheck %s --check-prefix=IADD
// IADD: stride-run: error: index 9 at position (0) of the index operand is out of range [0, 2) for dim 0 in 'stride.index_add' at {{.*}}errors.mlir:
// RUN: not stride-run %s --reference --entry=div_zero 2>&1 | FileCheck %s --check-prefix=DIV
// DIV: stride-run: error: integer division by zero in 'stride.div' at {{.*}}errors.mlir:{{[0-9]+}}:8 (element (0))
// RUN: not stride-run %s --reference --entry=max_empty 2>&1 | FileCheck %s --check-prefix=MAX
// MAX: stride-run: error: max of no elements (reduced dim 1 has size 0) in 'stride.max' at {{.*}}errors.mlir:
// RUN: not stride-run %s --reference --entry=min_empty 2>&1 | FileCheck %s --check-prefix=MIN
// MIN: stride-run: error: min of no elements (reduced dim 0 has size 0) in 'stride.min' at {{.*}}errors.mlir:

func.func @make() -> (!stride.tensor<2x3xf64>, !stride.tensor<3x2xf32>) {
  %a = stride.full 1.0 : !stride.tensor<2x3xf64>
  %b = stride.iota dim 0 : !stride.tensor<3x2xf32>
  return %a, %b : !stride.tensor<2x3xf64>, !stride.tensor<3x2xf32>
}

func.func @takes_f32(%x: !stride.tensor<2x3xf32> {stride.name = "x"}) -> !stride.tensor<2x3xf32> {
  return %x : !stride.tensor<2x3xf32>
}

func.func @positional(%x: !stride.tensor<3x2xf32>) -> !stride.tensor<3x2xf32> {
  return %x : !stride.tensor<3x2xf32>
}

func.func @gather_oob() -> !stride.tensor<2x1xf32> {
  %x = stride.full 1.0 : !stride.tensor<2x3xf32>
  %i = stride.constant dense<[[0], [5]]> : tensor<2x1xi64> : !stride.tensor<2x1xi64>
  %g = stride.gather %x, %i dim 1 : !stride.tensor<2x3xf32>, !stride.tensor<2x1xi64>
      -> !stride.tensor<2x1xf32>
  return %g : !stride.tensor<2x1xf32>
}

func.func @index_select_oob() -> !stride.tensor<2x3xf32> {
  %x = stride.full 1.0 : !stride.tensor<2x3xf32>
  %i = stride.constant dense<[0, -1]> : tensor<2xi32> : !stride.tensor<2xi32>
  %g = stride.index_select %x, %i dim 0 : !stride.tensor<2x3xf32>, !stride.tensor<2xi32>
      -> !stride.tensor<2x3xf32>
  return %g : !stride.tensor<2x3xf32>
}

func.func @scatter_add_oob() -> !stride.tensor<2x3xf32> {
  %x = stride.full 1.0 : !stride.tensor<2x3xf32>
  %i = stride.constant dense<[[0, 2, 1]]> : tensor<1x3xi64> : !stride.tensor<1x3xi64>
  %s = stride.scatter_add %x, %i, %x dim 0 : !stride.tensor<2x3xf32>,
      !stride.tensor<1x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  return %s : !stride.tensor<2x3xf32>
}

func.func @index_add_oob() -> !stride.tensor<2x3xf32> {
  %x = stride.full 1.0 : !stride.tensor<2x3xf32>
  %i = stride.constant dense<[9]> : tensor<1xi64> : !stride.tensor<1xi64>
  %src = stride.full 1.0 : !stride.tensor<1x3xf32>
  %s = stride.index_add %x, %i, %src dim 0 : !stride.tensor<2x3xf32>,
      !stride.tensor<1xi64>, !stride.tensor<1x3xf32> -> !stride.tensor<2x3xf32>
  return %s : !stride.tensor<2x3xf32>
}

func.func @div_zero() -> !stride.tensor<3xi64> {
  %x = stride.full 6.0 : !stride.tensor<3xi64>
  %y = stride.iota dim 0 : !stride.tensor<3xi64>
  %d = stride.div %x, %y : !stride.tensor<3xi64>, !stride.tensor<3xi64> -> !stride.tensor<3xi64>
  return %d : !stride.tensor<3xi64>
}

func.func @max_empty() -> !stride.tensor<2xf32> {
  %z = stride.full 0.0 : !stride.tensor<2x0xf32>
  %m = stride.max %z dims [1] : !stride.tensor<2x0xf32> -> !stride.tensor<2xf32>
  return %m : !stride.tensor<2xf32>
}

func.func @min_empty() -> !stride.tensor<2xi32> {
  %z = stride.full 0.0 : !stride.tensor<0x2xi32>
  %m = stride.min %z dims [0] : !stride.tensor<0x2xi32> -> !stride.tensor<2xi32>
  return %m : !stride.tensor<2xi32>
}
