// Broadcast-reduction kernels whose rows are held in register arrays walked
// by unrolled loops: odd rows longer than a warp (2 elements per lane, the
// second clamped), rows a multiple of the warp (no clamping), rows shorter
// than a warp, a layer norm (three phases, each reading values of the
// phases before), a slice_scatter (assigned in branches) and a gather (a
// checked index) in the row's prologue and epilogue, and a kernel of 8 ops
// whose rows of 1000 take a block of 64 threads each (RowSplit.h).
func.func @loops(%a: !stride.tensor<5x40xf32>, %b: !stride.tensor<3x96xf32>,
                 %c: !stride.tensor<9x7xf32>, %d: !stride.tensor<4x300xf32>,
                 %e: !stride.tensor<6x45xf32>, %u: !stride.tensor<6x10xf32>,
                 %f: !stride.tensor<8x50xf32>, %i: !stride.tensor<8x50xi64>,
                 %h: !stride.tensor<3x1000xf32>)
    -> (!stride.tensor<5x40xf32>, !stride.tensor<3x96xf32>, !stride.tensor<9x7xf32>,
        !stride.tensor<4x300xf32>, !stride.tensor<6x45xf32>, !stride.tensor<8x50xf32>,
        !stride.tensor<3x1000xf32>) {
  // softmax over odd rows of 40
  %am = stride.max %a dims [1] keepdim : !stride.tensor<5x40xf32> -> !stride.tensor<5x1xf32>
  %amb = stride.expand %am : !stride.tensor<5x1xf32> -> !stride.tensor<5x40xf32, strides = [1, 0]>
  %ad = stride.sub %a, %amb : !stride.tensor<5x40xf32>, !stride.tensor<5x40xf32, strides = [1, 0]> -> !stride.tensor<5x40xf32>
  %ae = stride.exp %ad : !stride.tensor<5x40xf32> -> !stride.tensor<5x40xf32>
  %as = stride.sum %ae dims [1] keepdim : !stride.tensor<5x40xf32> -> !stride.tensor<5x1xf32>
  %asb = stride.expand %as : !stride.tensor<5x1xf32> -> !stride.tensor<5x40xf32, strides = [1, 0]>
  %ay = stride.div %ae, %asb : !stride.tensor<5x40xf32>, !stride.tensor<5x40xf32, strides = [1, 0]> -> !stride.tensor<5x40xf32>
  // x * 2 - max over rows of 96 (3 elements per lane, none clamped)
  %b2 = stride.add %b, %b : !stride.tensor<3x96xf32>, !stride.tensor<3x96xf32> -> !stride.tensor<3x96xf32>
  %bm = stride.max %b2 dims [1] keepdim : !stride.tensor<3x96xf32> -> !stride.tensor<3x1xf32>
  %bmb = stride.expand %bm : !stride.tensor<3x1xf32> -> !stride.tensor<3x96xf32, strides = [1, 0]>
  %by = stride.sub %b2, %bmb : !stride.tensor<3x96xf32>, !stride.tensor<3x96xf32, strides = [1, 0]> -> !stride.tensor<3x96xf32>
  // x - min over rows of 7 (one element per lane, most lanes idle)
  %cm = stride.min %c dims [1] keepdim : !stride.tensor<9x7xf32> -> !stride.tensor<9x1xf32>
  %cmb = stride.expand %cm : !stride.tensor<9x1xf32> -> !stride.tensor<9x7xf32, strides = [1, 0]>
  %cy = stride.sub %c, %cmb : !stride.tensor<9x7xf32>, !stride.tensor<9x7xf32, strides = [1, 0]> -> !stride.tensor<9x7xf32>
  // layer norm over rows of 300: (x - mean) * rsqrt(mean((x - mean)^2))
  %dm = stride.mean %d dims [1] keepdim : !stride.tensor<4x300xf32> -> !stride.tensor<4x1xf32>
  %dmb = stride.expand %dm : !stride.tensor<4x1xf32> -> !stride.tensor<4x300xf32, strides = [1, 0]>
  %dc = stride.sub %d, %dmb : !stride.tensor<4x300xf32>, !stride.tensor<4x300xf32, strides = [1, 0]> -> !stride.tensor<4x300xf32>
  %dq = stride.mul %dc, %dc : !stride.tensor<4x300xf32>, !stride.tensor<4x300xf32> -> !stride.tensor<4x300xf32>
  %dv = stride.mean %dq dims [1] keepdim : !stride.tensor<4x300xf32> -> !stride.tensor<4x1xf32>
  %dvb = stride.expand %dv : !stride.tensor<4x1xf32> -> !stride.tensor<4x300xf32, strides = [1, 0]>
  %dr = stride.rsqrt %dvb : !stride.tensor<4x300xf32, strides = [1, 0]> -> !stride.tensor<4x300xf32>
  %dy = stride.mul %dc, %dr : !stride.tensor<4x300xf32>, !stride.tensor<4x300xf32> -> !stride.tensor<4x300xf32>
  // a slice_scatter before the reduction: columns 5..15 of rows of 45 come
  // from u
  %es = stride.slice_scatter %e, %u dim 1 start 5 end 15 step 1 : !stride.tensor<6x45xf32>,
      !stride.tensor<6x10xf32> -> !stride.tensor<6x45xf32>
  // (normalized by the sum of exp, which is positive: a plain sum of random
  // values can cancel to near zero and make the quotient ill-conditioned)
  %ee = stride.exp %es : !stride.tensor<6x45xf32> -> !stride.tensor<6x45xf32>
  %esum = stride.sum %ee dims [1] keepdim : !stride.tensor<6x45xf32> -> !stride.tensor<6x1xf32>
  %esb = stride.expand %esum : !stride.tensor<6x1xf32> -> !stride.tensor<6x45xf32, strides = [1, 0]>
  %ey = stride.div %ee, %esb : !stride.tensor<6x45xf32>, !stride.tensor<6x45xf32, strides = [1, 0]> -> !stride.tensor<6x45xf32>
  // a gather along the row: y = g - max(g), g = gather(f, 1, i)
  %g = stride.gather %f, %i dim 1 : !stride.tensor<8x50xf32>, !stride.tensor<8x50xi64> -> !stride.tensor<8x50xf32>
  %gm = stride.max %g dims [1] keepdim : !stride.tensor<8x50xf32> -> !stride.tensor<8x1xf32>
  %gmb = stride.expand %gm : !stride.tensor<8x1xf32> -> !stride.tensor<8x50xf32, strides = [1, 0]>
  %gy = stride.sub %g, %gmb : !stride.tensor<8x50xf32>, !stride.tensor<8x50xf32, strides = [1, 0]> -> !stride.tensor<8x50xf32>
  // y = tanh(exp(tanh(x - max(x)))) / sum(...) over rows of 1000, 8 ops
  %hm = stride.max %h dims [1] keepdim : !stride.tensor<3x1000xf32> -> !stride.tensor<3x1xf32>
  %hmb = stride.expand %hm : !stride.tensor<3x1xf32> -> !stride.tensor<3x1000xf32, strides = [1, 0]>
  %hd = stride.sub %h, %hmb : !stride.tensor<3x1000xf32>, !stride.tensor<3x1000xf32, strides = [1, 0]> -> !stride.tensor<3x1000xf32>
  %h1 = stride.tanh %hd : !stride.tensor<3x1000xf32> -> !stride.tensor<3x1000xf32>
  %h2 = stride.exp %h1 : !stride.tensor<3x1000xf32> -> !stride.tensor<3x1000xf32>
  %h3 = stride.tanh %h2 : !stride.tensor<3x1000xf32> -> !stride.tensor<3x1000xf32>
  %h4 = stride.mul %h3, %h2 : !stride.tensor<3x1000xf32>, !stride.tensor<3x1000xf32> -> !stride.tensor<3x1000xf32>
  %hs = stride.sum %h4 dims [1] keepdim : !stride.tensor<3x1000xf32> -> !stride.tensor<3x1xf32>
  %hsb = stride.expand %hs : !stride.tensor<3x1xf32> -> !stride.tensor<3x1000xf32, strides = [1, 0]>
  %hy = stride.div %h4, %hsb : !stride.tensor<3x1000xf32>, !stride.tensor<3x1000xf32, strides = [1, 0]> -> !stride.tensor<3x1000xf32>
  return %ay, %by, %cy, %dy, %ey, %gy, %hy : !stride.tensor<5x40xf32>, !stride.tensor<3x96xf32>,
      !stride.tensor<9x7xf32>, !stride.tensor<4x300xf32>, !stride.tensor<6x45xf32>, !stride.tensor<8x50xf32>, !stride.tensor<3x1000xf32>
}
