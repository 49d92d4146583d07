func.func @two_stage(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<f32> {
  %r = stride.kernel "two_stage" ins(%x : !stride.tensor<4x8xf32>) -> (!stride.tensor<f32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    %s = stride.sum %a dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
    %m = stride.max %s dims [0] : !stride.tensor<4xf32> -> !stride.tensor<f32>
    stride.yield %m : !stride.tensor<f32>
  }
  return %r : !stride.tensor<f32>
}
