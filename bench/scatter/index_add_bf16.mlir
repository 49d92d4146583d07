// The embedding gradient of issue 16: zeros[50257, 768].index_add(0,
// idx[65536], src[65536, 768]) in bf16. bench/scatter/prepare.sh compiles it
// with and without --deterministic, once per index pattern (the patterns are
// data: scatter_bench.py makes them). Minimal bytes: read src and idx, write
// the output.
func.func @index_add_bf16(%idx: !stride.tensor<65536xi64>, %src: !stride.tensor<65536x768xbf16>)
    -> !stride.tensor<50257x768xbf16> {
  %z = stride.full 0.0 : !stride.tensor<50257x768xbf16>
  %r = stride.index_add %z, %idx, %src dim 0
      : !stride.tensor<50257x768xbf16>, !stride.tensor<65536xi64>, !stride.tensor<65536x768xbf16>
      -> !stride.tensor<50257x768xbf16>
  return %r : !stride.tensor<50257x768xbf16>
}
