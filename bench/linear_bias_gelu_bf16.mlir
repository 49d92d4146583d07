// linear_bias_gelu_bf16: F.gelu(F.linear(x, w, b), approximate='tanh'), x [8192, 768],
// w [3072, 768], b [3072] (bf16): GPT-2 small's MLP up-projection at 8192 tokens.
func.func @linear_bias_gelu_bf16(%x: !stride.tensor<8192x768xbf16>, %w: !stride.tensor<3072x768xbf16>, %b: !stride.tensor<3072xbf16>)
    -> !stride.tensor<8192x3072xbf16> {
  %v1 = stride.permute %w dims [1, 0] : !stride.tensor<3072x768xbf16>
      -> !stride.tensor<768x3072xbf16, strides = [1, 768]>
  %v2 = stride.matmul %x, %v1 : !stride.tensor<8192x768xbf16>,
      !stride.tensor<768x3072xbf16, strides = [1, 768]> -> !stride.tensor<8192x3072xbf16>
  %v3 = stride.expand %b : !stride.tensor<3072xbf16>
      -> !stride.tensor<8192x3072xbf16, strides = [0, 1]>
  %v4 = stride.add %v2, %v3 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16, strides = [0, 1]>
      -> !stride.tensor<8192x3072xbf16>
  %v5 = stride.mul %v4, %v4 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  %v6 = stride.mul %v5, %v4 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  %c7 = stride.full 0.044715 : !stride.tensor<8192x3072xbf16>
  %v8 = stride.mul %v6, %c7 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  %v9 = stride.add %v4, %v8 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  %c10 = stride.full 0.7978845608028654 : !stride.tensor<8192x3072xbf16>
  %v11 = stride.mul %v9, %c10 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  %v12 = stride.tanh %v11 : !stride.tensor<8192x3072xbf16> -> !stride.tensor<8192x3072xbf16>
  %c13 = stride.full 1.0 : !stride.tensor<8192x3072xbf16>
  %v14 = stride.add %v12, %c13 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  %c15 = stride.full 0.5 : !stride.tensor<8192x3072xbf16>
  %v16 = stride.mul %v4, %c15 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  %v17 = stride.mul %v16, %v14 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  return %v17 : !stride.tensor<8192x3072xbf16>
}
