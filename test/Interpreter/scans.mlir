// cumsum: the running sum along one dim, over a transposed view, of
// integers (wrapping) and of f16 (summed in f64, each element rounded once).
// RUN: stride-run %s --reference --entry=cumsum --print | FileCheck %s

func.func @cumsum() -> (!stride.tensor<3x4xf32>, !stride.tensor<3x4xf32>,
    !stride.tensor<4x3xf32>, !stride.tensor<3xi8>, !stride.tensor<4xf16>,
    !stride.tensor<2x0xf32>) {
  %a = stride.iota dim 0 : !stride.tensor<12xf32>
  // x = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
  %x = stride.view %a : !stride.tensor<12xf32>
      -> !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
  %rows = stride.cumsum %x dim 1 : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
      -> !stride.tensor<3x4xf32>
  %cols = stride.cumsum %x dim 0 : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
      -> !stride.tensor<3x4xf32>
  // Along dim 1 of the transpose: x's columns.
  %t = stride.permute %x dims [1, 0]
      : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
      -> !stride.tensor<4x3xf32, strides = [1, 4], offset = 0>
  %tc = stride.cumsum %t dim 1 : !stride.tensor<4x3xf32, strides = [1, 4], offset = 0>
      -> !stride.tensor<4x3xf32>
  // 100 + 100 wraps to -56 in i8; -56 + 100 = 44.
  %h = stride.full 100.0 : !stride.tensor<3xi8>
  %w = stride.cumsum %h dim 0 : !stride.tensor<3xi8> -> !stride.tensor<3xi8>
  // f16: 2048 + 1 rounds to 2048 per element, but the sum runs in f64:
  // [2048, 2049 -> 2048, 2050, 2051 -> 2052].
  %big = stride.constant dense<[2048.0, 1.0, 1.0, 1.0]> : tensor<4xf16>
      : !stride.tensor<4xf16>
  %f = stride.cumsum %big dim 0 : !stride.tensor<4xf16> -> !stride.tensor<4xf16>
  %z = stride.full 1.0 : !stride.tensor<2x0xf32>
  %e = stride.cumsum %z dim 1 : !stride.tensor<2x0xf32> -> !stride.tensor<2x0xf32>
  return %rows, %cols, %tc, %w, %f, %e
      : !stride.tensor<3x4xf32>, !stride.tensor<3x4xf32>, !stride.tensor<4x3xf32>,
        !stride.tensor<3xi8>, !stride.tensor<4xf16>, !stride.tensor<2x0xf32>
}

// CHECK: result0: f32 [3, 4]
// CHECK-NEXT: {{\[\[}}0, 1, 3, 6],
// CHECK-NEXT: [4, 9, 15, 22],
// CHECK-NEXT: [8, 17, 27, 38]]
// CHECK-NEXT: result1: f32 [3, 4]
// CHECK-NEXT: {{\[\[}}0, 1, 2, 3],
// CHECK-NEXT: [4, 6, 8, 10],
// CHECK-NEXT: [12, 15, 18, 21]]
// CHECK-NEXT: result2: f32 [4, 3]
// CHECK-NEXT: {{\[\[}}0, 4, 12],
// CHECK-NEXT: [1, 6, 15],
// CHECK-NEXT: [2, 8, 18],
// CHECK-NEXT: [3, 10, 21]]
// CHECK-NEXT: result3: i8 [3]
// CHECK-NEXT: [100, -56, 44]
// CHECK-NEXT: result4: f16 [4]
// CHECK-NEXT: [2048, 2048, 2050, 2052]
// CHECK-NEXT: result5: f32 [2, 0]
