// The forward graph of Stride's founding bug (pytorch issue 180164):
// y = slice_scatter(x, src, dim=1, start=0, end=6).sum(dim=1).
func.func @seed_forward(%x: !stride.tensor<4x13x33xf32>,
                        %src: !stride.tensor<4x6x33xf32>)
    -> !stride.tensor<4x33xf32> {
  %scattered = stride.slice_scatter %x, %src dim 1 start 0 end 6 step 1
      : !stride.tensor<4x13x33xf32>, !stride.tensor<4x6x33xf32>
      -> !stride.tensor<4x13x33xf32>
  %sum = stride.sum %scattered dims [1]
      : !stride.tensor<4x13x33xf32> -> !stride.tensor<4x33xf32>
  return %sum : !stride.tensor<4x33xf32>
}
