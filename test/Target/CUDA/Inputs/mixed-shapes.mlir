func.func @mixed(%x: !stride.tensor<4x8xf32>, %y: !stride.tensor<4xf32>)
    -> (!stride.tensor<4x8xf32>, !stride.tensor<4xf32>) {
  %r:2 = stride.kernel "mixed" ins(%x, %y : !stride.tensor<4x8xf32>, !stride.tensor<4xf32>)
      -> (!stride.tensor<4x8xf32>, !stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<4xf32>):
    %e = stride.exp %a : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    %s = stride.exp %b : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    stride.yield %e, %s : !stride.tensor<4x8xf32>, !stride.tensor<4xf32>
  }
  return %r#0, %r#1 : !stride.tensor<4x8xf32>, !stride.tensor<4xf32>
}
