// Twelve source rows into row 1 whose f32 sum depends on the order: in
// source order 1e8 absorbs each 1 (1e8 + 1 rounds to 1e8), then -1e8 leaves
// 0; with -1e8 earlier the ones would count. Row 0 receives nothing.
func.func @order() -> !stride.tensor<2x4xf32> {
  %zeros = stride.full 0.0 : !stride.tensor<2x4xf32>
  %index = stride.full 1.0 : !stride.tensor<12xi64>
  %src = stride.constant dense<[[1.0e8, 1.0e8, 1.0e8, 1.0e8],
      [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0],
      [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0],
      [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0],
      [1.0, 1.0, 1.0, 1.0], [-1.0e8, -1.0e8, -1.0e8, -1.0e8]]>
      : tensor<12x4xf32> : !stride.tensor<12x4xf32>
  %r = stride.index_add %zeros, %index, %src dim 0 : !stride.tensor<2x4xf32>,
      !stride.tensor<12xi64>, !stride.tensor<12x4xf32> -> !stride.tensor<2x4xf32>
  return %r : !stride.tensor<2x4xf32>
}
