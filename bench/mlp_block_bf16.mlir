// mlp_block_bf16: x + F.linear(F.gelu(F.linear(F.layer_norm(x, [768], ln_w, ln_b), w1, b1),
// approximate='tanh'), w2, b2), x [8192, 768], w1 [3072, 768], w2 [768, 3072] (bf16; the
// LayerNorm computes in f32, as PyTorch's does): GPT-2 small's MLP block at 8192 tokens.
func.func @mlp_block_bf16(%x: !stride.tensor<8192x768xbf16>, %ln_w: !stride.tensor<768xbf16>, %ln_b: !stride.tensor<768xbf16>, %w1: !stride.tensor<3072x768xbf16>, %b1: !stride.tensor<3072xbf16>, %w2: !stride.tensor<768x3072xbf16>, %b2: !stride.tensor<768xbf16>)
    -> !stride.tensor<8192x768xbf16> {
  %v1 = stride.cast %x : !stride.tensor<8192x768xbf16> -> !stride.tensor<8192x768xf32>
  %v2 = stride.mean %v1 dims [1] keepdim : !stride.tensor<8192x768xf32> -> !stride.tensor<8192x1xf32>
  %v3 = stride.expand %v2 : !stride.tensor<8192x1xf32>
      -> !stride.tensor<8192x768xf32, strides = [1, 0]>
  %v4 = stride.sub %v1, %v3 : !stride.tensor<8192x768xf32>, !stride.tensor<8192x768xf32, strides = [1, 0]>
      -> !stride.tensor<8192x768xf32>
  %v5 = stride.mul %v4, %v4 : !stride.tensor<8192x768xf32>, !stride.tensor<8192x768xf32>
      -> !stride.tensor<8192x768xf32>
  %v6 = stride.mean %v5 dims [1] keepdim : !stride.tensor<8192x768xf32> -> !stride.tensor<8192x1xf32>
  %c7 = stride.full 1.0e-05 : !stride.tensor<8192x1xf32>
  %v8 = stride.add %v6, %c7 : !stride.tensor<8192x1xf32>, !stride.tensor<8192x1xf32>
      -> !stride.tensor<8192x1xf32>
  %v9 = stride.rsqrt %v8 : !stride.tensor<8192x1xf32> -> !stride.tensor<8192x1xf32>
  %v10 = stride.expand %v9 : !stride.tensor<8192x1xf32>
      -> !stride.tensor<8192x768xf32, strides = [1, 0]>
  %v11 = stride.mul %v4, %v10 : !stride.tensor<8192x768xf32>, !stride.tensor<8192x768xf32, strides = [1, 0]>
      -> !stride.tensor<8192x768xf32>
  %v12 = stride.cast %ln_w : !stride.tensor<768xbf16> -> !stride.tensor<768xf32>
  %v13 = stride.cast %ln_b : !stride.tensor<768xbf16> -> !stride.tensor<768xf32>
  %v14 = stride.expand %v12 : !stride.tensor<768xf32>
      -> !stride.tensor<8192x768xf32, strides = [0, 1]>
  %v15 = stride.mul %v11, %v14 : !stride.tensor<8192x768xf32>, !stride.tensor<8192x768xf32, strides = [0, 1]>
      -> !stride.tensor<8192x768xf32>
  %v16 = stride.expand %v13 : !stride.tensor<768xf32>
      -> !stride.tensor<8192x768xf32, strides = [0, 1]>
  %v17 = stride.add %v15, %v16 : !stride.tensor<8192x768xf32>, !stride.tensor<8192x768xf32, strides = [0, 1]>
      -> !stride.tensor<8192x768xf32>
  %v18 = stride.cast %v17 : !stride.tensor<8192x768xf32> -> !stride.tensor<8192x768xbf16>
  %v19 = stride.permute %w1 dims [1, 0] : !stride.tensor<3072x768xbf16>
      -> !stride.tensor<768x3072xbf16, strides = [1, 768]>
  %v20 = stride.matmul %v18, %v19 : !stride.tensor<8192x768xbf16>,
      !stride.tensor<768x3072xbf16, strides = [1, 768]> -> !stride.tensor<8192x3072xbf16>
  %v21 = stride.expand %b1 : !stride.tensor<3072xbf16>
      -> !stride.tensor<8192x3072xbf16, strides = [0, 1]>
  %v22 = stride.add %v20, %v21 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16, strides = [0, 1]>
      -> !stride.tensor<8192x3072xbf16>
  %v23 = stride.mul %v22, %v22 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  %v24 = stride.mul %v23, %v22 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  %c25 = stride.full 0.044715 : !stride.tensor<8192x3072xbf16>
  %v26 = stride.mul %v24, %c25 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  %v27 = stride.add %v22, %v26 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  %c28 = stride.full 0.7978845608028654 : !stride.tensor<8192x3072xbf16>
  %v29 = stride.mul %v27, %c28 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  %v30 = stride.tanh %v29 : !stride.tensor<8192x3072xbf16> -> !stride.tensor<8192x3072xbf16>
  %c31 = stride.full 1.0 : !stride.tensor<8192x3072xbf16>
  %v32 = stride.add %v30, %c31 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  %c33 = stride.full 0.5 : !stride.tensor<8192x3072xbf16>
  %v34 = stride.mul %v22, %c33 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  %v35 = stride.mul %v34, %v32 : !stride.tensor<8192x3072xbf16>, !stride.tensor<8192x3072xbf16>
      -> !stride.tensor<8192x3072xbf16>
  %v36 = stride.permute %w2 dims [1, 0] : !stride.tensor<768x3072xbf16>
      -> !stride.tensor<3072x768xbf16, strides = [1, 3072]>
  %v37 = stride.matmul %v35, %v36 : !stride.tensor<8192x3072xbf16>,
      !stride.tensor<3072x768xbf16, strides = [1, 3072]> -> !stride.tensor<8192x768xbf16>
  %v38 = stride.expand %b2 : !stride.tensor<768xbf16>
      -> !stride.tensor<8192x768xbf16, strides = [0, 1]>
  %v39 = stride.add %v37, %v38 : !stride.tensor<8192x768xbf16>, !stride.tensor<8192x768xbf16, strides = [0, 1]>
      -> !stride.tensor<8192x768xbf16>
  %v40 = stride.add %x, %v39 : !stride.tensor<8192x768xbf16>, !stride.tensor<8192x768xbf16>
      -> !stride.tensor<8192x768xbf16>
  return %v40 : !stride.tensor<8192x768xbf16>
}
