// erf, any and cat as imported PyTorch graphs use them, fused with the ops
// around them: exact GELU's gradient (erf, exp), a padding mask's any, and
// a cat of a computed value, an input and a transposed view that feeds a
// reduction and is also stored.
func.func @import_ops(%x: !stride.tensor<37x65xf32>, %g: !stride.tensor<37x65xf32>,
                      %y: !stride.tensor<37x13xf32>, %z: !stride.tensor<7x37xf32>)
    -> (!stride.tensor<37x65xf32>, !stride.tensor<37xi1>, !stride.tensor<1x65xi1>,
        !stride.tensor<i1>, !stride.tensor<37xf32>, !stride.tensor<37x85xf32>) {
  // d/dx gelu(x) * g = g * (0.5 * (1 + erf(x / sqrt 2)) + x * exp(-x^2 / 2) / sqrt(2 pi))
  %rsqrt2 = stride.full 0.70710678118654752 : !stride.tensor<37x65xf32>
  %half = stride.full 0.5 : !stride.tensor<37x65xf32>
  %one = stride.full 1.0 : !stride.tensor<37x65xf32>
  %c = stride.full 0.3989422804014327 : !stride.tensor<37x65xf32>
  %xs = stride.mul %x, %rsqrt2 : !stride.tensor<37x65xf32>, !stride.tensor<37x65xf32> -> !stride.tensor<37x65xf32>
  %erf = stride.erf %xs : !stride.tensor<37x65xf32> -> !stride.tensor<37x65xf32>
  %cdf1 = stride.add %erf, %one : !stride.tensor<37x65xf32>, !stride.tensor<37x65xf32> -> !stride.tensor<37x65xf32>
  %cdf = stride.mul %cdf1, %half : !stride.tensor<37x65xf32>, !stride.tensor<37x65xf32> -> !stride.tensor<37x65xf32>
  %x2 = stride.mul %x, %x : !stride.tensor<37x65xf32>, !stride.tensor<37x65xf32> -> !stride.tensor<37x65xf32>
  %nx2 = stride.mul %x2, %half : !stride.tensor<37x65xf32>, !stride.tensor<37x65xf32> -> !stride.tensor<37x65xf32>
  %e0 = stride.neg %nx2 : !stride.tensor<37x65xf32> -> !stride.tensor<37x65xf32>
  %e = stride.exp %e0 : !stride.tensor<37x65xf32> -> !stride.tensor<37x65xf32>
  %pdf = stride.mul %e, %c : !stride.tensor<37x65xf32>, !stride.tensor<37x65xf32> -> !stride.tensor<37x65xf32>
  %xpdf = stride.mul %x, %pdf : !stride.tensor<37x65xf32>, !stride.tensor<37x65xf32> -> !stride.tensor<37x65xf32>
  %dgelu = stride.add %cdf, %xpdf : !stride.tensor<37x65xf32>, !stride.tensor<37x65xf32> -> !stride.tensor<37x65xf32>
  %grad = stride.mul %g, %dgelu : !stride.tensor<37x65xf32>, !stride.tensor<37x65xf32> -> !stride.tensor<37x65xf32>

  // any over rows (inner), over columns (outer, keepdim) and over all.
  %t = stride.full 0.95 : !stride.tensor<37x65xf32>
  %big = stride.cmp gt, %x, %t : !stride.tensor<37x65xf32>, !stride.tensor<37x65xf32> -> !stride.tensor<37x65xi1>
  %rows = stride.any %big dims [1] : !stride.tensor<37x65xi1> -> !stride.tensor<37xi1>
  %cols = stride.any %big dims [0] keepdim : !stride.tensor<37x65xi1> -> !stride.tensor<1x65xi1>
  %huge = stride.full 0.9995 : !stride.tensor<37x65xf32>
  %vbig = stride.cmp gt, %g, %huge : !stride.tensor<37x65xf32>, !stride.tensor<37x65xf32> -> !stride.tensor<37x65xi1>
  %all = stride.any %vbig dims [0, 1] : !stride.tensor<37x65xi1> -> !stride.tensor<i1>

  // cat of exp(x), y and z transposed along dim 1; summed and stored.
  %ex = stride.exp %x : !stride.tensor<37x65xf32> -> !stride.tensor<37x65xf32>
  %zt = stride.permute %z dims [1, 0] : !stride.tensor<7x37xf32>
      -> !stride.tensor<37x7xf32, strides = [1, 37], offset = 0>
  %cat = stride.cat %ex, %y, %zt dim 1 : !stride.tensor<37x65xf32>, !stride.tensor<37x13xf32>,
      !stride.tensor<37x7xf32, strides = [1, 37], offset = 0> -> !stride.tensor<37x85xf32>
  %sum = stride.sum %cat dims [1] : !stride.tensor<37x85xf32> -> !stride.tensor<37xf32>
  %two = stride.full 2.0 : !stride.tensor<37x85xf32>
  %cat2 = stride.mul %cat, %two : !stride.tensor<37x85xf32>, !stride.tensor<37x85xf32> -> !stride.tensor<37x85xf32>
  return %grad, %rows, %cols, %all, %sum, %cat2
      : !stride.tensor<37x65xf32>, !stride.tensor<37xi1>, !stride.tensor<1x65xi1>,
        !stride.tensor<i1>, !stride.tensor<37xf32>, !stride.tensor<37x85xf32>
}
