// gelu(sum(a1 - mean(a1))) over three elements: a sum of deviations from a
// mean, zero but for rounding (random graph 177 of gpu-prepare seed
// 20261125). On cancellation/inputs the f64 reference keeps 2^-27
// (cancellation/expected); an f32 kernel rounds it away and gets 0, within
// f32's error of the sum but a relative error of 1: only an absolute
// tolerance can judge it (stride-run --atol; bench/NOTES.md section 28).
func.func @graph(%a0: !stride.tensor<3xf32, strides = [1], offset = 0>, %a1: !stride.tensor<3xf32, strides = [1], offset = 0>, %a2: !stride.tensor<1xf32, strides = [1], offset = 0>) -> (!stride.tensor<3xf32, strides = [1], offset = 0>) {
  %v0 = stride.sub %a1, %a0 : !stride.tensor<3xf32, strides = [1], offset = 0>, !stride.tensor<3xf32, strides = [1], offset = 0> -> !stride.tensor<3xf32, strides = [1], offset = 0>
  %v1 = stride.mean %a1 dims [0] keepdim : !stride.tensor<3xf32, strides = [1], offset = 0> -> !stride.tensor<1xf32, strides = [1], offset = 0>
  %v2 = stride.expand %v1 : !stride.tensor<1xf32, strides = [1], offset = 0> -> !stride.tensor<3xf32, strides = [0], offset = 0>
  %v3 = stride.sub %a1, %v2 : !stride.tensor<3xf32, strides = [1], offset = 0>, !stride.tensor<3xf32, strides = [0], offset = 0> -> !stride.tensor<3xf32, strides = [1], offset = 0>
  %v4 = stride.slice_scatter %a1, %a2 dim 0 start 2 end 3 step 1 : !stride.tensor<3xf32, strides = [1], offset = 0>, !stride.tensor<1xf32, strides = [1], offset = 0> -> !stride.tensor<3xf32, strides = [1], offset = 0>
  %v5 = stride.sum %v3 dims [0] keepdim : !stride.tensor<3xf32, strides = [1], offset = 0> -> !stride.tensor<1xf32, strides = [1], offset = 0>
  %v6 = stride.expand %v5 : !stride.tensor<1xf32, strides = [1], offset = 0> -> !stride.tensor<3xf32, strides = [0], offset = 0>
  %v7 = stride.add %v3, %v6 : !stride.tensor<3xf32, strides = [1], offset = 0>, !stride.tensor<3xf32, strides = [0], offset = 0> -> !stride.tensor<3xf32, strides = [1], offset = 0>
  %v8 = stride.unsqueeze %v2 dim 0 : !stride.tensor<3xf32, strides = [0], offset = 0> -> !stride.tensor<1x3xf32, strides = [0, 0], offset = 0>
  %v9 = stride.sin %v1 : !stride.tensor<1xf32, strides = [1], offset = 0> -> !stride.tensor<1xf32, strides = [1], offset = 0>
  %v10 = stride.relu %v7 : !stride.tensor<3xf32, strides = [1], offset = 0> -> !stride.tensor<3xf32, strides = [1], offset = 0>
  %v11 = stride.slice_scatter %v8, %v8 dim 0 start 0 end 1 step 1 : !stride.tensor<1x3xf32, strides = [0, 0], offset = 0>, !stride.tensor<1x3xf32, strides = [0, 0], offset = 0> -> !stride.tensor<1x3xf32, strides = [3, 1], offset = 0>
  %v12 = stride.gelu %v6 : !stride.tensor<3xf32, strides = [0], offset = 0> -> !stride.tensor<3xf32, strides = [1], offset = 0>
  return %v12 : !stride.tensor<3xf32, strides = [1], offset = 0>
}
