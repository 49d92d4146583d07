// Two reductions of the same rows, one without keepdim (any) and one with
// (max), and a per-row op (the cast of the any) of the first one's result
// shape: each reduction is read broadcast back through its own shape
// (gpu-prepare seed 20261124, random_1; once a compile error).
func.func @graph(%a0: !stride.tensor<1x4xf32, strides = [4, 1], offset = 0>, %a1: !stride.tensor<1x4xf32, strides = [4, 1], offset = 0>, %a2: !stride.tensor<4xi64, strides = [1], offset = 0>, %a3: !stride.tensor<1xi64, strides = [1], offset = 0>, %a4: !stride.tensor<1x1xf32, strides = [1, 1], offset = 0>) -> (!stride.tensor<1x4xf32, strides = [4, 1], offset = 0>) {
  %v0 = stride.cmp lt, %a0, %a1 : !stride.tensor<1x4xf32, strides = [4, 1], offset = 0>, !stride.tensor<1x4xf32, strides = [4, 1], offset = 0> -> !stride.tensor<1x4xi1, strides = [4, 1], offset = 0>
  %v1 = stride.any %v0 dims [0] : !stride.tensor<1x4xi1, strides = [4, 1], offset = 0> -> !stride.tensor<4xi1, strides = [1], offset = 0>
  %v2 = stride.cast %v1 : !stride.tensor<4xi1, strides = [1], offset = 0> -> !stride.tensor<4xf32, strides = [1], offset = 0>
  %v3 = stride.index_select %a1, %a2 dim 1 : !stride.tensor<1x4xf32, strides = [4, 1], offset = 0>, !stride.tensor<4xi64, strides = [1], offset = 0> -> !stride.tensor<1x4xf32, strides = [4, 1], offset = 0>
  %v4 = stride.max %a0 dims [0] keepdim : !stride.tensor<1x4xf32, strides = [4, 1], offset = 0> -> !stride.tensor<1x4xf32, strides = [1, 1], offset = 0>
  %v5 = stride.expand %v4 : !stride.tensor<1x4xf32, strides = [1, 1], offset = 0> -> !stride.tensor<1x4xf32, strides = [1, 1], offset = 0>
  %v6 = stride.exp %a0 : !stride.tensor<1x4xf32, strides = [4, 1], offset = 0> -> !stride.tensor<1x4xf32, strides = [4, 1], offset = 0>
  %v7 = stride.mul %v6, %v5 : !stride.tensor<1x4xf32, strides = [4, 1], offset = 0>, !stride.tensor<1x4xf32, strides = [1, 1], offset = 0> -> !stride.tensor<1x4xf32, strides = [4, 1], offset = 0>
  %v8 = stride.index_add %v4, %a3, %a4 dim 1 : !stride.tensor<1x4xf32, strides = [1, 1], offset = 0>, !stride.tensor<1xi64, strides = [1], offset = 0>, !stride.tensor<1x1xf32, strides = [1, 1], offset = 0> -> !stride.tensor<1x4xf32, strides = [4, 1], offset = 0>
  %v9 = stride.expand %v2 : !stride.tensor<4xf32, strides = [1], offset = 0> -> !stride.tensor<1x4xf32, strides = [0, 1], offset = 0>
  %v10 = stride.add %v7, %v9 : !stride.tensor<1x4xf32, strides = [4, 1], offset = 0>, !stride.tensor<1x4xf32, strides = [0, 1], offset = 0> -> !stride.tensor<1x4xf32, strides = [4, 1], offset = 0>
  return %v10 : !stride.tensor<1x4xf32, strides = [4, 1], offset = 0>
}
