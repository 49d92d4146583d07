func.func @f(%x: !stride.tensor<4x8xf64>) -> !stride.tensor<4xi64> {
  %a = stride.argmax %x dim 1 : !stride.tensor<4x8xf64> -> !stride.tensor<4xi64>
  return %a : !stride.tensor<4xi64>
}
