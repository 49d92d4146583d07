// Skinny products whose rows are normalized in their kernels (row
// prologues: python-free-docs/matmul.md, "Skinny products").
// `rms`: a decoder's RMSNorm as LLaMA writes it, in bf16 with f32
// statistics, over 1 row of K = 70 (8-element loads and a tail of 6): the
// residual sum h = x + r, which the kernel also yields, then h *
// rsqrt(mean(h^2) + eps), rounded to bf16, times the norm's weight, then
// the product with a [24, 70] weight.
// `ln`: a LayerNorm over 3 rows of K = 64 in f32, two reductions (the
// mean, and the mean of the squared deviations, which reads the first
// broadcast back) and per-row ops, before a product with a [40, 64]
// weight whose SwiGLU is the kernel's epilogue.
func.func @norms(%x: !stride.tensor<1x70xbf16> {stride.name = "x"},
                 %r: !stride.tensor<1x70xbf16> {stride.name = "r"},
                 %g: !stride.tensor<70xbf16> {stride.name = "g"},
                 %w: !stride.tensor<24x70xbf16> {stride.name = "w"},
                 %y: !stride.tensor<3x64xf32> {stride.name = "y"},
                 %lg: !stride.tensor<64xf32> {stride.name = "lg"},
                 %lb: !stride.tensor<64xf32> {stride.name = "lb"},
                 %v: !stride.tensor<40x64xf32> {stride.name = "v"})
    -> (!stride.tensor<1x70xbf16> {stride.name = "h"},
        !stride.tensor<1x24xbf16> {stride.name = "p"},
        !stride.tensor<3x20xf32> {stride.name = "s"}) {
  %h = stride.add %x, %r : !stride.tensor<1x70xbf16>, !stride.tensor<1x70xbf16> -> !stride.tensor<1x70xbf16>
  %h32 = stride.cast %h : !stride.tensor<1x70xbf16> -> !stride.tensor<1x70xf32>
  %sq = stride.mul %h32, %h32 : !stride.tensor<1x70xf32>, !stride.tensor<1x70xf32> -> !stride.tensor<1x70xf32>
  %m = stride.mean %sq dims [1] keepdim : !stride.tensor<1x70xf32> -> !stride.tensor<1x1xf32>
  %eps = stride.full 1.0e-05 : !stride.tensor<1x1xf32>
  %me = stride.add %m, %eps : !stride.tensor<1x1xf32>, !stride.tensor<1x1xf32> -> !stride.tensor<1x1xf32>
  %rs = stride.rsqrt %me : !stride.tensor<1x1xf32> -> !stride.tensor<1x1xf32>
  %rse = stride.expand %rs : !stride.tensor<1x1xf32> -> !stride.tensor<1x70xf32, strides = [1, 0], offset = 0>
  %n32 = stride.mul %h32, %rse : !stride.tensor<1x70xf32>, !stride.tensor<1x70xf32, strides = [1, 0], offset = 0> -> !stride.tensor<1x70xf32>
  %n = stride.cast %n32 : !stride.tensor<1x70xf32> -> !stride.tensor<1x70xbf16>
  %ge = stride.expand %g : !stride.tensor<70xbf16> -> !stride.tensor<1x70xbf16, strides = [0, 1], offset = 0>
  %ng = stride.mul %ge, %n : !stride.tensor<1x70xbf16, strides = [0, 1], offset = 0>, !stride.tensor<1x70xbf16> -> !stride.tensor<1x70xbf16>
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<24x70xbf16>
      -> !stride.tensor<70x24xbf16, strides = [1, 70], offset = 0>
  %p = stride.matmul %ng, %wt : !stride.tensor<1x70xbf16>,
      !stride.tensor<70x24xbf16, strides = [1, 70], offset = 0> -> !stride.tensor<1x24xbf16>

  %mu = stride.mean %y dims [1] keepdim : !stride.tensor<3x64xf32> -> !stride.tensor<3x1xf32>
  %mue = stride.expand %mu : !stride.tensor<3x1xf32> -> !stride.tensor<3x64xf32, strides = [1, 0], offset = 0>
  %d = stride.sub %y, %mue : !stride.tensor<3x64xf32>, !stride.tensor<3x64xf32, strides = [1, 0], offset = 0> -> !stride.tensor<3x64xf32>
  %d2 = stride.mul %d, %d : !stride.tensor<3x64xf32>, !stride.tensor<3x64xf32> -> !stride.tensor<3x64xf32>
  %var = stride.mean %d2 dims [1] keepdim : !stride.tensor<3x64xf32> -> !stride.tensor<3x1xf32>
  %leps = stride.full 1.0e-05 : !stride.tensor<3x1xf32>
  %ve = stride.add %var, %leps : !stride.tensor<3x1xf32>, !stride.tensor<3x1xf32> -> !stride.tensor<3x1xf32>
  %lrs = stride.rsqrt %ve : !stride.tensor<3x1xf32> -> !stride.tensor<3x1xf32>
  %lrse = stride.expand %lrs : !stride.tensor<3x1xf32> -> !stride.tensor<3x64xf32, strides = [1, 0], offset = 0>
  %nd = stride.mul %d, %lrse : !stride.tensor<3x64xf32>, !stride.tensor<3x64xf32, strides = [1, 0], offset = 0> -> !stride.tensor<3x64xf32>
  %lge = stride.expand %lg : !stride.tensor<64xf32> -> !stride.tensor<3x64xf32, strides = [0, 1], offset = 0>
  %lbe = stride.expand %lb : !stride.tensor<64xf32> -> !stride.tensor<3x64xf32, strides = [0, 1], offset = 0>
  %sc = stride.mul %nd, %lge : !stride.tensor<3x64xf32>, !stride.tensor<3x64xf32, strides = [0, 1], offset = 0> -> !stride.tensor<3x64xf32>
  %ln = stride.add %sc, %lbe : !stride.tensor<3x64xf32>, !stride.tensor<3x64xf32, strides = [0, 1], offset = 0> -> !stride.tensor<3x64xf32>
  %vt = stride.permute %v dims [1, 0] : !stride.tensor<40x64xf32>
      -> !stride.tensor<64x40xf32, strides = [1, 64], offset = 0>
  %gu = stride.matmul %ln, %vt : !stride.tensor<3x64xf32>,
      !stride.tensor<64x40xf32, strides = [1, 64], offset = 0> -> !stride.tensor<3x40xf32>
  %ga = stride.slice %gu dim 1 start 0 end 20 step 1 : !stride.tensor<3x40xf32>
      -> !stride.tensor<3x20xf32, strides = [40, 1], offset = 0>
  %up = stride.slice %gu dim 1 start 20 end 40 step 1 : !stride.tensor<3x40xf32>
      -> !stride.tensor<3x20xf32, strides = [40, 1], offset = 20>
  %sg = stride.sigmoid %ga : !stride.tensor<3x20xf32, strides = [40, 1], offset = 0> -> !stride.tensor<3x20xf32>
  %si = stride.mul %ga, %sg : !stride.tensor<3x20xf32, strides = [40, 1], offset = 0>, !stride.tensor<3x20xf32> -> !stride.tensor<3x20xf32>
  %s = stride.mul %si, %up : !stride.tensor<3x20xf32>, !stride.tensor<3x20xf32, strides = [40, 1], offset = 20> -> !stride.tensor<3x20xf32>
  return %h, %p, %s : !stride.tensor<1x70xbf16>, !stride.tensor<1x24xbf16>, !stride.tensor<3x20xf32>
}
