// The two backward products of a bf16 vocabulary projection with 17
// columns (34-byte rows, as GPT-2's 50,257 logits): the logits' gradient
// %g is read by dX = g W (K = 17) and dW = gᵀ X (through a permute).
// stride-matmul-layout copies %g once into rows padded to 24 elements,
// which the kernel computing %g writes directly; both calls read it at
// ld 24.
func.func @rows(%a: !stride.tensor<6x17xbf16> {stride.name = "a"},
                %s: !stride.tensor<6x17xbf16> {stride.name = "s"},
                %w: !stride.tensor<17x8xbf16> {stride.name = "w"},
                %x: !stride.tensor<6x8xbf16> {stride.name = "x"})
    -> (!stride.tensor<6x8xbf16>, !stride.tensor<17x8xbf16>) {
  %g = stride.mul %a, %s : !stride.tensor<6x17xbf16>, !stride.tensor<6x17xbf16>
      -> !stride.tensor<6x17xbf16>
  %dx = stride.matmul %g, %w : !stride.tensor<6x17xbf16>, !stride.tensor<17x8xbf16>
      -> !stride.tensor<6x8xbf16>
  %gt = stride.permute %g dims [1, 0] : !stride.tensor<6x17xbf16>
      -> !stride.tensor<17x6xbf16, strides = [1, 17], offset = 0>
  %dw = stride.matmul %gt, %x : !stride.tensor<17x6xbf16, strides = [1, 17], offset = 0>,
      !stride.tensor<6x8xbf16> -> !stride.tensor<17x8xbf16>
  return %dx, %dw : !stride.tensor<6x8xbf16>, !stride.tensor<17x8xbf16>
}
