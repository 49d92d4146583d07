// The seed's backward graph exactly as a tracing frontend annotated it: the
// functional slice_scatter's result inherited the layout [33, 0, 1] of its
// expanded input. A compiler that believes it computes 132 of 1716 elements.
// Stride rejects it (stride-legalize-layouts); with repair it uses the dense
// layout [429, 33, 1].
func.func @seed_backward_fx(%g: !stride.tensor<4x33xf32>)
    -> !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0> {
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
      -> !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0>
  return %grad : !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0>
}
