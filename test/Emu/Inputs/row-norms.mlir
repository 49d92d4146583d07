// Normalizations whose per-row values (LayerNorm's `rsqrt(var + eps)`) are
// computed once per row inside one broadcast-reduction kernel: LayerNorm
// over rows of 700 (a warp, clamped last elements) and 4096 (a block, held
// in registers) with weight and bias, an RMSNorm without keepdim (its per-row
// values read through unsqueeze + expand), a variance from two independent
// reductions (E[x^2] - E[x]^2: a per-row op reading both), and a bf16
// LayerNorm.
func.func @norms(%a: !stride.tensor<5x700xf32>, %w: !stride.tensor<700xf32>, %b: !stride.tensor<700xf32>,
                 %c: !stride.tensor<3x4096xf32>, %d: !stride.tensor<6x96xf32>,
                 %e: !stride.tensor<4x333xf32>, %f: !stride.tensor<3x1000xbf16>)
    -> (!stride.tensor<5x700xf32>, !stride.tensor<3x4096xf32>, !stride.tensor<6x96xf32>,
        !stride.tensor<4x333xf32>, !stride.tensor<3x1000xbf16>) {
  // LayerNorm of 5x700 with weight and bias
  %am = stride.mean %a dims [1] keepdim : !stride.tensor<5x700xf32> -> !stride.tensor<5x1xf32>
  %amb = stride.expand %am : !stride.tensor<5x1xf32> -> !stride.tensor<5x700xf32, strides = [1, 0]>
  %ac = stride.sub %a, %amb : !stride.tensor<5x700xf32>, !stride.tensor<5x700xf32, strides = [1, 0]> -> !stride.tensor<5x700xf32>
  %asq = stride.mul %ac, %ac : !stride.tensor<5x700xf32>, !stride.tensor<5x700xf32> -> !stride.tensor<5x700xf32>
  %av = stride.mean %asq dims [1] keepdim : !stride.tensor<5x700xf32> -> !stride.tensor<5x1xf32>
  %aeps = stride.full 1.0e-05 : !stride.tensor<5x1xf32>
  %ave = stride.add %av, %aeps : !stride.tensor<5x1xf32>, !stride.tensor<5x1xf32> -> !stride.tensor<5x1xf32>
  %ar = stride.rsqrt %ave : !stride.tensor<5x1xf32> -> !stride.tensor<5x1xf32>
  %arb = stride.expand %ar : !stride.tensor<5x1xf32> -> !stride.tensor<5x700xf32, strides = [1, 0]>
  %an = stride.mul %ac, %arb : !stride.tensor<5x700xf32>, !stride.tensor<5x700xf32, strides = [1, 0]> -> !stride.tensor<5x700xf32>
  %awb = stride.expand %w : !stride.tensor<700xf32> -> !stride.tensor<5x700xf32, strides = [0, 1]>
  %anw = stride.mul %an, %awb : !stride.tensor<5x700xf32>, !stride.tensor<5x700xf32, strides = [0, 1]> -> !stride.tensor<5x700xf32>
  %abb = stride.expand %b : !stride.tensor<700xf32> -> !stride.tensor<5x700xf32, strides = [0, 1]>
  %ay = stride.add %anw, %abb : !stride.tensor<5x700xf32>, !stride.tensor<5x700xf32, strides = [0, 1]> -> !stride.tensor<5x700xf32>
  // LayerNorm of 3x4096, no affine
  %cm = stride.mean %c dims [1] keepdim : !stride.tensor<3x4096xf32> -> !stride.tensor<3x1xf32>
  %cmb = stride.expand %cm : !stride.tensor<3x1xf32> -> !stride.tensor<3x4096xf32, strides = [1, 0]>
  %cc = stride.sub %c, %cmb : !stride.tensor<3x4096xf32>, !stride.tensor<3x4096xf32, strides = [1, 0]> -> !stride.tensor<3x4096xf32>
  %csq = stride.mul %cc, %cc : !stride.tensor<3x4096xf32>, !stride.tensor<3x4096xf32> -> !stride.tensor<3x4096xf32>
  %cv = stride.mean %csq dims [1] keepdim : !stride.tensor<3x4096xf32> -> !stride.tensor<3x1xf32>
  %ceps = stride.full 1.0e-05 : !stride.tensor<3x1xf32>
  %cve = stride.add %cv, %ceps : !stride.tensor<3x1xf32>, !stride.tensor<3x1xf32> -> !stride.tensor<3x1xf32>
  %cr = stride.rsqrt %cve : !stride.tensor<3x1xf32> -> !stride.tensor<3x1xf32>
  %crb = stride.expand %cr : !stride.tensor<3x1xf32> -> !stride.tensor<3x4096xf32, strides = [1, 0]>
  %cy = stride.mul %cc, %crb : !stride.tensor<3x4096xf32>, !stride.tensor<3x4096xf32, strides = [1, 0]> -> !stride.tensor<3x4096xf32>
  // RMSNorm of 6x96, the mean without keepdim
  %dsq = stride.mul %d, %d : !stride.tensor<6x96xf32>, !stride.tensor<6x96xf32> -> !stride.tensor<6x96xf32>
  %dms = stride.mean %dsq dims [1] : !stride.tensor<6x96xf32> -> !stride.tensor<6xf32>
  %deps = stride.full 1.0e-06 : !stride.tensor<6xf32>
  %dve = stride.add %dms, %deps : !stride.tensor<6xf32>, !stride.tensor<6xf32> -> !stride.tensor<6xf32>
  %dr = stride.rsqrt %dve : !stride.tensor<6xf32> -> !stride.tensor<6xf32>
  %dru = stride.unsqueeze %dr dim 1 : !stride.tensor<6xf32> -> !stride.tensor<6x1xf32>
  %drb = stride.expand %dru : !stride.tensor<6x1xf32> -> !stride.tensor<6x96xf32, strides = [1, 0]>
  %dy = stride.mul %d, %drb : !stride.tensor<6x96xf32>, !stride.tensor<6x96xf32, strides = [1, 0]> -> !stride.tensor<6x96xf32>
  // (x - E[x]) * rsqrt(E[x^2] - E[x]^2 + 1): two independent reductions
  %em = stride.mean %e dims [1] keepdim : !stride.tensor<4x333xf32> -> !stride.tensor<4x1xf32>
  %esq = stride.mul %e, %e : !stride.tensor<4x333xf32>, !stride.tensor<4x333xf32> -> !stride.tensor<4x333xf32>
  %ems = stride.mean %esq dims [1] keepdim : !stride.tensor<4x333xf32> -> !stride.tensor<4x1xf32>
  %em2 = stride.mul %em, %em : !stride.tensor<4x1xf32>, !stride.tensor<4x1xf32> -> !stride.tensor<4x1xf32>
  %evar = stride.sub %ems, %em2 : !stride.tensor<4x1xf32>, !stride.tensor<4x1xf32> -> !stride.tensor<4x1xf32>
  %eone = stride.full 1.0 : !stride.tensor<4x1xf32>
  %eve = stride.add %evar, %eone : !stride.tensor<4x1xf32>, !stride.tensor<4x1xf32> -> !stride.tensor<4x1xf32>
  %er = stride.rsqrt %eve : !stride.tensor<4x1xf32> -> !stride.tensor<4x1xf32>
  %emb = stride.expand %em : !stride.tensor<4x1xf32> -> !stride.tensor<4x333xf32, strides = [1, 0]>
  %ec = stride.sub %e, %emb : !stride.tensor<4x333xf32>, !stride.tensor<4x333xf32, strides = [1, 0]> -> !stride.tensor<4x333xf32>
  %erb = stride.expand %er : !stride.tensor<4x1xf32> -> !stride.tensor<4x333xf32, strides = [1, 0]>
  %ey = stride.mul %ec, %erb : !stride.tensor<4x333xf32>, !stride.tensor<4x333xf32, strides = [1, 0]> -> !stride.tensor<4x333xf32>
  // LayerNorm of 3x1000 bf16 (computed in f32, the stats rounded to bf16)
  %fm = stride.mean %f dims [1] keepdim : !stride.tensor<3x1000xbf16> -> !stride.tensor<3x1xbf16>
  %fmb = stride.expand %fm : !stride.tensor<3x1xbf16> -> !stride.tensor<3x1000xbf16, strides = [1, 0]>
  %fc = stride.sub %f, %fmb : !stride.tensor<3x1000xbf16>, !stride.tensor<3x1000xbf16, strides = [1, 0]> -> !stride.tensor<3x1000xbf16>
  %fsq = stride.mul %fc, %fc : !stride.tensor<3x1000xbf16>, !stride.tensor<3x1000xbf16> -> !stride.tensor<3x1000xbf16>
  %fv = stride.mean %fsq dims [1] keepdim : !stride.tensor<3x1000xbf16> -> !stride.tensor<3x1xbf16>
  %feps = stride.full 1.0e-05 : !stride.tensor<3x1xbf16>
  %fve = stride.add %fv, %feps : !stride.tensor<3x1xbf16>, !stride.tensor<3x1xbf16> -> !stride.tensor<3x1xbf16>
  %fr = stride.rsqrt %fve : !stride.tensor<3x1xbf16> -> !stride.tensor<3x1xbf16>
  %frb = stride.expand %fr : !stride.tensor<3x1xbf16> -> !stride.tensor<3x1000xbf16, strides = [1, 0]>
  %fy = stride.mul %fc, %frb : !stride.tensor<3x1000xbf16>, !stride.tensor<3x1000xbf16, strides = [1, 0]> -> !stride.tensor<3x1000xbf16>
  return %ay, %cy, %dy, %ey, %fy : !stride.tensor<5x700xf32>, !stride.tensor<3x4096xf32>, !stride.tensor<6x96xf32>, !stride.tensor<4x333xf32>, !stride.tensor<3x1000xbf16>
}
