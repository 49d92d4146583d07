// cumsum of f16 and bf16 (summed in float, each element rounded once),
// along rows and along an outer dim.
func.func @scans_half(%h: !stride.tensor<19x70xf16>, %b: !stride.tensor<70x19xbf16>)
    -> (!stride.tensor<19x70xf16>, !stride.tensor<70x19xbf16>) {
  %hc = stride.cumsum %h dim 1 : !stride.tensor<19x70xf16> -> !stride.tensor<19x70xf16>
  %bc = stride.cumsum %b dim 0 : !stride.tensor<70x19xbf16> -> !stride.tensor<70x19xbf16>
  return %hc, %bc : !stride.tensor<19x70xf16>, !stride.tensor<70x19xbf16>
}
