// Every view op reads its operand's storage through the result type's layout:
// zero strides, offsets, step slices and overlapping as_strided reads.
// RUN: stride-run %s --reference --print | FileCheck %s

func.func @views() -> (!stride.tensor<4x3xf32, strides = [1, 4], offset = 0>,
                       !stride.tensor<3x2xf32, strides = [4, 2], offset = 1>,
                       !stride.tensor<4xf32, strides = [1], offset = 8>,
                       !stride.tensor<2x4xf32, strides = [0, 1], offset = 8>,
                       !stride.tensor<4xf32, strides = [1], offset = 8>,
                       !stride.tensor<3x4xf32, strides = [2, 1], offset = 1>,
                       !stride.tensor<2x2xf32, strides = [0, 3], offset = 5>,
                       !stride.tensor<2x3x1xf32, strides = [3, 1, 1], offset = 0>,
                       !stride.tensor<2xf32, strides = [5], offset = 2>) {
  // 0, 1, ..., 11 viewed as 3x4.
  %a = stride.iota dim 0 : !stride.tensor<12xf32>
  %m = stride.view %a : !stride.tensor<12xf32>
      -> !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
  %t = stride.permute %m dims [1, 0]
      : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
      -> !stride.tensor<4x3xf32, strides = [1, 4], offset = 0>
  %s = stride.slice %m dim 1 start 1 end 4 step 2
      : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
      -> !stride.tensor<3x2xf32, strides = [4, 2], offset = 1>
  %r = stride.select %m dim 0 index 2
      : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
      -> !stride.tensor<4xf32, strides = [1], offset = 8>
  %u = stride.unsqueeze %r dim 0
      : !stride.tensor<4xf32, strides = [1], offset = 8>
      -> !stride.tensor<1x4xf32, strides = [4, 1], offset = 8>
  %e = stride.expand %u
      : !stride.tensor<1x4xf32, strides = [4, 1], offset = 8>
      -> !stride.tensor<2x4xf32, strides = [0, 1], offset = 8>
  %q = stride.squeeze %u dims [0]
      : !stride.tensor<1x4xf32, strides = [4, 1], offset = 8>
      -> !stride.tensor<4xf32, strides = [1], offset = 8>
  // Overlapping windows: rows start at 1, 3, 5.
  %w = stride.as_strided %a : !stride.tensor<12xf32>
      -> !stride.tensor<3x4xf32, strides = [2, 1], offset = 1>
  // as_strided of a view is absolute in the storage (not relative to the
  // slice's offset 4); a zero stride reads addresses 5 and 8 twice.
  %tail = stride.slice %a dim 0 start 4 end 12 step 1
      : !stride.tensor<12xf32> -> !stride.tensor<8xf32, strides = [1], offset = 4>
  %z = stride.as_strided %tail : !stride.tensor<8xf32, strides = [1], offset = 4>
      -> !stride.tensor<2x2xf32, strides = [0, 3], offset = 5>
  // view of a 3x4 as 2x3x... via a 6-element slice: rows 0..1 of m, cols 0..2
  %six = stride.slice %a dim 0 start 0 end 6 step 1
      : !stride.tensor<12xf32> -> !stride.tensor<6xf32, strides = [1], offset = 0>
  %v = stride.view %six : !stride.tensor<6xf32, strides = [1], offset = 0>
      -> !stride.tensor<2x3x1xf32, strides = [3, 1, 1], offset = 0>
  // A step slice with an offset: 2, 7 of %a (step 5).
  %st = stride.slice %a dim 0 start 2 end 12 step 5
      : !stride.tensor<12xf32> -> !stride.tensor<2xf32, strides = [5], offset = 2>
  return %t, %s, %r, %e, %q, %w, %z, %v, %st
      : !stride.tensor<4x3xf32, strides = [1, 4], offset = 0>,
        !stride.tensor<3x2xf32, strides = [4, 2], offset = 1>,
        !stride.tensor<4xf32, strides = [1], offset = 8>,
        !stride.tensor<2x4xf32, strides = [0, 1], offset = 8>,
        !stride.tensor<4xf32, strides = [1], offset = 8>,
        !stride.tensor<3x4xf32, strides = [2, 1], offset = 1>,
        !stride.tensor<2x2xf32, strides = [0, 3], offset = 5>,
        !stride.tensor<2x3x1xf32, strides = [3, 1, 1], offset = 0>,
        !stride.tensor<2xf32, strides = [5], offset = 2>
}

// CHECK: result0: f32 [4, 3]
// CHECK-NEXT: {{\[\[}}0, 4, 8],
// CHECK-NEXT: [1, 5, 9],
// CHECK-NEXT: [2, 6, 10],
// CHECK-NEXT: [3, 7, 11]]
// CHECK-NEXT: result1: f32 [3, 2]
// CHECK-NEXT: {{\[\[}}1, 3],
// CHECK-NEXT: [5, 7],
// CHECK-NEXT: [9, 11]]
// CHECK-NEXT: result2: f32 [4]
// CHECK-NEXT: [8, 9, 10, 11]
// CHECK-NEXT: result3: f32 [2, 4]
// CHECK-NEXT: {{\[\[}}8, 9, 10, 11],
// CHECK-NEXT: [8, 9, 10, 11]]
// CHECK-NEXT: result4: f32 [4]
// CHECK-NEXT: [8, 9, 10, 11]
// CHECK-NEXT: result5: f32 [3, 4]
// CHECK-NEXT: {{\[\[}}1, 2, 3, 4],
// CHECK-NEXT: [3, 4, 5, 6],
// CHECK-NEXT: [5, 6, 7, 8]]
// CHECK-NEXT: result6: f32 [2, 2]
// CHECK-NEXT: {{\[\[}}5, 8],
// CHECK-NEXT: [5, 8]]
// CHECK-NEXT: result7: f32 [2, 3, 1]
// CHECK-NEXT: {{\[\[}}[0],
// CHECK-NEXT: [1],
// CHECK-NEXT: [2]],
// CHECK-NEXT: {{\[\[}}3],
// CHECK-NEXT: [4],
// CHECK-NEXT: [5]]]
// CHECK-NEXT: result8: f32 [2]
// CHECK-NEXT: [2, 7]
