// A gradient computed by pointwise ops and a row sum, then the seed's
// backward as a tracing frontend annotated it (examples/seed_backward_fx.mlir):
// the slice_scatter's result copies the expand's stride 0, and stridec
// rejects the graph. stride-reduce's compile-fails test reduces it.
func.func @grad(%x: !stride.tensor<4x33xf32> {stride.name = "x"},
                %w: !stride.tensor<4x33xf32> {stride.name = "w"})
    -> (!stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0>,
        !stride.tensor<4x1xf32>) {
  %m = stride.mul %x, %w : !stride.tensor<4x33xf32>, !stride.tensor<4x33xf32>
      -> !stride.tensor<4x33xf32>
  %t = stride.tanh %m : !stride.tensor<4x33xf32> -> !stride.tensor<4x33xf32>
  %s = stride.sum %t dims [1] keepdim
      : !stride.tensor<4x33xf32> -> !stride.tensor<4x1xf32>
  %sb = stride.expand %s : !stride.tensor<4x1xf32>
      -> !stride.tensor<4x33xf32, strides = [1, 0], offset = 0>
  %d = stride.sub %t, %sb : !stride.tensor<4x33xf32>,
      !stride.tensor<4x33xf32, strides = [1, 0], offset = 0>
      -> !stride.tensor<4x33xf32>
  %g = stride.sigmoid %d : !stride.tensor<4x33xf32> -> !stride.tensor<4x33xf32>
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
  return %grad, %s : !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0>,
      !stride.tensor<4x1xf32>
}
