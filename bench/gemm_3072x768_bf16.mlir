// gemm_3072x768_bf16: torch.matmul(x, w), x [8192, 3072], w [3072, 768] (bf16), the GEMM of a
// GPT-2 small layer at 8192 tokens. 38,654,705,664 floating-point operations.
func.func @gemm_3072x768_bf16(%x: !stride.tensor<8192x3072xbf16>, %w: !stride.tensor<3072x768xbf16>)
    -> !stride.tensor<8192x768xbf16> {
  %v1 = stride.matmul %x, %w : !stride.tensor<8192x3072xbf16>,
      !stride.tensor<3072x768xbf16> -> !stride.tensor<8192x768xbf16>
  return %v1 : !stride.tensor<8192x768xbf16>
}
