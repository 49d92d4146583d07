// Two kernels that read only the inputs (a gather and a division, both
// returned), then the sum of the gather's result: the first two share a
// launch group, the sum's kernel follows it.
func.func @grouped(%t: !stride.tensor<5x7xf32>, %idx: !stride.tensor<3x4xi64>,
                   %a: !stride.tensor<4xi32>, %b: !stride.tensor<4xi32>)
    -> (!stride.tensor<3x4xf32>, !stride.tensor<4xi32>, !stride.tensor<f32>) {
  %g = stride.gather %t, %idx dim 0 : !stride.tensor<5x7xf32>, !stride.tensor<3x4xi64>
      -> !stride.tensor<3x4xf32>
  %q = stride.div %a, %b : !stride.tensor<4xi32>, !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %s = stride.sum %g dims [0, 1] : !stride.tensor<3x4xf32> -> !stride.tensor<f32>
  return %g, %q, %s : !stride.tensor<3x4xf32>, !stride.tensor<4xi32>, !stride.tensor<f32>
}
