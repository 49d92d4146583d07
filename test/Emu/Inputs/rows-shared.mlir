// Rows held in one block's shared memory (scheme row_shared, RowSplit.h):
// rows the cluster form would take (longer than a block holds in
// registers) whose own inputs take at most 2 bytes an element, in a kernel
// that computes no math function per element. LayerNorm over bf16 rows of
// 40000 with weight and bias (groups of 4, the last ones clamped; the
// weight and bias read from memory in the last phase), a bf16 x - mean(x)
// scaled by its maximum over rows of 40001 (odd: an element per step), two
// i8 inputs over rows of 20000 (two buffers), and a row first read inside
// a cat's branches (not held there), then directly by the second phase
// (stored), then by the epilogue (read back).
func.func @shared(%a: !stride.tensor<3x40000xbf16>, %w: !stride.tensor<40000xbf16>,
                  %bias: !stride.tensor<40000xbf16>, %h: !stride.tensor<3x40001xbf16>,
                  %p: !stride.tensor<2x20000xi8>, %q: !stride.tensor<2x20000xi8>,
                  %c: !stride.tensor<3x40000xbf16>)
    -> (!stride.tensor<3x40000xbf16>, !stride.tensor<3x40001xbf16>,
        !stride.tensor<2x20000xf32>, !stride.tensor<3x40000xbf16>) {
  // LayerNorm over rows of 40000: mean, variance, normalize, weight, bias
  %am = stride.mean %a dims [1] keepdim : !stride.tensor<3x40000xbf16> -> !stride.tensor<3x1xbf16>
  %amb = stride.expand %am : !stride.tensor<3x1xbf16> -> !stride.tensor<3x40000xbf16, strides = [1, 0]>
  %ad = stride.sub %a, %amb : !stride.tensor<3x40000xbf16>, !stride.tensor<3x40000xbf16, strides = [1, 0]> -> !stride.tensor<3x40000xbf16>
  %aq = stride.mul %ad, %ad : !stride.tensor<3x40000xbf16>, !stride.tensor<3x40000xbf16> -> !stride.tensor<3x40000xbf16>
  %av = stride.mean %aq dims [1] keepdim : !stride.tensor<3x40000xbf16> -> !stride.tensor<3x1xbf16>
  %eps = stride.full 1.0e-05 : !stride.tensor<3x1xbf16>
  %ave = stride.add %av, %eps : !stride.tensor<3x1xbf16>, !stride.tensor<3x1xbf16> -> !stride.tensor<3x1xbf16>
  %ar = stride.rsqrt %ave : !stride.tensor<3x1xbf16> -> !stride.tensor<3x1xbf16>
  %arb = stride.expand %ar : !stride.tensor<3x1xbf16> -> !stride.tensor<3x40000xbf16, strides = [1, 0]>
  %an = stride.mul %ad, %arb : !stride.tensor<3x40000xbf16>, !stride.tensor<3x40000xbf16, strides = [1, 0]> -> !stride.tensor<3x40000xbf16>
  %wb = stride.expand %w : !stride.tensor<40000xbf16> -> !stride.tensor<3x40000xbf16, strides = [0, 1]>
  %aw = stride.mul %an, %wb : !stride.tensor<3x40000xbf16>, !stride.tensor<3x40000xbf16, strides = [0, 1]> -> !stride.tensor<3x40000xbf16>
  %bb = stride.expand %bias : !stride.tensor<40000xbf16> -> !stride.tensor<3x40000xbf16, strides = [0, 1]>
  %ay = stride.add %aw, %bb : !stride.tensor<3x40000xbf16>, !stride.tensor<3x40000xbf16, strides = [0, 1]> -> !stride.tensor<3x40000xbf16>
  // bf16 x - mean(x) scaled by its maximum over rows of 20001
  %hm = stride.mean %h dims [1] keepdim : !stride.tensor<3x40001xbf16> -> !stride.tensor<3x1xbf16>
  %hmb = stride.expand %hm : !stride.tensor<3x1xbf16> -> !stride.tensor<3x40001xbf16, strides = [1, 0]>
  %hd = stride.sub %h, %hmb : !stride.tensor<3x40001xbf16>, !stride.tensor<3x40001xbf16, strides = [1, 0]> -> !stride.tensor<3x40001xbf16>
  %hx = stride.max %hd dims [1] keepdim : !stride.tensor<3x40001xbf16> -> !stride.tensor<3x1xbf16>
  %hxb = stride.expand %hx : !stride.tensor<3x1xbf16> -> !stride.tensor<3x40001xbf16, strides = [1, 0]>
  %hy = stride.div %hd, %hxb : !stride.tensor<3x40001xbf16>, !stride.tensor<3x40001xbf16, strides = [1, 0]> -> !stride.tensor<3x40001xbf16>
  // two i8 inputs: p + q minus its mean over rows of 20000, in f32
  %pf = stride.cast %p : !stride.tensor<2x20000xi8> -> !stride.tensor<2x20000xf32>
  %qf = stride.cast %q : !stride.tensor<2x20000xi8> -> !stride.tensor<2x20000xf32>
  %pq = stride.add %pf, %qf : !stride.tensor<2x20000xf32>, !stride.tensor<2x20000xf32> -> !stride.tensor<2x20000xf32>
  %pm = stride.mean %pq dims [1] keepdim : !stride.tensor<2x20000xf32> -> !stride.tensor<2x1xf32>
  %pmb = stride.expand %pm : !stride.tensor<2x1xf32> -> !stride.tensor<2x20000xf32, strides = [1, 0]>
  %py = stride.sub %pq, %pmb : !stride.tensor<2x20000xf32>, !stride.tensor<2x20000xf32, strides = [1, 0]> -> !stride.tensor<2x20000xf32>
  // the row's halves joined again (cat), then the row itself
  %c0 = stride.slice %c dim 1 start 0 end 14000 step 1 : !stride.tensor<3x40000xbf16> -> !stride.tensor<3x14000xbf16, strides = [40000, 1]>
  %c1 = stride.slice %c dim 1 start 14000 end 40000 step 1 : !stride.tensor<3x40000xbf16> -> !stride.tensor<3x26000xbf16, strides = [40000, 1], offset = 14000>
  %cc = stride.cat %c0, %c1 dim 1 : !stride.tensor<3x14000xbf16, strides = [40000, 1]>, !stride.tensor<3x26000xbf16, strides = [40000, 1], offset = 14000> -> !stride.tensor<3x40000xbf16>
  %cm = stride.mean %cc dims [1] keepdim : !stride.tensor<3x40000xbf16> -> !stride.tensor<3x1xbf16>
  %cmb = stride.expand %cm : !stride.tensor<3x1xbf16> -> !stride.tensor<3x40000xbf16, strides = [1, 0]>
  %cd = stride.sub %c, %cmb : !stride.tensor<3x40000xbf16>, !stride.tensor<3x40000xbf16, strides = [1, 0]> -> !stride.tensor<3x40000xbf16>
  %cx = stride.max %cd dims [1] keepdim : !stride.tensor<3x40000xbf16> -> !stride.tensor<3x1xbf16>
  %cxb = stride.expand %cx : !stride.tensor<3x1xbf16> -> !stride.tensor<3x40000xbf16, strides = [1, 0]>
  %cy = stride.div %cd, %cxb : !stride.tensor<3x40000xbf16>, !stride.tensor<3x40000xbf16, strides = [1, 0]> -> !stride.tensor<3x40000xbf16>
  return %ay, %hy, %py, %cy : !stride.tensor<3x40000xbf16>, !stride.tensor<3x40001xbf16>,
      !stride.tensor<2x20000xf32>, !stride.tensor<3x40000xbf16>
}
