// GPT-2's LM head backward in small: the logits' gradient is a graph input
// (the loss's backward runs outside the graph), [batch, tokens, 17] bf16,
// viewed as [256, 17] and read by dX = g W over K = 17 and by
// dW = gᵀ X through a permute. No producer in the graph writes it, so
// one kernel copies it into rows padded to 24 with zeros (the copy that
// was GPT-2's 0.45 ms clone_kernel), read by both products.
func.func @lm_head_backward(%t: !stride.tensor<2x128x17xbf16> {stride.name = "tangent"},
                            %w: !stride.tensor<17x8xbf16> {stride.name = "w"},
                            %x: !stride.tensor<256x8xbf16> {stride.name = "x"})
    -> (!stride.tensor<256x8xbf16>, !stride.tensor<17x8xbf16>) {
  %g = stride.view %t : !stride.tensor<2x128x17xbf16> -> !stride.tensor<256x17xbf16>
  %dx = stride.matmul %g, %w : !stride.tensor<256x17xbf16>, !stride.tensor<17x8xbf16>
      -> !stride.tensor<256x8xbf16>
  %gt = stride.permute %g dims [1, 0] : !stride.tensor<256x17xbf16>
      -> !stride.tensor<17x256xbf16, strides = [1, 17], offset = 0>
  %dw = stride.matmul %gt, %x : !stride.tensor<17x256xbf16, strides = [1, 17], offset = 0>,
      !stride.tensor<256x8xbf16> -> !stride.tensor<17x8xbf16>
  return %dx, %dw : !stride.tensor<256x8xbf16>, !stride.tensor<17x8xbf16>
}
