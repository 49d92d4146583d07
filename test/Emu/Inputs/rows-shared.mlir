// Rows held in one block's shared memory (scheme row_shared, RowSplit.h):
// rows longer than a block holds in registers whose values read by more
// than one phase take at most 2 bytes an element (rowSharedLayout).
// LayerNorm over bf16 rows of 40000 with
// weight and bias (groups of 4, the last ones clamped; x held from the
// first phase to the last, x - mean computed again; weight and bias read
// from memory), a bf16 x - mean(x) scaled by its maximum over rows of
// 40001 (odd: an element per step), two i8 inputs each read by both phases
// (two buffers), a row first read inside a cat's branches (held from the
// second phase), softmax over bf16 rows of 40000 (exp's results held
// where x was, not computed again), and softmax over i8 rows cast to bf16
// (x, 1 byte, and exp's results, 2 bytes, cannot share a buffer: 3 bytes an
// element, so its rows go over a cluster instead).
func.func @shared(%a: !stride.tensor<3x40000xbf16>, %w: !stride.tensor<40000xbf16>,
                  %bias: !stride.tensor<40000xbf16>, %h: !stride.tensor<3x40001xbf16>,
                  %p: !stride.tensor<2x20000xi8>, %q: !stride.tensor<2x20000xi8>,
                  %c: !stride.tensor<3x40000xbf16>, %s: !stride.tensor<2x40000xbf16>,
                  %m: !stride.tensor<2x40000xi8>)
    -> (!stride.tensor<3x40000xbf16>, !stride.tensor<3x40001xbf16>,
        !stride.tensor<2x20000xf32>, !stride.tensor<3x40000xbf16>,
        !stride.tensor<2x40000xbf16>, !stride.tensor<2x40000xbf16>) {
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
  // bf16 x - mean(x) scaled by its maximum over rows of 40001
  %hm = stride.mean %h dims [1] keepdim : !stride.tensor<3x40001xbf16> -> !stride.tensor<3x1xbf16>
  %hmb = stride.expand %hm : !stride.tensor<3x1xbf16> -> !stride.tensor<3x40001xbf16, strides = [1, 0]>
  %hd = stride.sub %h, %hmb : !stride.tensor<3x40001xbf16>, !stride.tensor<3x40001xbf16, strides = [1, 0]> -> !stride.tensor<3x40001xbf16>
  %hx = stride.max %hd dims [1] keepdim : !stride.tensor<3x40001xbf16> -> !stride.tensor<3x1xbf16>
  %hxb = stride.expand %hx : !stride.tensor<3x1xbf16> -> !stride.tensor<3x40001xbf16, strides = [1, 0]>
  %hy = stride.div %hd, %hxb : !stride.tensor<3x40001xbf16>, !stride.tensor<3x40001xbf16, strides = [1, 0]> -> !stride.tensor<3x40001xbf16>
  // two i8 inputs, each read by both phases: p - max(max(p, q)) + q over
  // rows of 20000, in f32
  %pq = stride.maximum %p, %q : !stride.tensor<2x20000xi8>, !stride.tensor<2x20000xi8> -> !stride.tensor<2x20000xi8>
  %pm = stride.max %pq dims [1] keepdim : !stride.tensor<2x20000xi8> -> !stride.tensor<2x1xi8>
  %pmf = stride.cast %pm : !stride.tensor<2x1xi8> -> !stride.tensor<2x1xf32>
  %pmb = stride.expand %pmf : !stride.tensor<2x1xf32> -> !stride.tensor<2x20000xf32, strides = [1, 0]>
  %pf = stride.cast %p : !stride.tensor<2x20000xi8> -> !stride.tensor<2x20000xf32>
  %qf = stride.cast %q : !stride.tensor<2x20000xi8> -> !stride.tensor<2x20000xf32>
  %pd = stride.sub %pf, %pmb : !stride.tensor<2x20000xf32>, !stride.tensor<2x20000xf32, strides = [1, 0]> -> !stride.tensor<2x20000xf32>
  %py = stride.add %pd, %qf : !stride.tensor<2x20000xf32>, !stride.tensor<2x20000xf32> -> !stride.tensor<2x20000xf32>
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
  // softmax over rows of 40000
  %sm = stride.max %s dims [1] keepdim : !stride.tensor<2x40000xbf16> -> !stride.tensor<2x1xbf16>
  %smb = stride.expand %sm : !stride.tensor<2x1xbf16> -> !stride.tensor<2x40000xbf16, strides = [1, 0]>
  %sd = stride.sub %s, %smb : !stride.tensor<2x40000xbf16>, !stride.tensor<2x40000xbf16, strides = [1, 0]> -> !stride.tensor<2x40000xbf16>
  %se = stride.exp %sd : !stride.tensor<2x40000xbf16> -> !stride.tensor<2x40000xbf16>
  %ss = stride.sum %se dims [1] keepdim : !stride.tensor<2x40000xbf16> -> !stride.tensor<2x1xbf16>
  %ssb = stride.expand %ss : !stride.tensor<2x1xbf16> -> !stride.tensor<2x40000xbf16, strides = [1, 0]>
  %sy = stride.div %se, %ssb : !stride.tensor<2x40000xbf16>, !stride.tensor<2x40000xbf16, strides = [1, 0]> -> !stride.tensor<2x40000xbf16>
  // softmax over i8 rows of 40000 cast to bf16
  %mx = stride.cast %m : !stride.tensor<2x40000xi8> -> !stride.tensor<2x40000xbf16>
  %mm = stride.max %mx dims [1] keepdim : !stride.tensor<2x40000xbf16> -> !stride.tensor<2x1xbf16>
  %mmb = stride.expand %mm : !stride.tensor<2x1xbf16> -> !stride.tensor<2x40000xbf16, strides = [1, 0]>
  %md = stride.sub %mx, %mmb : !stride.tensor<2x40000xbf16>, !stride.tensor<2x40000xbf16, strides = [1, 0]> -> !stride.tensor<2x40000xbf16>
  %me = stride.exp %md : !stride.tensor<2x40000xbf16> -> !stride.tensor<2x40000xbf16>
  %ms = stride.sum %me dims [1] keepdim : !stride.tensor<2x40000xbf16> -> !stride.tensor<2x1xbf16>
  %msb = stride.expand %ms : !stride.tensor<2x1xbf16> -> !stride.tensor<2x40000xbf16, strides = [1, 0]>
  %my = stride.div %me, %msb : !stride.tensor<2x40000xbf16>, !stride.tensor<2x40000xbf16, strides = [1, 0]> -> !stride.tensor<2x40000xbf16>
  return %ay, %hy, %py, %cy, %sy, %my : !stride.tensor<3x40000xbf16>, !stride.tensor<3x40001xbf16>,
      !stride.tensor<2x20000xf32>, !stride.tensor<3x40000xbf16>, !stride.tensor<2x40000xbf16>,
      !stride.tensor<2x40000xbf16>
}
