// Rows longer than a block holds in registers (RowSplit.h: 32768 elements,
// 16384 in a kernel that reads other inputs too): on sm_90 each is split
// over a thread-block cluster whose blocks combine their partial results
// through distributed shared memory. LayerNorm with weight and bias over
// rows of 20001 (odd: a cluster of 3 blocks of 512 threads, 14 elements
// each, the last ones clamped), softmax over rows of 40000 (5 blocks), bf16
// over rows of 33000 (5 blocks: x and exp's results, both read by the last
// phase, would take 4 bytes an element in shared memory, RowSplit.h), and
// rows of 140000, more than a cluster of 8 blocks of 1024 threads holds,
// re-read by one block in each phase.
func.func @wide(%a: !stride.tensor<3x20001xf32>, %w: !stride.tensor<20001xf32>,
                %bias: !stride.tensor<20001xf32>, %s: !stride.tensor<2x40000xf32>,
                %h: !stride.tensor<2x33000xbf16>, %r: !stride.tensor<1x140000xf32>)
    -> (!stride.tensor<3x20001xf32>, !stride.tensor<2x40000xf32>,
        !stride.tensor<2x33000xbf16>, !stride.tensor<1x140000xf32>) {
  // LayerNorm over rows of 20001: mean, variance, normalize, weight, bias
  %am = stride.mean %a dims [1] keepdim : !stride.tensor<3x20001xf32> -> !stride.tensor<3x1xf32>
  %amb = stride.expand %am : !stride.tensor<3x1xf32> -> !stride.tensor<3x20001xf32, strides = [1, 0]>
  %ad = stride.sub %a, %amb : !stride.tensor<3x20001xf32>, !stride.tensor<3x20001xf32, strides = [1, 0]> -> !stride.tensor<3x20001xf32>
  %aq = stride.mul %ad, %ad : !stride.tensor<3x20001xf32>, !stride.tensor<3x20001xf32> -> !stride.tensor<3x20001xf32>
  %av = stride.mean %aq dims [1] keepdim : !stride.tensor<3x20001xf32> -> !stride.tensor<3x1xf32>
  %eps = stride.full 1.0e-05 : !stride.tensor<3x1xf32>
  %ave = stride.add %av, %eps : !stride.tensor<3x1xf32>, !stride.tensor<3x1xf32> -> !stride.tensor<3x1xf32>
  %ar = stride.rsqrt %ave : !stride.tensor<3x1xf32> -> !stride.tensor<3x1xf32>
  %arb = stride.expand %ar : !stride.tensor<3x1xf32> -> !stride.tensor<3x20001xf32, strides = [1, 0]>
  %an = stride.mul %ad, %arb : !stride.tensor<3x20001xf32>, !stride.tensor<3x20001xf32, strides = [1, 0]> -> !stride.tensor<3x20001xf32>
  %wb = stride.expand %w : !stride.tensor<20001xf32> -> !stride.tensor<3x20001xf32, strides = [0, 1]>
  %aw = stride.mul %an, %wb : !stride.tensor<3x20001xf32>, !stride.tensor<3x20001xf32, strides = [0, 1]> -> !stride.tensor<3x20001xf32>
  %bb = stride.expand %bias : !stride.tensor<20001xf32> -> !stride.tensor<3x20001xf32, strides = [0, 1]>
  %ay = stride.add %aw, %bb : !stride.tensor<3x20001xf32>, !stride.tensor<3x20001xf32, strides = [0, 1]> -> !stride.tensor<3x20001xf32>
  // softmax over rows of 40000
  %sm = stride.max %s dims [1] keepdim : !stride.tensor<2x40000xf32> -> !stride.tensor<2x1xf32>
  %smb = stride.expand %sm : !stride.tensor<2x1xf32> -> !stride.tensor<2x40000xf32, strides = [1, 0]>
  %sd = stride.sub %s, %smb : !stride.tensor<2x40000xf32>, !stride.tensor<2x40000xf32, strides = [1, 0]> -> !stride.tensor<2x40000xf32>
  %se = stride.exp %sd : !stride.tensor<2x40000xf32> -> !stride.tensor<2x40000xf32>
  %ss = stride.sum %se dims [1] keepdim : !stride.tensor<2x40000xf32> -> !stride.tensor<2x1xf32>
  %ssb = stride.expand %ss : !stride.tensor<2x1xf32> -> !stride.tensor<2x40000xf32, strides = [1, 0]>
  %sy = stride.div %se, %ssb : !stride.tensor<2x40000xf32>, !stride.tensor<2x40000xf32, strides = [1, 0]> -> !stride.tensor<2x40000xf32>
  // bf16 e = exp(x - mean(x)) scaled by its maximum, plus x, over rows of
  // 33000
  %hm = stride.mean %h dims [1] keepdim : !stride.tensor<2x33000xbf16> -> !stride.tensor<2x1xbf16>
  %hmb = stride.expand %hm : !stride.tensor<2x1xbf16> -> !stride.tensor<2x33000xbf16, strides = [1, 0]>
  %hd = stride.sub %h, %hmb : !stride.tensor<2x33000xbf16>, !stride.tensor<2x33000xbf16, strides = [1, 0]> -> !stride.tensor<2x33000xbf16>
  %he = stride.exp %hd : !stride.tensor<2x33000xbf16> -> !stride.tensor<2x33000xbf16>
  %hx = stride.max %he dims [1] keepdim : !stride.tensor<2x33000xbf16> -> !stride.tensor<2x1xbf16>
  %hxb = stride.expand %hx : !stride.tensor<2x1xbf16> -> !stride.tensor<2x33000xbf16, strides = [1, 0]>
  %hq = stride.div %he, %hxb : !stride.tensor<2x33000xbf16>, !stride.tensor<2x33000xbf16, strides = [1, 0]> -> !stride.tensor<2x33000xbf16>
  %hy = stride.add %hq, %h : !stride.tensor<2x33000xbf16>, !stride.tensor<2x33000xbf16> -> !stride.tensor<2x33000xbf16>
  // x - max(x) over rows of 140000
  %rm = stride.max %r dims [1] keepdim : !stride.tensor<1x140000xf32> -> !stride.tensor<1x1xf32>
  %rmb = stride.expand %rm : !stride.tensor<1x1xf32> -> !stride.tensor<1x140000xf32, strides = [1, 0]>
  %ry = stride.sub %r, %rmb : !stride.tensor<1x140000xf32>, !stride.tensor<1x140000xf32, strides = [1, 0]> -> !stride.tensor<1x140000xf32>
  return %ay, %sy, %hy, %ry : !stride.tensor<3x20001xf32>, !stride.tensor<2x40000xf32>,
      !stride.tensor<2x33000xbf16>, !stride.tensor<1x140000xf32>
}
