// gemm_768x2304_f32: torch.matmul(x, w), x [8192, 768], w [768, 2304] (f32), the GEMM of a
// GPT-2 small layer at 8192 tokens. 28,991,029,248 floating-point operations.
func.func @gemm_768x2304_f32(%x: !stride.tensor<8192x768xf32>, %w: !stride.tensor<768x2304xf32>)
    -> !stride.tensor<8192x2304xf32> {
  %v1 = stride.matmul %x, %w : !stride.tensor<8192x768xf32>,
      !stride.tensor<768x2304xf32> -> !stride.tensor<8192x2304xf32>
  return %v1 : !stride.tensor<8192x2304xf32>
}
