// Pointwise binary ops, cmp and where. Integer div truncates toward zero;
// maximum/minimum propagate NaN; and/or are logical on i1, bitwise on ints.
// RUN: stride-run %s --reference --entry=floats --print | FileCheck %s --check-prefix=F
// RUN: stride-run %s --reference --entry=ints --print | FileCheck %s --check-prefix=I
// RUN: stride-run %s --reference --entry=compare --print | FileCheck %s --check-prefix=C

func.func @floats() -> (!stride.tensor<4xf32>, !stride.tensor<4xf32>,
    !stride.tensor<4xf32>, !stride.tensor<4xf32>, !stride.tensor<4xf32>,
    !stride.tensor<4xf32>, !stride.tensor<4xf32>) {
  %x = stride.constant dense<[1.5, -2.0, 0x7FC00000, 3.0]> : tensor<4xf32>
      : !stride.tensor<4xf32>
  %y = stride.constant dense<[0.5, 4.0, 1.0, 0.0]> : tensor<4xf32>
      : !stride.tensor<4xf32>
  %add = stride.add %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %sub = stride.sub %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %mul = stride.mul %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %div = stride.div %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %pow = stride.pow %y, %x : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %max = stride.maximum %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %min = stride.minimum %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %add, %sub, %mul, %div, %pow, %max, %min
      : !stride.tensor<4xf32>, !stride.tensor<4xf32>, !stride.tensor<4xf32>,
        !stride.tensor<4xf32>, !stride.tensor<4xf32>, !stride.tensor<4xf32>,
        !stride.tensor<4xf32>
}

func.func @ints() -> (!stride.tensor<4xi32>, !stride.tensor<4xi32>,
    !stride.tensor<4xi32>, !stride.tensor<4xi32>, !stride.tensor<4xi32>,
    !stride.tensor<4xi32>, !stride.tensor<4xi32>, !stride.tensor<4xi32>,
    !stride.tensor<4xi1>, !stride.tensor<4xi1>, !stride.tensor<2xi8>) {
  %x = stride.constant dense<[7, -7, 12, 2147483647]> : tensor<4xi32>
      : !stride.tensor<4xi32>
  %y = stride.constant dense<[2, 2, -5, 1]> : tensor<4xi32>
      : !stride.tensor<4xi32>
  %add = stride.add %x, %y : !stride.tensor<4xi32>, !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %sub = stride.sub %x, %y : !stride.tensor<4xi32>, !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %mul = stride.mul %x, %y : !stride.tensor<4xi32>, !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %div = stride.div %x, %y : !stride.tensor<4xi32>, !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %max = stride.maximum %x, %y : !stride.tensor<4xi32>, !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %min = stride.minimum %x, %y : !stride.tensor<4xi32>, !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %and = stride.and %x, %y : !stride.tensor<4xi32>, !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %or = stride.or %x, %y : !stride.tensor<4xi32>, !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %p = stride.constant dense<[true, true, false, false]> : tensor<4xi1> : !stride.tensor<4xi1>
  %q = stride.constant dense<[true, false, true, false]> : tensor<4xi1> : !stride.tensor<4xi1>
  %land = stride.and %p, %q : !stride.tensor<4xi1>, !stride.tensor<4xi1> -> !stride.tensor<4xi1>
  %lor = stride.or %p, %q : !stride.tensor<4xi1>, !stride.tensor<4xi1> -> !stride.tensor<4xi1>
  %a8 = stride.constant dense<[100, -100]> : tensor<2xi8> : !stride.tensor<2xi8>
  %s8 = stride.add %a8, %a8 : !stride.tensor<2xi8>, !stride.tensor<2xi8> -> !stride.tensor<2xi8>
  return %add, %sub, %mul, %div, %max, %min, %and, %or, %land, %lor, %s8
      : !stride.tensor<4xi32>, !stride.tensor<4xi32>, !stride.tensor<4xi32>,
        !stride.tensor<4xi32>, !stride.tensor<4xi32>, !stride.tensor<4xi32>,
        !stride.tensor<4xi32>, !stride.tensor<4xi32>, !stride.tensor<4xi1>,
        !stride.tensor<4xi1>, !stride.tensor<2xi8>
}

func.func @compare() -> (!stride.tensor<4xi1>, !stride.tensor<4xi1>,
    !stride.tensor<4xi1>, !stride.tensor<4xi1>, !stride.tensor<4xi1>,
    !stride.tensor<4xi1>, !stride.tensor<4xf32>, !stride.tensor<3xi1>) {
  %x = stride.constant dense<[1.0, 2.0, 0x7FC00000, 3.0]> : tensor<4xf32>
      : !stride.tensor<4xf32>
  %y = stride.constant dense<[1.0, 3.0, 0x7FC00000, 2.0]> : tensor<4xf32>
      : !stride.tensor<4xf32>
  %eq = stride.cmp eq, %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xi1>
  %ne = stride.cmp ne, %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xi1>
  %lt = stride.cmp lt, %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xi1>
  %le = stride.cmp le, %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xi1>
  %gt = stride.cmp gt, %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xi1>
  %ge = stride.cmp ge, %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xi1>
  %w = stride.where %lt, %x, %y : !stride.tensor<4xi1>, !stride.tensor<4xf32>,
      !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %i = stride.constant dense<[-1, 0, 5]> : tensor<3xi64> : !stride.tensor<3xi64>
  %j = stride.constant dense<[0, 0, 4]> : tensor<3xi64> : !stride.tensor<3xi64>
  %ilt = stride.cmp lt, %i, %j : !stride.tensor<3xi64>, !stride.tensor<3xi64> -> !stride.tensor<3xi1>
  return %eq, %ne, %lt, %le, %gt, %ge, %w, %ilt
      : !stride.tensor<4xi1>, !stride.tensor<4xi1>, !stride.tensor<4xi1>,
        !stride.tensor<4xi1>, !stride.tensor<4xi1>, !stride.tensor<4xi1>,
        !stride.tensor<4xf32>, !stride.tensor<3xi1>
}

// F: result0: f32 [4]
// F-NEXT: [2, 2, nan, 3]
// F-NEXT: result1: f32 [4]
// F-NEXT: [1, -6, nan, 3]
// F-NEXT: result2: f32 [4]
// F-NEXT: [0.75, -8, nan, 0]
// F-NEXT: result3: f32 [4]
// F-NEXT: [3, -0.5, nan, inf]
// F-NEXT: result4: f32 [4]
// F-NEXT: [0.35355338, 0.0625, 1, 0]
// F-NEXT: result5: f32 [4]
// F-NEXT: [1.5, 4, nan, 3]
// F-NEXT: result6: f32 [4]
// F-NEXT: [0.5, -2, nan, 0]

// I: result0: i32 [4]
// I-NEXT: [9, -5, 7, -2147483648]
// I-NEXT: result1: i32 [4]
// I-NEXT: [5, -9, 17, 2147483646]
// I-NEXT: result2: i32 [4]
// I-NEXT: [14, -14, -60, 2147483647]
// I-NEXT: result3: i32 [4]
// I-NEXT: [3, -3, -2, 2147483647]
// I-NEXT: result4: i32 [4]
// I-NEXT: [7, 2, 12, 2147483647]
// I-NEXT: result5: i32 [4]
// I-NEXT: [2, -7, -5, 1]
// I-NEXT: result6: i32 [4]
// I-NEXT: [2, 0, 8, 1]
// I-NEXT: result7: i32 [4]
// I-NEXT: [7, -5, -1, 2147483647]
// I-NEXT: result8: i1 [4]
// I-NEXT: [true, false, false, false]
// I-NEXT: result9: i1 [4]
// I-NEXT: [true, true, true, false]
// I-NEXT: result10: i8 [2]
// I-NEXT: [-56, 56]

// C: result0: i1 [4]
// C-NEXT: [true, false, false, false]
// C-NEXT: result1: i1 [4]
// C-NEXT: [false, true, true, true]
// C-NEXT: result2: i1 [4]
// C-NEXT: [false, true, false, false]
// C-NEXT: result3: i1 [4]
// C-NEXT: [true, true, false, false]
// C-NEXT: result4: i1 [4]
// C-NEXT: [false, false, false, true]
// C-NEXT: result5: i1 [4]
// C-NEXT: [true, false, false, true]
// C-NEXT: result6: f32 [4]
// C-NEXT: [1, 2, nan, 2]
// C-NEXT: result7: i1 [3]
// C-NEXT: [true, false, false]
