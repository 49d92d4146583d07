// mlp_block_f32: x + F.linear(F.gelu(F.linear(F.layer_norm(x, [768], ln_w, ln_b), w1, b1),
// approximate='tanh'), w2, b2), x [8192, 768], w1 [3072, 768], w2 [768, 3072] (f32; the
// LayerNorm computes in f32, as PyTorch's does): GPT-2 small's MLP block at 8192 tokens.
func.func @mlp_block_f32(%x: !stride.tensor<8192x768xf32>, %ln_w: !stride.tensor<768xf32>, %ln_b: !stride.tensor<768xf32>, %w1: !stride.tensor<3072x768xf32>, %b1: !stride.tensor<3072xf32>, %w2: !stride.tensor<768x3072xf32>, %b2: !stride.tensor<768xf32>)
    -> !stride.tensor<8192x768xf32> {
  %v1 = stride.mean %x dims [1] keepdim : !stride.tensor<8192x768xf32> -> !stride.tensor<8192x1xf32>
  %v2 = stride.expand %v1 : !stride.tensor<8192x1xf32>
      -> !stride.tensor<8192x768xf32, strides = [1, 0]>
  %v3 = stride.sub %x, %v2 : !stride.tensor<8192x768xf32>, !stride.tensor<8192x768xf32, strides = [1, 0]>
      -> !stride.tensor<8192x768xf32>
  %v4 = stride.mul %v3, %v3 : !stride.tensor<8192x768xf32>, !stride.tensor<8192x768xf32>
      -> !stride.tensor<8192x768xf32>
  %v5 = stride.mean %v4 dims [1] keepdim : !stride.tensor<8192x768xf32> -> !stride.tensor<8192x1xf32>
  %c6 = stride.full 1.0e-05 : !stride.tensor<8192x1xf32>
  %v7 = stride.add %v5, %c6 : !stride.tensor<8192x1xf32>, !stride.tensor<8192x1xf32>
      -> !stride.tensor<8192x1xf32>
  %v8 = stride.rsqrt %v7 : !stride.tensor<8192x1xf32> -> !stride.tensor<8192x1xf32>
  %v9 = stride.expand %v8 : !stride.tensor<8192x1xf32>
      -> !stride.tensor<8192x768xf32, strides = [1, 0]>
  %v10 = stride.mul %v3, %v9 : !stride.tensor<8192x768xf32>, !stride.tensor<8192x768xf32, strides = [1, 0]>
      -> !stride.tensor<8192x768xf32>
  %v11 = stride.expand %ln_w : !stride.tensor<768xf32>
      -> !stride.tensor<8192x768xf32, strides = [0, 1]>
  %v12 = stride.mul %v10, %v11 : !stride.tensor<8192x768xf32>, !stride.tensor<8192x768xf32, strides = [0, 1]>
      -> !stride.tensor<8192x768xf32>
  %v13 = stride.expand %ln_b : !stride.tensor<768xf32>
      -> !stride.tensor<8192x768xf32, strides = [0, 1]>
  %v14 = stride.add %v12, %v13 : !stride.tensor<8192x768xf32>, !stride.tensor<8192x768xf32, strides = [0, 1]>
      -> !stride.tensor<8192x768xf32>
  %v15 = stride.permute %w1 dims [1, 0] : !stride.tensor<3072x768xf32>
      -> !stride.tensor<768x3072xf32, strides = [1, 768]>
  %v16 = stride.matmul %v14, %v15 : !stride.tensor<8192x768xf32>,
      !stride.tensor<768x3072xf32, strides = [1, 768]> -> !stride.tensor<8192x3072xf32>
  %v17 = stride.expand %b1 : !stride.tensor<3072xf32>
      -> !stride.tensor<8192x3072xf32, strides = [0, 1]>
  %v18 = stride.add %v16, %v17 : !stride.tensor<8192x3072xf32>, !stride.tensor<8192x3072xf32, strides = [0, 1]>
      -> !stride.tensor<8192x3072xf32>
  %v19 = stride.mul %v18, %v18 : !stride.tensor<8192x3072xf32>, !stride.tensor<8192x3072xf32>
      -> !stride.tensor<8192x3072xf32>
  %v20 = stride.mul %v19, %v18 : !stride.tensor<8192x3072xf32>, !stride.tensor<8192x3072xf32>
      -> !stride.tensor<8192x3072xf32>
  %c21 = stride.full 0.044715 : !stride.tensor<8192x3072xf32>
  %v22 = stride.mul %v20, %c21 : !stride.tensor<8192x3072xf32>, !stride.tensor<8192x3072xf32>
      -> !stride.tensor<8192x3072xf32>
  %v23 = stride.add %v18, %v22 : !stride.tensor<8192x3072xf32>, !stride.tensor<8192x3072xf32>
      -> !stride.tensor<8192x3072xf32>
  %c24 = stride.full 0.7978845608028654 : !stride.tensor<8192x3072xf32>
  %v25 = stride.mul %v23, %c24 : !stride.tensor<8192x3072xf32>, !stride.tensor<8192x3072xf32>
      -> !stride.tensor<8192x3072xf32>
  %v26 = stride.tanh %v25 : !stride.tensor<8192x3072xf32> -> !stride.tensor<8192x3072xf32>
  %c27 = stride.full 1.0 : !stride.tensor<8192x3072xf32>
  %v28 = stride.add %v26, %c27 : !stride.tensor<8192x3072xf32>, !stride.tensor<8192x3072xf32>
      -> !stride.tensor<8192x3072xf32>
  %c29 = stride.full 0.5 : !stride.tensor<8192x3072xf32>
  %v30 = stride.mul %v18, %c29 : !stride.tensor<8192x3072xf32>, !stride.tensor<8192x3072xf32>
      -> !stride.tensor<8192x3072xf32>
  %v31 = stride.mul %v30, %v28 : !stride.tensor<8192x3072xf32>, !stride.tensor<8192x3072xf32>
      -> !stride.tensor<8192x3072xf32>
  %v32 = stride.permute %w2 dims [1, 0] : !stride.tensor<768x3072xf32>
      -> !stride.tensor<3072x768xf32, strides = [1, 3072]>
  %v33 = stride.matmul %v31, %v32 : !stride.tensor<8192x3072xf32>,
      !stride.tensor<3072x768xf32, strides = [1, 3072]> -> !stride.tensor<8192x768xf32>
  %v34 = stride.expand %b2 : !stride.tensor<768xf32>
      -> !stride.tensor<8192x768xf32, strides = [0, 1]>
  %v35 = stride.add %v33, %v34 : !stride.tensor<8192x768xf32>, !stride.tensor<8192x768xf32, strides = [0, 1]>
      -> !stride.tensor<8192x768xf32>
  %v36 = stride.add %x, %v35 : !stride.tensor<8192x768xf32>, !stride.tensor<8192x768xf32>
      -> !stride.tensor<8192x768xf32>
  return %v36 : !stride.tensor<8192x768xf32>
}
