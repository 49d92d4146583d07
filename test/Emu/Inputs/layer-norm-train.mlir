// LayerNorm's training forward (native_layer_norm: the normalized rows and
// the saved mean and rstd, which AOTAutograd's forward returns for the
// backward): one broadcast-reduction kernel each, whose per-row results are
// stored once per row beside the rows. Rows of 701 (a warp, clamped last
// elements), 16 (8 rows per warp, 9 rows: not a multiple of the
// warp's), 4097 (a block; the mean and rstd without keepdim, no affine),
// and a bf16 LayerNorm of rows of 333.
func.func @ln_train(%a: !stride.tensor<5x701xf32>,
                    %aw: !stride.tensor<701xf32>,
                    %abias: !stride.tensor<701xf32>,
                    %b: !stride.tensor<9x16xf32>,
                    %bw: !stride.tensor<16xf32>,
                    %bbias: !stride.tensor<16xf32>,
                    %c: !stride.tensor<3x4097xf32>,
                    %d: !stride.tensor<4x333xbf16>,
                    %dw: !stride.tensor<333xbf16>,
                    %dbias: !stride.tensor<333xbf16>)
    -> (!stride.tensor<5x701xf32>, !stride.tensor<5x1xf32>, !stride.tensor<5x1xf32>, !stride.tensor<9x16xf32>, !stride.tensor<9x1xf32>, !stride.tensor<9x1xf32>, !stride.tensor<3x4097xf32>, !stride.tensor<3xf32>, !stride.tensor<3xf32>, !stride.tensor<4x333xbf16>, !stride.tensor<4x1xbf16>, !stride.tensor<4x1xbf16>) {
  %am = stride.mean %a dims [1] keepdim : !stride.tensor<5x701xf32> -> !stride.tensor<5x1xf32>
  %amb = stride.expand %am : !stride.tensor<5x1xf32> -> !stride.tensor<5x701xf32, strides = [1, 0]>
  %ac = stride.sub %a, %amb : !stride.tensor<5x701xf32>, !stride.tensor<5x701xf32, strides = [1, 0]> -> !stride.tensor<5x701xf32>
  %asq = stride.mul %ac, %ac : !stride.tensor<5x701xf32>, !stride.tensor<5x701xf32> -> !stride.tensor<5x701xf32>
  %av = stride.mean %asq dims [1] keepdim : !stride.tensor<5x701xf32> -> !stride.tensor<5x1xf32>
  %ae = stride.full 1.0e-05 : !stride.tensor<5x1xf32>
  %ave = stride.add %av, %ae : !stride.tensor<5x1xf32>, !stride.tensor<5x1xf32> -> !stride.tensor<5x1xf32>
  %ar = stride.rsqrt %ave : !stride.tensor<5x1xf32> -> !stride.tensor<5x1xf32>
  %arb = stride.expand %ar : !stride.tensor<5x1xf32> -> !stride.tensor<5x701xf32, strides = [1, 0]>
  %an = stride.mul %ac, %arb : !stride.tensor<5x701xf32>, !stride.tensor<5x701xf32, strides = [1, 0]> -> !stride.tensor<5x701xf32>
  %awb = stride.expand %aw : !stride.tensor<701xf32> -> !stride.tensor<5x701xf32, strides = [0, 1]>
  %anw = stride.mul %an, %awb : !stride.tensor<5x701xf32>, !stride.tensor<5x701xf32, strides = [0, 1]> -> !stride.tensor<5x701xf32>
  %abb = stride.expand %abias : !stride.tensor<701xf32> -> !stride.tensor<5x701xf32, strides = [0, 1]>
  %ay = stride.add %anw, %abb : !stride.tensor<5x701xf32>, !stride.tensor<5x701xf32, strides = [0, 1]> -> !stride.tensor<5x701xf32>
  %bm = stride.mean %b dims [1] keepdim : !stride.tensor<9x16xf32> -> !stride.tensor<9x1xf32>
  %bmb = stride.expand %bm : !stride.tensor<9x1xf32> -> !stride.tensor<9x16xf32, strides = [1, 0]>
  %bc = stride.sub %b, %bmb : !stride.tensor<9x16xf32>, !stride.tensor<9x16xf32, strides = [1, 0]> -> !stride.tensor<9x16xf32>
  %bsq = stride.mul %bc, %bc : !stride.tensor<9x16xf32>, !stride.tensor<9x16xf32> -> !stride.tensor<9x16xf32>
  %bv = stride.mean %bsq dims [1] keepdim : !stride.tensor<9x16xf32> -> !stride.tensor<9x1xf32>
  %be = stride.full 1.0e-05 : !stride.tensor<9x1xf32>
  %bve = stride.add %bv, %be : !stride.tensor<9x1xf32>, !stride.tensor<9x1xf32> -> !stride.tensor<9x1xf32>
  %br = stride.rsqrt %bve : !stride.tensor<9x1xf32> -> !stride.tensor<9x1xf32>
  %brb = stride.expand %br : !stride.tensor<9x1xf32> -> !stride.tensor<9x16xf32, strides = [1, 0]>
  %bn = stride.mul %bc, %brb : !stride.tensor<9x16xf32>, !stride.tensor<9x16xf32, strides = [1, 0]> -> !stride.tensor<9x16xf32>
  %bwb = stride.expand %bw : !stride.tensor<16xf32> -> !stride.tensor<9x16xf32, strides = [0, 1]>
  %bnw = stride.mul %bn, %bwb : !stride.tensor<9x16xf32>, !stride.tensor<9x16xf32, strides = [0, 1]> -> !stride.tensor<9x16xf32>
  %bbb = stride.expand %bbias : !stride.tensor<16xf32> -> !stride.tensor<9x16xf32, strides = [0, 1]>
  %by = stride.add %bnw, %bbb : !stride.tensor<9x16xf32>, !stride.tensor<9x16xf32, strides = [0, 1]> -> !stride.tensor<9x16xf32>
  %cm = stride.mean %c dims [1] : !stride.tensor<3x4097xf32> -> !stride.tensor<3xf32>
  %cmu = stride.unsqueeze %cm dim 1 : !stride.tensor<3xf32> -> !stride.tensor<3x1xf32>
  %cmb = stride.expand %cmu : !stride.tensor<3x1xf32> -> !stride.tensor<3x4097xf32, strides = [1, 0]>
  %cc = stride.sub %c, %cmb : !stride.tensor<3x4097xf32>, !stride.tensor<3x4097xf32, strides = [1, 0]> -> !stride.tensor<3x4097xf32>
  %csq = stride.mul %cc, %cc : !stride.tensor<3x4097xf32>, !stride.tensor<3x4097xf32> -> !stride.tensor<3x4097xf32>
  %cv = stride.mean %csq dims [1] : !stride.tensor<3x4097xf32> -> !stride.tensor<3xf32>
  %ce = stride.full 1.0e-05 : !stride.tensor<3xf32>
  %cve = stride.add %cv, %ce : !stride.tensor<3xf32>, !stride.tensor<3xf32> -> !stride.tensor<3xf32>
  %cr = stride.rsqrt %cve : !stride.tensor<3xf32> -> !stride.tensor<3xf32>
  %cru = stride.unsqueeze %cr dim 1 : !stride.tensor<3xf32> -> !stride.tensor<3x1xf32>
  %crb = stride.expand %cru : !stride.tensor<3x1xf32> -> !stride.tensor<3x4097xf32, strides = [1, 0]>
  %cn = stride.mul %cc, %crb : !stride.tensor<3x4097xf32>, !stride.tensor<3x4097xf32, strides = [1, 0]> -> !stride.tensor<3x4097xf32>
  %dm = stride.mean %d dims [1] keepdim : !stride.tensor<4x333xbf16> -> !stride.tensor<4x1xbf16>
  %dmb = stride.expand %dm : !stride.tensor<4x1xbf16> -> !stride.tensor<4x333xbf16, strides = [1, 0]>
  %dc = stride.sub %d, %dmb : !stride.tensor<4x333xbf16>, !stride.tensor<4x333xbf16, strides = [1, 0]> -> !stride.tensor<4x333xbf16>
  %dsq = stride.mul %dc, %dc : !stride.tensor<4x333xbf16>, !stride.tensor<4x333xbf16> -> !stride.tensor<4x333xbf16>
  %dv = stride.mean %dsq dims [1] keepdim : !stride.tensor<4x333xbf16> -> !stride.tensor<4x1xbf16>
  %de = stride.full 1.0e-05 : !stride.tensor<4x1xbf16>
  %dve = stride.add %dv, %de : !stride.tensor<4x1xbf16>, !stride.tensor<4x1xbf16> -> !stride.tensor<4x1xbf16>
  %dr = stride.rsqrt %dve : !stride.tensor<4x1xbf16> -> !stride.tensor<4x1xbf16>
  %drb = stride.expand %dr : !stride.tensor<4x1xbf16> -> !stride.tensor<4x333xbf16, strides = [1, 0]>
  %dn = stride.mul %dc, %drb : !stride.tensor<4x333xbf16>, !stride.tensor<4x333xbf16, strides = [1, 0]> -> !stride.tensor<4x333xbf16>
  %dwb = stride.expand %dw : !stride.tensor<333xbf16> -> !stride.tensor<4x333xbf16, strides = [0, 1]>
  %dnw = stride.mul %dn, %dwb : !stride.tensor<4x333xbf16>, !stride.tensor<4x333xbf16, strides = [0, 1]> -> !stride.tensor<4x333xbf16>
  %dbb = stride.expand %dbias : !stride.tensor<333xbf16> -> !stride.tensor<4x333xbf16, strides = [0, 1]>
  %dy = stride.add %dnw, %dbb : !stride.tensor<4x333xbf16>, !stride.tensor<4x333xbf16, strides = [0, 1]> -> !stride.tensor<4x333xbf16>
  return %ay, %am, %ar, %by, %bm, %br, %cn, %cm, %cr, %dy, %dm, %dr : !stride.tensor<5x701xf32>, !stride.tensor<5x1xf32>, !stride.tensor<5x1xf32>, !stride.tensor<9x16xf32>, !stride.tensor<9x1xf32>, !stride.tensor<9x1xf32>, !stride.tensor<3x4097xf32>, !stride.tensor<3xf32>, !stride.tensor<3xf32>, !stride.tensor<4x333xbf16>, !stride.tensor<4x1xbf16>, !stride.tensor<4x1xbf16>
}
