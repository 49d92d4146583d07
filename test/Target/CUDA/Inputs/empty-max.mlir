func.func @empty_max(%x: !stride.tensor<4x0xf32>) -> !stride.tensor<4xf32> {
  %m = stride.max %x dims [1] : !stride.tensor<4x0xf32> -> !stride.tensor<4xf32>
  return %m : !stride.tensor<4xf32>
}
