// Creation ops, clone and cast; results written with non-row-major layouts
// and offsets are read back in logical order.
// RUN: stride-run %s --reference --entry=create --print | FileCheck %s --check-prefix=C
// RUN: stride-run %s --reference --entry=casts --print | FileCheck %s --check-prefix=K

func.func @create() -> (!stride.tensor<2x3xi32>,
    !stride.tensor<2x3xf32, strides = [1, 2], offset = 0>,
    !stride.tensor<2x3xi64>, !stride.tensor<2x3xf16>,
    !stride.tensor<3x2xf32, strides = [1, 3], offset = 0>,
    !stride.tensor<2xi1>, !stride.tensor<2x2xf32, strides = [2, 1], offset = 3>,
    !stride.tensor<2xbf16>) {
  %full = stride.full 7.0 : !stride.tensor<2x3xi32>
  // Written column-major; printed in logical (row-major) order.
  %c = stride.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
      : !stride.tensor<2x3xf32, strides = [1, 2], offset = 0>
  %i0 = stride.iota dim 1 : !stride.tensor<2x3xi64>
  %i1 = stride.iota dim 0 : !stride.tensor<2x3xf16>
  // clone of a transposed view into a column-major buffer.
  %t = stride.permute %c dims [1, 0]
      : !stride.tensor<2x3xf32, strides = [1, 2], offset = 0>
      -> !stride.tensor<3x2xf32, strides = [2, 1], offset = 0>
  %cl = stride.clone %t : !stride.tensor<3x2xf32, strides = [2, 1], offset = 0>
      -> !stride.tensor<3x2xf32, strides = [1, 3], offset = 0>
  %b = stride.full 1.0 : !stride.tensor<2xi1>
  // A functional result with an offset.
  %o = stride.full -2.5 : !stride.tensor<2x2xf32, strides = [2, 1], offset = 3>
  // 1/3 rounds to bf16 0.333984375.
  %h = stride.constant dense<[0.333333333, 300.0]> : tensor<2xbf16> : !stride.tensor<2xbf16>
  return %full, %c, %i0, %i1, %cl, %b, %o, %h
      : !stride.tensor<2x3xi32>, !stride.tensor<2x3xf32, strides = [1, 2], offset = 0>,
        !stride.tensor<2x3xi64>, !stride.tensor<2x3xf16>,
        !stride.tensor<3x2xf32, strides = [1, 3], offset = 0>,
        !stride.tensor<2xi1>, !stride.tensor<2x2xf32, strides = [2, 1], offset = 3>,
        !stride.tensor<2xbf16>
}

func.func @casts() -> (!stride.tensor<6xi32>, !stride.tensor<6xi1>,
    !stride.tensor<6xf16>, !stride.tensor<3xf32>, !stride.tensor<3xi8>,
    !stride.tensor<2xf64>, !stride.tensor<2xf32>) {
  %x = stride.constant dense<[2.7, -2.7, 0.0, 0x7FF8000000000000, 65520.0, 1.0e-8]>
      : tensor<6xf64> : !stride.tensor<6xf64>
  // Toward zero; NaN gives 0.
  %i = stride.cast %x : !stride.tensor<6xf64> -> !stride.tensor<6xi32>
  // != 0 (NaN is != 0).
  %b = stride.cast %x : !stride.tensor<6xf64> -> !stride.tensor<6xi1>
  // Round to nearest even: 65520 (a tie) rounds up to 65536, inf in f16;
  // 1e-8 is below half the smallest f16 subnormal, so 0.
  %h = stride.cast %x : !stride.tensor<6xf64> -> !stride.tensor<6xf16>
  %bools = stride.constant dense<[true, false, true]> : tensor<3xi1> : !stride.tensor<3xi1>
  %bf = stride.cast %bools : !stride.tensor<3xi1> -> !stride.tensor<3xf32>
  %big = stride.constant dense<[300, -129, 5]> : tensor<3xi32> : !stride.tensor<3xi32>
  // Integer narrowing wraps (two's complement).
  %n = stride.cast %big : !stride.tensor<3xi32> -> !stride.tensor<3xi8>
  // i64 -> f64 rounds once: 2^53 + 1 is not representable.
  %l = stride.constant dense<[9007199254740993, -3]> : tensor<2xi64> : !stride.tensor<2xi64>
  %lf = stride.cast %l : !stride.tensor<2xi64> -> !stride.tensor<2xf64>
  // 16777217 to f32 rounds to even 16777216.
  %m = stride.constant dense<[16777217, 16777219]> : tensor<2xi64> : !stride.tensor<2xi64>
  %mf = stride.cast %m : !stride.tensor<2xi64> -> !stride.tensor<2xf32>
  return %i, %b, %h, %bf, %n, %lf, %mf
      : !stride.tensor<6xi32>, !stride.tensor<6xi1>, !stride.tensor<6xf16>,
        !stride.tensor<3xf32>, !stride.tensor<3xi8>, !stride.tensor<2xf64>,
        !stride.tensor<2xf32>
}

// C: result0: i32 [2, 3]
// C-NEXT: {{\[\[}}7, 7, 7],
// C-NEXT: [7, 7, 7]]
// C-NEXT: result1: f32 [2, 3]
// C-NEXT: {{\[\[}}1, 2, 3],
// C-NEXT: [4, 5, 6]]
// C-NEXT: result2: i64 [2, 3]
// C-NEXT: {{\[\[}}0, 1, 2],
// C-NEXT: [0, 1, 2]]
// C-NEXT: result3: f16 [2, 3]
// C-NEXT: {{\[\[}}0, 0, 0],
// C-NEXT: [1, 1, 1]]
// C-NEXT: result4: f32 [3, 2]
// C-NEXT: {{\[\[}}1, 4],
// C-NEXT: [2, 5],
// C-NEXT: [3, 6]]
// C-NEXT: result5: i1 [2]
// C-NEXT: [true, true]
// C-NEXT: result6: f32 [2, 2]
// C-NEXT: {{\[\[}}-2.5, -2.5],
// C-NEXT: [-2.5, -2.5]]
// C-NEXT: result7: bf16 [2]
// C-NEXT: [0.334, 300]

// K: result0: i32 [6]
// K-NEXT: [2, -2, 0, 0, 65520, 0]
// K-NEXT: result1: i1 [6]
// K-NEXT: [true, true, false, true, true, true]
// K-NEXT: result2: f16 [6]
// K-NEXT: [2.7, -2.7, 0, nan, inf, 0]
// K-NEXT: result3: f32 [3]
// K-NEXT: [1, 0, 1]
// K-NEXT: result4: i8 [3]
// K-NEXT: [44, 127, 5]
// K-NEXT: result5: f64 [2]
// K-NEXT: [9007199254740992, -3]
// K-NEXT: result6: f32 [2]
// K-NEXT: [16777216, 16777220]
