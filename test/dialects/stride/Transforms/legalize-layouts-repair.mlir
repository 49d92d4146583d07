// Repair mode gives each illegal functional result a dense layout, keeps the
// first operand's dim order when that operand is dense, and re-infers the
// views built on a repaired value.
// RUN: stride-opt %s --stride-legalize-layouts=repair -split-input-file 2>/dev/null | FileCheck %s
// RUN: stride-opt %s --stride-legalize-layouts=repair -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// The seed: the expand's [33, 0, 1] becomes row-major.
// CHECK-LABEL: func.func @seed
// REMARK: remark: repaired the layout of result #0: strides [33, 0, 1] overlap, using the dense strides [429, 33, 1]
// CHECK: stride.slice_scatter {{.*}} -> <4x13x33xf32, strides = [429, 33, 1], offset = 0>
// CHECK: return {{.*}} : !stride.tensor<4x13x33xf32, strides = [429, 33, 1], offset = 0>
func.func @seed(%e: !stride.tensor<4x13x33xf32, strides = [33, 0, 1]>, %z: !stride.tensor<4x6x33xf32>)
    -> !stride.tensor<4x13x33xf32, strides = [33, 0, 1]> {
  %0 = stride.slice_scatter %e, %z dim 1 start 0 end 6 step 1
      : !stride.tensor<4x13x33xf32, strides = [33, 0, 1]>, !stride.tensor<4x6x33xf32>
      -> !stride.tensor<4x13x33xf32, strides = [33, 0, 1]>
  return %0 : !stride.tensor<4x13x33xf32, strides = [33, 0, 1]>
}

// -----

// The first operand is a dense transpose (dim order 1, 0): the repair keeps
// that order, so the result is column-major too.
// CHECK-LABEL: func.func @preserves_dim_order
// REMARK: remark: repaired the layout of result #0: strides [0, 1] overlap, using the dense strides [1, 4]
// CHECK: stride.add {{.*}} -> <4x8xf32, strides = [1, 4], offset = 0>
func.func @preserves_dim_order(%t: !stride.tensor<4x8xf32, strides = [1, 4]>,
                               %y: !stride.tensor<4x8xf32>) -> !stride.tensor<4x8xf32, strides = [0, 1]> {
  %0 = stride.add %t, %y : !stride.tensor<4x8xf32, strides = [1, 4]>, !stride.tensor<4x8xf32>
      -> !stride.tensor<4x8xf32, strides = [0, 1]>
  return %0 : !stride.tensor<4x8xf32, strides = [0, 1]>
}

// -----

// The first operand is not dense (a zero-stride expand): row-major.
// CHECK-LABEL: func.func @row_major_fallback
// REMARK: remark: repaired the layout of result #0: strides [0, 1] overlap, using the dense strides [8, 1]
func.func @row_major_fallback(%e: !stride.tensor<4x8xf32, strides = [0, 1]>) -> !stride.tensor<4x8xf32, strides = [0, 1]> {
  %0 = stride.neg %e : !stride.tensor<4x8xf32, strides = [0, 1]> -> !stride.tensor<4x8xf32, strides = [0, 1]>
  return %0 : !stride.tensor<4x8xf32, strides = [0, 1]>
}

// -----

// Views of the repaired value get new strides: the permute and the slice
// are re-inferred from [429, 33, 1] (they were [0, 33, 1] ... before).
// CHECK-LABEL: func.func @reinfers_views
// CHECK: stride.iota dim 0 : <4x13x33xf32, strides = [429, 33, 1], offset = 0>
// CHECK: stride.permute {{.*}} -> <13x4x33xf32, strides = [33, 429, 1], offset = 0>
// CHECK: stride.slice {{.*}} -> <13x2x33xf32, strides = [33, 858, 1], offset = 0>
// CHECK: stride.clone {{.*}} -> <13x2x33xf32, strides = [66, 33, 1], offset = 0>
func.func @reinfers_views() -> !stride.tensor<13x2x33xf32> {
  %0 = stride.iota dim 0 : !stride.tensor<4x13x33xf32, strides = [33, 0, 1]>
  %1 = stride.permute %0 dims [1, 0, 2] : !stride.tensor<4x13x33xf32, strides = [33, 0, 1]>
      -> !stride.tensor<13x4x33xf32, strides = [0, 33, 1]>
  %2 = stride.slice %1 dim 1 start 0 end 4 step 2 : !stride.tensor<13x4x33xf32, strides = [0, 33, 1]>
      -> !stride.tensor<13x2x33xf32, strides = [0, 66, 1]>
  %3 = stride.clone %2 : !stride.tensor<13x2x33xf32, strides = [0, 66, 1]> -> !stride.tensor<13x2x33xf32>
  return %3 : !stride.tensor<13x2x33xf32>
}
