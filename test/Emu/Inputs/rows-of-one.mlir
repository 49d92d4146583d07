// A random graph (gpu-prepare seed 777, graph 106): three reductions over
// dims of size 1 (result shape = input shape) in one kernel, emitted as a
// broadcast-reduction kernel with rows of one element.
func.func @graph(%a0: !stride.tensor<3xf32, strides = [1], offset = 0>, %a1: !stride.tensor<4xf32, strides = [1], offset = 0>, %a2: !stride.tensor<1xf32, strides = [1], offset = 0>, %a3: !stride.tensor<1xf32, strides = [1], offset = 0>) -> (!stride.tensor<1xf32, strides = [1], offset = 0>) {
  %v0 = stride.mean %a1 dims [0] keepdim : !stride.tensor<4xf32, strides = [1], offset = 0> -> !stride.tensor<1xf32, strides = [1], offset = 0>
  %v1 = stride.min %v0 dims [0] keepdim : !stride.tensor<1xf32, strides = [1], offset = 0> -> !stride.tensor<1xf32, strides = [1], offset = 0>
  %v2 = stride.add %v1, %a2 : !stride.tensor<1xf32, strides = [1], offset = 0>, !stride.tensor<1xf32, strides = [1], offset = 0> -> !stride.tensor<1xf32, strides = [1], offset = 0>
  %v3 = stride.sum %a2 dims [0] keepdim : !stride.tensor<1xf32, strides = [1], offset = 0> -> !stride.tensor<1xf32, strides = [1], offset = 0>
  %v4 = stride.max %v1 dims [0] keepdim : !stride.tensor<1xf32, strides = [1], offset = 0> -> !stride.tensor<1xf32, strides = [1], offset = 0>
  %v5 = stride.expand %v4 : !stride.tensor<1xf32, strides = [1], offset = 0> -> !stride.tensor<1xf32, strides = [1], offset = 0>
  %v6 = stride.exp %v1 : !stride.tensor<1xf32, strides = [1], offset = 0> -> !stride.tensor<1xf32, strides = [1], offset = 0>
  %v7 = stride.sub %v6, %v5 : !stride.tensor<1xf32, strides = [1], offset = 0>, !stride.tensor<1xf32, strides = [1], offset = 0> -> !stride.tensor<1xf32, strides = [1], offset = 0>
  %v8 = stride.sub %a3, %v7 : !stride.tensor<1xf32, strides = [1], offset = 0>, !stride.tensor<1xf32, strides = [1], offset = 0> -> !stride.tensor<1xf32, strides = [1], offset = 0>
  %v9 = stride.cmp eq, %v6, %v3 : !stride.tensor<1xf32, strides = [1], offset = 0>, !stride.tensor<1xf32, strides = [1], offset = 0> -> !stride.tensor<1xi1, strides = [1], offset = 0>
  %v10 = stride.slice %a1 dim 0 start 2 end 3 step 1 : !stride.tensor<4xf32, strides = [1], offset = 0> -> !stride.tensor<1xf32, strides = [1], offset = 2>
  %v11 = stride.where %v9, %v10, %v5 : !stride.tensor<1xi1, strides = [1], offset = 0>, !stride.tensor<1xf32, strides = [1], offset = 2>, !stride.tensor<1xf32, strides = [1], offset = 0> -> !stride.tensor<1xf32, strides = [1], offset = 0>
  return %v11 : !stride.tensor<1xf32, strides = [1], offset = 0>
}
