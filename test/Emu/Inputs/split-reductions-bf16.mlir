// bf16 reductions split over blocks (scheme reduction_split): a full sum
// of an odd count and a mean of rows of whole groups of 4, accumulated in
// float and rounded to bf16 once.
func.func @split_bf16(%x: !stride.tensor<50001xbf16>, %y: !stride.tensor<3x16384xbf16>)
    -> (!stride.tensor<bf16>, !stride.tensor<3xbf16>) {
  %0 = stride.kernel "full_sum_bf16" ins(%x : !stride.tensor<50001xbf16>) -> (!stride.tensor<bf16>) {
  ^bb0(%a: !stride.tensor<50001xbf16>):
    %r = stride.sum %a dims [0] : !stride.tensor<50001xbf16> -> !stride.tensor<bf16>
    stride.yield %r : !stride.tensor<bf16>
  }
  %1 = stride.kernel "few_mean_bf16" ins(%y : !stride.tensor<3x16384xbf16>) -> (!stride.tensor<3xbf16>) {
  ^bb0(%a: !stride.tensor<3x16384xbf16>):
    %r = stride.mean %a dims [1] : !stride.tensor<3x16384xbf16> -> !stride.tensor<3xbf16>
    stride.yield %r : !stride.tensor<3xbf16>
  }
  return %0, %1 : !stride.tensor<bf16>, !stride.tensor<3xbf16>
}
