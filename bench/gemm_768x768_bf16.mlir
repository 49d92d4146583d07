// gemm_768x768_bf16: torch.matmul(x, w), x [8192, 768], w [768, 768] (bf16), the GEMM of a
// GPT-2 small layer at 8192 tokens. 9,663,676,416 floating-point operations.
func.func @gemm_768x768_bf16(%x: !stride.tensor<8192x768xbf16>, %w: !stride.tensor<768x768xbf16>)
    -> !stride.tensor<8192x768xbf16> {
  %v1 = stride.matmul %x, %w : !stride.tensor<8192x768xbf16>,
      !stride.tensor<768x768xbf16> -> !stride.tensor<8192x768xbf16>
  return %v1 : !stride.tensor<8192x768xbf16>
}
