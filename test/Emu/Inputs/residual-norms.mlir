// Residual adds normalized by an RMSNorm, the sum also returned (the next
// layer's residual, as a decoder layer reads it): the broadcast-reduction
// kernel yields the sum beside the normed value (stride-fuse's
// `row-input-outputs`, python-free-docs/fusion.md), one kernel per norm.
// Rows of 96 (a warp), 4096 (a block, in registers), 20001 (a cluster of
// blocks), 140000 (re-read by one block in each phase) in f32, and 4096 in
// bf16 (the sum rounded to bf16 before the norm reads it, as PyTorch).
func.func @residual_norms(%xa: !stride.tensor<5x96xf32>, %ya: !stride.tensor<5x96xf32>, %wa: !stride.tensor<96xf32>,
    %xb: !stride.tensor<3x4096xf32>, %yb: !stride.tensor<3x4096xf32>, %wb: !stride.tensor<4096xf32>,
    %xc: !stride.tensor<2x20001xf32>, %yc: !stride.tensor<2x20001xf32>, %wc: !stride.tensor<20001xf32>,
    %xd: !stride.tensor<2x140000xf32>, %yd: !stride.tensor<2x140000xf32>, %wd: !stride.tensor<140000xf32>,
    %xe: !stride.tensor<4x4096xbf16>, %ye: !stride.tensor<4x4096xbf16>, %we: !stride.tensor<4096xbf16>)
    -> (!stride.tensor<5x96xf32>, !stride.tensor<5x96xf32>, !stride.tensor<3x4096xf32>, !stride.tensor<3x4096xf32>, !stride.tensor<2x20001xf32>, !stride.tensor<2x20001xf32>, !stride.tensor<2x140000xf32>, !stride.tensor<2x140000xf32>, !stride.tensor<4x4096xbf16>, !stride.tensor<4x4096xbf16>) {
  %ha = stride.add %xa, %ya : !stride.tensor<5x96xf32>, !stride.tensor<5x96xf32> -> !stride.tensor<5x96xf32>
  %sqa = stride.mul %ha, %ha : !stride.tensor<5x96xf32>, !stride.tensor<5x96xf32> -> !stride.tensor<5x96xf32>
  %msa = stride.mean %sqa dims [1] keepdim : !stride.tensor<5x96xf32> -> !stride.tensor<5x1xf32>
  %epsa = stride.full 1.0e-05 : !stride.tensor<5x1xf32>
  %va = stride.add %msa, %epsa : !stride.tensor<5x1xf32>, !stride.tensor<5x1xf32> -> !stride.tensor<5x1xf32>
  %rsa = stride.rsqrt %va : !stride.tensor<5x1xf32> -> !stride.tensor<5x1xf32>
  %rba = stride.expand %rsa : !stride.tensor<5x1xf32> -> !stride.tensor<5x96xf32, strides = [1, 0]>
  %nma = stride.mul %ha, %rba : !stride.tensor<5x96xf32>, !stride.tensor<5x96xf32, strides = [1, 0]> -> !stride.tensor<5x96xf32>
  %wba = stride.expand %wa : !stride.tensor<96xf32> -> !stride.tensor<5x96xf32, strides = [0, 1]>
  %oa = stride.mul %nma, %wba : !stride.tensor<5x96xf32>, !stride.tensor<5x96xf32, strides = [0, 1]> -> !stride.tensor<5x96xf32>
  %hb = stride.add %xb, %yb : !stride.tensor<3x4096xf32>, !stride.tensor<3x4096xf32> -> !stride.tensor<3x4096xf32>
  %sqb = stride.mul %hb, %hb : !stride.tensor<3x4096xf32>, !stride.tensor<3x4096xf32> -> !stride.tensor<3x4096xf32>
  %msb = stride.mean %sqb dims [1] keepdim : !stride.tensor<3x4096xf32> -> !stride.tensor<3x1xf32>
  %epsb = stride.full 1.0e-05 : !stride.tensor<3x1xf32>
  %vb = stride.add %msb, %epsb : !stride.tensor<3x1xf32>, !stride.tensor<3x1xf32> -> !stride.tensor<3x1xf32>
  %rsb = stride.rsqrt %vb : !stride.tensor<3x1xf32> -> !stride.tensor<3x1xf32>
  %rbb = stride.expand %rsb : !stride.tensor<3x1xf32> -> !stride.tensor<3x4096xf32, strides = [1, 0]>
  %nmb = stride.mul %hb, %rbb : !stride.tensor<3x4096xf32>, !stride.tensor<3x4096xf32, strides = [1, 0]> -> !stride.tensor<3x4096xf32>
  %wbb = stride.expand %wb : !stride.tensor<4096xf32> -> !stride.tensor<3x4096xf32, strides = [0, 1]>
  %ob = stride.mul %nmb, %wbb : !stride.tensor<3x4096xf32>, !stride.tensor<3x4096xf32, strides = [0, 1]> -> !stride.tensor<3x4096xf32>
  %hc = stride.add %xc, %yc : !stride.tensor<2x20001xf32>, !stride.tensor<2x20001xf32> -> !stride.tensor<2x20001xf32>
  %sqc = stride.mul %hc, %hc : !stride.tensor<2x20001xf32>, !stride.tensor<2x20001xf32> -> !stride.tensor<2x20001xf32>
  %msc = stride.mean %sqc dims [1] keepdim : !stride.tensor<2x20001xf32> -> !stride.tensor<2x1xf32>
  %epsc = stride.full 1.0e-05 : !stride.tensor<2x1xf32>
  %vc = stride.add %msc, %epsc : !stride.tensor<2x1xf32>, !stride.tensor<2x1xf32> -> !stride.tensor<2x1xf32>
  %rsc = stride.rsqrt %vc : !stride.tensor<2x1xf32> -> !stride.tensor<2x1xf32>
  %rbc = stride.expand %rsc : !stride.tensor<2x1xf32> -> !stride.tensor<2x20001xf32, strides = [1, 0]>
  %nmc = stride.mul %hc, %rbc : !stride.tensor<2x20001xf32>, !stride.tensor<2x20001xf32, strides = [1, 0]> -> !stride.tensor<2x20001xf32>
  %wbc = stride.expand %wc : !stride.tensor<20001xf32> -> !stride.tensor<2x20001xf32, strides = [0, 1]>
  %oc = stride.mul %nmc, %wbc : !stride.tensor<2x20001xf32>, !stride.tensor<2x20001xf32, strides = [0, 1]> -> !stride.tensor<2x20001xf32>
  %hd = stride.add %xd, %yd : !stride.tensor<2x140000xf32>, !stride.tensor<2x140000xf32> -> !stride.tensor<2x140000xf32>
  %sqd = stride.mul %hd, %hd : !stride.tensor<2x140000xf32>, !stride.tensor<2x140000xf32> -> !stride.tensor<2x140000xf32>
  %msd = stride.mean %sqd dims [1] keepdim : !stride.tensor<2x140000xf32> -> !stride.tensor<2x1xf32>
  %epsd = stride.full 1.0e-05 : !stride.tensor<2x1xf32>
  %vd = stride.add %msd, %epsd : !stride.tensor<2x1xf32>, !stride.tensor<2x1xf32> -> !stride.tensor<2x1xf32>
  %rsd = stride.rsqrt %vd : !stride.tensor<2x1xf32> -> !stride.tensor<2x1xf32>
  %rbd = stride.expand %rsd : !stride.tensor<2x1xf32> -> !stride.tensor<2x140000xf32, strides = [1, 0]>
  %nmd = stride.mul %hd, %rbd : !stride.tensor<2x140000xf32>, !stride.tensor<2x140000xf32, strides = [1, 0]> -> !stride.tensor<2x140000xf32>
  %wbd = stride.expand %wd : !stride.tensor<140000xf32> -> !stride.tensor<2x140000xf32, strides = [0, 1]>
  %od = stride.mul %nmd, %wbd : !stride.tensor<2x140000xf32>, !stride.tensor<2x140000xf32, strides = [0, 1]> -> !stride.tensor<2x140000xf32>
  %he = stride.add %xe, %ye : !stride.tensor<4x4096xbf16>, !stride.tensor<4x4096xbf16> -> !stride.tensor<4x4096xbf16>
  %sqe = stride.mul %he, %he : !stride.tensor<4x4096xbf16>, !stride.tensor<4x4096xbf16> -> !stride.tensor<4x4096xbf16>
  %mse = stride.mean %sqe dims [1] keepdim : !stride.tensor<4x4096xbf16> -> !stride.tensor<4x1xbf16>
  %epse = stride.full 1.0e-05 : !stride.tensor<4x1xbf16>
  %ve = stride.add %mse, %epse : !stride.tensor<4x1xbf16>, !stride.tensor<4x1xbf16> -> !stride.tensor<4x1xbf16>
  %rse = stride.rsqrt %ve : !stride.tensor<4x1xbf16> -> !stride.tensor<4x1xbf16>
  %rbe = stride.expand %rse : !stride.tensor<4x1xbf16> -> !stride.tensor<4x4096xbf16, strides = [1, 0]>
  %nme = stride.mul %he, %rbe : !stride.tensor<4x4096xbf16>, !stride.tensor<4x4096xbf16, strides = [1, 0]> -> !stride.tensor<4x4096xbf16>
  %wbe = stride.expand %we : !stride.tensor<4096xbf16> -> !stride.tensor<4x4096xbf16, strides = [0, 1]>
  %oe = stride.mul %nme, %wbe : !stride.tensor<4x4096xbf16>, !stride.tensor<4x4096xbf16, strides = [0, 1]> -> !stride.tensor<4x4096xbf16>
  return %oa, %ha, %ob, %hb, %oc, %hc, %od, %hd, %oe, %he : !stride.tensor<5x96xf32>, !stride.tensor<5x96xf32>, !stride.tensor<3x4096xf32>, !stride.tensor<3x4096xf32>, !stride.tensor<2x20001xf32>, !stride.tensor<2x20001xf32>, !stride.tensor<2x140000xf32>, !stride.tensor<2x140000xf32>, !stride.tensor<4x4096xbf16>, !stride.tensor<4x4096xbf16>
}
