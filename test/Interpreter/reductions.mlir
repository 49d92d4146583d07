// Reductions over lists of dims, with and without keepdim; empty dims give
// 0 (sum), 1 (prod) and NaN (mean); max/min propagate NaN.
// RUN: stride-run %s --reference --entry=reduce --print | FileCheck %s --check-prefix=R
// RUN: stride-run %s --reference --entry=empty --print | FileCheck %s --check-prefix=E
// RUN: stride-run %s --reference --entry=any --print | FileCheck %s --check-prefix=A

func.func @reduce() -> (!stride.tensor<3xf32>, !stride.tensor<1x4xf32>,
    !stride.tensor<f32>, !stride.tensor<3xf32>, !stride.tensor<4xf32>,
    !stride.tensor<3x1xf32>, !stride.tensor<2xf32>, !stride.tensor<3xi32>,
    !stride.tensor<3x4xf32>, !stride.tensor<2xf32>) {
  %a = stride.iota dim 0 : !stride.tensor<12xf32>
  // x = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
  %x = stride.view %a : !stride.tensor<12xf32>
      -> !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
  %s1 = stride.sum %x dims [1] : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
      -> !stride.tensor<3xf32>
  %s0 = stride.sum %x dims [0] keepdim : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
      -> !stride.tensor<1x4xf32>
  %all = stride.sum %x dims [0, 1] : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
      -> !stride.tensor<f32>
  %mean = stride.mean %x dims [1] : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
      -> !stride.tensor<3xf32>
  // max over the rows of the transposed view: column maxima.
  %t = stride.permute %x dims [1, 0]
      : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
      -> !stride.tensor<4x3xf32, strides = [1, 4], offset = 0>
  %max = stride.max %t dims [1] : !stride.tensor<4x3xf32, strides = [1, 4], offset = 0>
      -> !stride.tensor<4xf32>
  %min = stride.min %x dims [1] keepdim : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
      -> !stride.tensor<3x1xf32>
  // NaN propagates through max and min.
  %n = stride.constant dense<[[1.0, 0x7FC00000], [2.0, -1.0]]> : tensor<2x2xf32>
      : !stride.tensor<2x2xf32>
  %nmax = stride.max %n dims [1] : !stride.tensor<2x2xf32> -> !stride.tensor<2xf32>
  // prod of integers: [0*1*2*3, 4*5*6*7, 8*9*10*11].
  %xi = stride.cast %x : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
      -> !stride.tensor<3x4xi32>
  %p = stride.prod %xi dims [1] : !stride.tensor<3x4xi32> -> !stride.tensor<3xi32>
  // An empty list reduces nothing.
  %id = stride.sum %x dims [] : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
      -> !stride.tensor<3x4xf32>
  // Sum over a zero-stride (expanded) dim: each element counted 3 times.
  %row = stride.select %x dim 0 index 0
      : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
      -> !stride.tensor<4xf32, strides = [1], offset = 0>
  %pair = stride.slice %row dim 0 start 1 end 3 step 1
      : !stride.tensor<4xf32, strides = [1], offset = 0>
      -> !stride.tensor<2xf32, strides = [1], offset = 1>
  %e = stride.expand %pair : !stride.tensor<2xf32, strides = [1], offset = 1>
      -> !stride.tensor<3x2xf32, strides = [0, 1], offset = 1>
  %es = stride.sum %e dims [0] : !stride.tensor<3x2xf32, strides = [0, 1], offset = 1>
      -> !stride.tensor<2xf32>
  return %s1, %s0, %all, %mean, %max, %min, %nmax, %p, %id, %es
      : !stride.tensor<3xf32>, !stride.tensor<1x4xf32>, !stride.tensor<f32>,
        !stride.tensor<3xf32>, !stride.tensor<4xf32>, !stride.tensor<3x1xf32>,
        !stride.tensor<2xf32>, !stride.tensor<3xi32>, !stride.tensor<3x4xf32>,
        !stride.tensor<2xf32>
}

func.func @empty() -> (!stride.tensor<2xf32>, !stride.tensor<2xf32>,
                       !stride.tensor<2xf32>, !stride.tensor<0xf32>) {
  %z = stride.full 5.0 : !stride.tensor<2x0xf32>
  %sum = stride.sum %z dims [1] : !stride.tensor<2x0xf32> -> !stride.tensor<2xf32>
  %prod = stride.prod %z dims [1] : !stride.tensor<2x0xf32> -> !stride.tensor<2xf32>
  %mean = stride.mean %z dims [1] : !stride.tensor<2x0xf32> -> !stride.tensor<2xf32>
  // max over a non-empty dim of an empty tensor is an empty result, not an error.
  %max = stride.max %z dims [0] : !stride.tensor<2x0xf32> -> !stride.tensor<0xf32>
  return %sum, %prod, %mean, %max
      : !stride.tensor<2xf32>, !stride.tensor<2xf32>, !stride.tensor<2xf32>,
        !stride.tensor<0xf32>
}

// R: result0: f32 [3]
// R-NEXT: [6, 22, 38]
// R-NEXT: result1: f32 [1, 4]
// R-NEXT: {{\[\[}}12, 15, 18, 21]]
// R-NEXT: result2: f32 []
// R-NEXT: 66
// R-NEXT: result3: f32 [3]
// R-NEXT: [1.5, 5.5, 9.5]
// R-NEXT: result4: f32 [4]
// R-NEXT: [8, 9, 10, 11]
// R-NEXT: result5: f32 [3, 1]
// R-NEXT: {{\[\[}}0],
// R-NEXT: [4],
// R-NEXT: [8]]
// R-NEXT: result6: f32 [2]
// R-NEXT: [nan, 2]
// R-NEXT: result7: i32 [3]
// R-NEXT: [0, 840, 7920]
// R-NEXT: result8: f32 [3, 4]
// R-NEXT: {{\[\[}}0, 1, 2, 3],
// R-NEXT: [4, 5, 6, 7],
// R-NEXT: [8, 9, 10, 11]]
// R-NEXT: result9: f32 [2]
// R-NEXT: [3, 6]

// E: result0: f32 [2]
// E-NEXT: [0, 0]
// E-NEXT: result1: f32 [2]
// E-NEXT: [1, 1]
// E-NEXT: result2: f32 [2]
// E-NEXT: [nan, nan]
// E-NEXT: result3: f32 [0]
// E-NEXT: []

// any (torch.any of booleans): true where some element of the reduced dims
// is; false over no elements.
func.func @any() -> (!stride.tensor<3xi1>, !stride.tensor<1x4xi1>,
    !stride.tensor<i1>, !stride.tensor<i1>, !stride.tensor<3xi1>) {
  %a = stride.iota dim 0 : !stride.tensor<12xf32>
  // x = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
  %x = stride.view %a : !stride.tensor<12xf32>
      -> !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
  // b = x == 5 or x == 10: [[F, F, F, F], [F, T, F, F], [F, F, T, F]]
  %five = stride.full 5.0 : !stride.tensor<3x4xf32>
  %ten = stride.full 10.0 : !stride.tensor<3x4xf32>
  %is5 = stride.cmp eq, %x, %five : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>,
      !stride.tensor<3x4xf32> -> !stride.tensor<3x4xi1>
  %is10 = stride.cmp eq, %x, %ten : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>,
      !stride.tensor<3x4xf32> -> !stride.tensor<3x4xi1>
  %b = stride.or %is5, %is10 : !stride.tensor<3x4xi1>, !stride.tensor<3x4xi1>
      -> !stride.tensor<3x4xi1>
  %rows = stride.any %b dims [1] : !stride.tensor<3x4xi1> -> !stride.tensor<3xi1>
  %cols = stride.any %b dims [0] keepdim : !stride.tensor<3x4xi1>
      -> !stride.tensor<1x4xi1>
  %all = stride.any %b dims [0, 1] : !stride.tensor<3x4xi1> -> !stride.tensor<i1>
  %f = stride.full 0.0 : !stride.tensor<3x4xi1>
  %none = stride.any %f dims [0, 1] : !stride.tensor<3x4xi1> -> !stride.tensor<i1>
  %e = stride.full 1.0 : !stride.tensor<3x0xi1>
  %empty = stride.any %e dims [1] : !stride.tensor<3x0xi1> -> !stride.tensor<3xi1>
  return %rows, %cols, %all, %none, %empty
      : !stride.tensor<3xi1>, !stride.tensor<1x4xi1>, !stride.tensor<i1>,
        !stride.tensor<i1>, !stride.tensor<3xi1>
}
// A: result0: i1 [3]
// A-NEXT: [false, true, true]
// A-NEXT: result1: i1 [1, 4]
// A-NEXT: {{\[\[}}false, true, true, false]]
// A-NEXT: result2: i1 []
// A-NEXT: true
// A-NEXT: result3: i1 []
// A-NEXT: false
// A-NEXT: result4: i1 [3]
// A-NEXT: [false, false, false]

// argmax and argmin (torch.argmax, torch.argmin): the first extreme
// element of each row wins; a NaN beats any number (the first NaN wins);
// -0.0 equals 0.0; integers compare exactly.
// RUN: stride-run %s --reference --entry=arg --print | FileCheck %s --check-prefix=ARG
func.func @arg() -> (!stride.tensor<5xi64>, !stride.tensor<5xi64>,
    !stride.tensor<1x3xi64>, !stride.tensor<3xi64>, !stride.tensor<2xi64>) {
  // rows: ties, NaN after the maximum, two NaNs, -0.0 before 0.0, -inf only
  %x = stride.constant dense<[[1.0, 3.0, 3.0, -2.0], [5.0, 0x7FC00000, 9.0, 0x7FC00000],
      [0x7FC00000, 1.0, 0x7FC00000, -1.0], [-0.0, 0.0, -0.0, 0.0],
      [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000]]> : tensor<5x4xf32>
      : !stride.tensor<5x4xf32>
  %amax = stride.argmax %x dim 1 : !stride.tensor<5x4xf32> -> !stride.tensor<5xi64>
  %amin = stride.argmin %x dim 1 : !stride.tensor<5x4xf32> -> !stride.tensor<5xi64>
  // Along dim 0 of a transposed view, keepdim.
  %a = stride.iota dim 0 : !stride.tensor<6xf32>
  %v = stride.view %a : !stride.tensor<6xf32>
      -> !stride.tensor<3x2xf32, strides = [2, 1], offset = 0>
  %t = stride.permute %v dims [1, 0]
      : !stride.tensor<3x2xf32, strides = [2, 1], offset = 0>
      -> !stride.tensor<2x3xf32, strides = [1, 2], offset = 0>
  %cols = stride.argmax %t dim 0 keepdim
      : !stride.tensor<2x3xf32, strides = [1, 2], offset = 0> -> !stride.tensor<1x3xi64>
  // Integers beyond 2^53 still compare exactly.
  %big = stride.constant dense<[[9007199254740993, 9007199254740992], [-3, -3],
      [7, 8]]> : tensor<3x2xi64> : !stride.tensor<3x2xi64>
  %bmax = stride.argmax %big dim 1 : !stride.tensor<3x2xi64> -> !stride.tensor<3xi64>
  %i8 = stride.constant dense<[[-128, 127, -128], [4, 4, -5]]> : tensor<2x3xi8>
      : !stride.tensor<2x3xi8>
  %bmin = stride.argmin %i8 dim 1 : !stride.tensor<2x3xi8> -> !stride.tensor<2xi64>
  return %amax, %amin, %cols, %bmax, %bmin
      : !stride.tensor<5xi64>, !stride.tensor<5xi64>, !stride.tensor<1x3xi64>,
        !stride.tensor<3xi64>, !stride.tensor<2xi64>
}

// ARG: result0: i64 [5]
// ARG-NEXT: [1, 1, 0, 0, 0]
// ARG-NEXT: result1: i64 [5]
// ARG-NEXT: [3, 1, 0, 0, 0]
// ARG-NEXT: result2: i64 [1, 3]
// ARG-NEXT: {{\[\[}}1, 1, 1]]
// ARG-NEXT: result3: i64 [3]
// ARG-NEXT: [0, 0, 1]
// ARG-NEXT: result4: i64 [2]
// ARG-NEXT: [0, 2]

// An empty row is an error, as in PyTorch.
// RUN: not stride-run %s --reference --entry=arg_empty 2>&1 | FileCheck %s --check-prefix=EMPTYARG
// EMPTYARG: argmax of no elements (reduced dim 1 has size 0)
func.func @arg_empty() -> !stride.tensor<2xi64> {
  %z = stride.full 5.0 : !stride.tensor<2x0xf32>
  %a = stride.argmax %z dim 1 : !stride.tensor<2x0xf32> -> !stride.tensor<2xi64>
  return %a : !stride.tensor<2xi64>
}
