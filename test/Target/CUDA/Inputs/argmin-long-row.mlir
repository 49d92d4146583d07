func.func @f(%w: !stride.tensor<2x4294967295xbf16>) -> !stride.tensor<2xi64> {
  %a = stride.argmin %w dim 1 : !stride.tensor<2x4294967295xbf16> -> !stride.tensor<2xi64>
  return %a : !stride.tensor<2xi64>
}
