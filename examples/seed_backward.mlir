// The gradient of x in the seed graph: the upstream gradient g of the sum is
// broadcast back over dim 1 (a zero-stride expand) and the rows [0, 6) that
// slice_scatter overwrote get zero. The slice_scatter result has a dense
// layout of its own, [429, 33, 1], not the expand's [33, 0, 1].
func.func @seed_backward(%g: !stride.tensor<4x33xf32>)
    -> !stride.tensor<4x13x33xf32> {
  %u = stride.unsqueeze %g dim 1
      : !stride.tensor<4x33xf32>
      -> !stride.tensor<4x1x33xf32, strides = [33, 33, 1], offset = 0>
  %e = stride.expand %u
      : !stride.tensor<4x1x33xf32, strides = [33, 33, 1], offset = 0>
      -> !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0>
  %zeros = stride.full 0.0 : !stride.tensor<4x6x33xf32>
  %grad = stride.slice_scatter %e, %zeros dim 1 start 0 end 6 step 1
      : !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0>,
        !stride.tensor<4x6x33xf32>
      -> !stride.tensor<4x13x33xf32, strides = [429, 33, 1], offset = 0>
  return %grad : !stride.tensor<4x13x33xf32>
}
