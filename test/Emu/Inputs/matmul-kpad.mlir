// Products over an unaligned contraction dim K = 17 (34-byte rows, as
// GPT-2's 50,257 logits) read from rows that stride-matmul-layout pads to
// 24 elements; with at least 256 rows on the padded operand, K is padded
// with zeros too (python-free-docs/matmul.md, "Padded K"):
// - %g, a bf16 mul, read by dx = g w (K = 17) and, through a permute, by
//   dw = gᵀ x (K = 256, rows only): the kernel computing %g writes its
//   rows padded with zeros, w gets zero rows;
// - %h, a bf16 graph input read through a permute as the rhs of
//   y = vᵀ hᵀ: copied with zero columns, the transposed lhs vᵀ
//   given zero columns in its memory's orientation;
// - %e, an f16 graph input read by z = e u.
func.func @kpad(%a: !stride.tensor<256x17xbf16> {stride.name = "a"},
                %s: !stride.tensor<256x17xbf16> {stride.name = "s"},
                %w: !stride.tensor<17x8xbf16> {stride.name = "w"},
                %x: !stride.tensor<256x8xbf16> {stride.name = "x"},
                %h: !stride.tensor<256x17xbf16> {stride.name = "h"},
                %v: !stride.tensor<17x8xbf16> {stride.name = "v"},
                %e: !stride.tensor<300x17xf16> {stride.name = "e"},
                %u: !stride.tensor<17x16xf16> {stride.name = "u"})
    -> (!stride.tensor<256x8xbf16>, !stride.tensor<17x8xbf16>,
        !stride.tensor<8x256xbf16>, !stride.tensor<300x16xf16>) {
  %g = stride.mul %a, %s : !stride.tensor<256x17xbf16>, !stride.tensor<256x17xbf16>
      -> !stride.tensor<256x17xbf16>
  %dx = stride.matmul %g, %w : !stride.tensor<256x17xbf16>, !stride.tensor<17x8xbf16>
      -> !stride.tensor<256x8xbf16>
  %gt = stride.permute %g dims [1, 0] : !stride.tensor<256x17xbf16>
      -> !stride.tensor<17x256xbf16, strides = [1, 17], offset = 0>
  %dw = stride.matmul %gt, %x : !stride.tensor<17x256xbf16, strides = [1, 17], offset = 0>,
      !stride.tensor<256x8xbf16> -> !stride.tensor<17x8xbf16>
  %vt = stride.permute %v dims [1, 0] : !stride.tensor<17x8xbf16>
      -> !stride.tensor<8x17xbf16, strides = [1, 8], offset = 0>
  %ht = stride.permute %h dims [1, 0] : !stride.tensor<256x17xbf16>
      -> !stride.tensor<17x256xbf16, strides = [1, 17], offset = 0>
  %y = stride.matmul %vt, %ht : !stride.tensor<8x17xbf16, strides = [1, 8], offset = 0>,
      !stride.tensor<17x256xbf16, strides = [1, 17], offset = 0> -> !stride.tensor<8x256xbf16>
  %z = stride.matmul %e, %u : !stride.tensor<300x17xf16>, !stride.tensor<17x16xf16>
      -> !stride.tensor<300x16xf16>
  return %dx, %dw, %y, %z : !stride.tensor<256x8xbf16>, !stride.tensor<17x8xbf16>,
      !stride.tensor<8x256xbf16>, !stride.tensor<300x16xf16>
}
