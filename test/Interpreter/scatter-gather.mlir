// Scatters copy `input` and overwrite (or accumulate into) it; gathers read
// at the given indices. Duplicate indices accumulate in scatter_add and
// index_add.
// RUN: stride-run %s --reference --entry=scatters --print | FileCheck %s --check-prefix=S
// RUN: stride-run %s --reference --entry=gathers --print | FileCheck %s --check-prefix=G
// RUN: stride-run %s --reference --entry=cat --print | FileCheck %s --check-prefix=C

func.func @scatters() -> (!stride.tensor<3x4xf32>, !stride.tensor<3x4xf32>,
    !stride.tensor<3x4xf32>, !stride.tensor<3x4xf32>, !stride.tensor<3x4xi32>,
    !stride.tensor<3x4xf32>) {
  %a = stride.iota dim 0 : !stride.tensor<12xf32>
  // x = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
  %x = stride.view %a : !stride.tensor<12xf32>
      -> !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
  %src = stride.full -1.0 : !stride.tensor<3x2xf32>
  // Columns 1 and 3 (step 2) become -1.
  %ss = stride.slice_scatter %x, %src dim 1 start 1 end 4 step 2
      : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>,
        !stride.tensor<3x2xf32> -> !stride.tensor<3x4xf32>
  // Row 1 becomes 100, 101, 102, 103.
  %row0 = stride.iota dim 0 : !stride.tensor<4xf32>
  %hundred = stride.full 100.0 : !stride.tensor<4xf32>
  %row = stride.add %row0, %hundred : !stride.tensor<4xf32>, !stride.tensor<4xf32>
      -> !stride.tensor<4xf32>
  %sel = stride.select_scatter %x, %row dim 0 index 1
      : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>,
        !stride.tensor<4xf32> -> !stride.tensor<3x4xf32>
  // scatter along dim 0 with a 2x4 index. Column 1 has the duplicate index 0:
  // the interpreter writes in row-major order of the index, so the last wins.
  %idx = stride.constant dense<[[2, 0, 1, 2], [0, 0, 0, 0]]> : tensor<2x4xi64>
      : !stride.tensor<2x4xi64>
  %s8 = stride.iota dim 1 : !stride.tensor<2x4xf32>
  %ten = stride.full 10.0 : !stride.tensor<2x4xf32>
  // s = [[10, 11, 12, 13], [10, 11, 12, 13]] + 10 * iota(dim 0) below.
  %srcA = stride.add %s8, %ten : !stride.tensor<2x4xf32>, !stride.tensor<2x4xf32>
      -> !stride.tensor<2x4xf32>
  %rowid = stride.iota dim 0 : !stride.tensor<2x4xf32>
  %rowten = stride.mul %rowid, %ten : !stride.tensor<2x4xf32>, !stride.tensor<2x4xf32>
      -> !stride.tensor<2x4xf32>
  // s = [[10, 11, 12, 13], [20, 21, 22, 23]]
  %s = stride.add %srcA, %rowten : !stride.tensor<2x4xf32>, !stride.tensor<2x4xf32>
      -> !stride.tensor<2x4xf32>
  %sc = stride.scatter %x, %idx, %s dim 0
      : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>,
        !stride.tensor<2x4xi64>, !stride.tensor<2x4xf32> -> !stride.tensor<3x4xf32>
  %sa = stride.scatter_add %x, %idx, %s dim 0
      : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>,
        !stride.tensor<2x4xi64>, !stride.tensor<2x4xf32> -> !stride.tensor<3x4xf32>
  // index_add on i32 along dim 1 with a duplicate index 3.
  %xi = stride.iota dim 1 : !stride.tensor<3x4xi32>
  %ii = stride.constant dense<[3, 0, 3]> : tensor<3xi32> : !stride.tensor<3xi32>
  %one = stride.full 1.0 : !stride.tensor<3x3xi32>
  %ia = stride.index_add %xi, %ii, %one dim 1
      : !stride.tensor<3x4xi32>, !stride.tensor<3xi32>, !stride.tensor<3x3xi32>
      -> !stride.tensor<3x4xi32>
  // scatter along dim 1 with a 3x1 index: one element per row.
  %i1 = stride.constant dense<[[3], [0], [2]]> : tensor<3x1xi64> : !stride.tensor<3x1xi64>
  %m1 = stride.full -7.0 : !stride.tensor<3x1xf32>
  %sc1 = stride.scatter %x, %i1, %m1 dim 1
      : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>,
        !stride.tensor<3x1xi64>, !stride.tensor<3x1xf32> -> !stride.tensor<3x4xf32>
  return %ss, %sel, %sc, %sa, %ia, %sc1
      : !stride.tensor<3x4xf32>, !stride.tensor<3x4xf32>, !stride.tensor<3x4xf32>,
        !stride.tensor<3x4xf32>, !stride.tensor<3x4xi32>, !stride.tensor<3x4xf32>
}

func.func @gathers() -> (!stride.tensor<3x2xf32>, !stride.tensor<3x3xf32>,
                         !stride.tensor<2x4xf32>) {
  %a = stride.iota dim 0 : !stride.tensor<12xf32>
  %x = stride.view %a : !stride.tensor<12xf32>
      -> !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>
  %idx = stride.constant dense<[[3, 0], [1, 1], [0, 2]]> : tensor<3x2xi64>
      : !stride.tensor<3x2xi64>
  %g = stride.gather %x, %idx dim 1
      : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>,
        !stride.tensor<3x2xi64> -> !stride.tensor<3x2xf32>
  %cols = stride.constant dense<[2, 2, 0]> : tensor<3xi32> : !stride.tensor<3xi32>
  %is = stride.index_select %x, %cols dim 1
      : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>,
        !stride.tensor<3xi32> -> !stride.tensor<3x3xf32>
  // Rows 2 and 0 of x.
  %rows = stride.constant dense<[2, 0]> : tensor<2xi64> : !stride.tensor<2xi64>
  %r = stride.index_select %x, %rows dim 0
      : !stride.tensor<3x4xf32, strides = [4, 1], offset = 0>,
        !stride.tensor<2xi64> -> !stride.tensor<2x4xf32>
  return %g, %is, %r
      : !stride.tensor<3x2xf32>, !stride.tensor<3x3xf32>, !stride.tensor<2x4xf32>
}

// S: result0: f32 [3, 4]
// S-NEXT: {{\[\[}}0, -1, 2, -1],
// S-NEXT: [4, -1, 6, -1],
// S-NEXT: [8, -1, 10, -1]]
// S-NEXT: result1: f32 [3, 4]
// S-NEXT: {{\[\[}}0, 1, 2, 3],
// S-NEXT: [100, 101, 102, 103],
// S-NEXT: [8, 9, 10, 11]]
// S-NEXT: result2: f32 [3, 4]
// S-NEXT: {{\[\[}}20, 21, 22, 23],
// S-NEXT: [4, 5, 12, 7],
// S-NEXT: [10, 9, 10, 13]]
// S-NEXT: result3: f32 [3, 4]
// S-NEXT: {{\[\[}}20, 33, 24, 26],
// S-NEXT: [4, 5, 18, 7],
// S-NEXT: [18, 9, 10, 24]]
// S-NEXT: result4: i32 [3, 4]
// S-NEXT: {{\[\[}}1, 1, 2, 5],
// S-NEXT: [1, 1, 2, 5],
// S-NEXT: [1, 1, 2, 5]]
// S-NEXT: result5: f32 [3, 4]
// S-NEXT: {{\[\[}}0, 1, 2, -7],
// S-NEXT: [-7, 5, 6, 7],
// S-NEXT: [8, 9, -7, 11]]

// G: result0: f32 [3, 2]
// G-NEXT: {{\[\[}}3, 0],
// G-NEXT: [5, 5],
// G-NEXT: [8, 10]]
// G-NEXT: result1: f32 [3, 3]
// G-NEXT: {{\[\[}}2, 2, 0],
// G-NEXT: [6, 6, 4],
// G-NEXT: [10, 10, 8]]
// G-NEXT: result2: f32 [2, 4]
// G-NEXT: {{\[\[}}8, 9, 10, 11],
// G-NEXT: [0, 1, 2, 3]]

// cat along dim 1 of a [2, 2], an empty [2, 0] and a transposed [2, 3]
// input (its layout is read, not assumed), and along dim 0.
func.func @cat() -> (!stride.tensor<2x5xf32>, !stride.tensor<4x2xf32>) {
  %a = stride.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
      : !stride.tensor<2x2xf32>
  %e = stride.full 9.0 : !stride.tensor<2x0xf32>
  %i = stride.iota dim 0 : !stride.tensor<6xf32>
  // v = [[0, 1], [2, 3], [4, 5]]; t = its transpose [[0, 2, 4], [1, 3, 5]].
  %v = stride.view %i : !stride.tensor<6xf32>
      -> !stride.tensor<3x2xf32, strides = [2, 1], offset = 0>
  %t = stride.permute %v dims [1, 0] : !stride.tensor<3x2xf32, strides = [2, 1], offset = 0>
      -> !stride.tensor<2x3xf32, strides = [1, 2], offset = 0>
  %c = stride.cat %a, %e, %t dim 1 : !stride.tensor<2x2xf32>, !stride.tensor<2x0xf32>,
      !stride.tensor<2x3xf32, strides = [1, 2], offset = 0> -> !stride.tensor<2x5xf32>
  %r = stride.cat %a, %a dim 0 : !stride.tensor<2x2xf32>, !stride.tensor<2x2xf32>
      -> !stride.tensor<4x2xf32>
  return %c, %r : !stride.tensor<2x5xf32>, !stride.tensor<4x2xf32>
}
// C: result0: f32 [2, 5]
// C-NEXT: {{\[\[}}1, 2, 0, 2, 4],
// C-NEXT: [3, 4, 1, 3, 5]]
// C-NEXT: result1: f32 [4, 2]
// C-NEXT: {{\[\[}}1, 2],
// C-NEXT: [3, 4],
// C-NEXT: [1, 2],
// C-NEXT: [3, 4]]
