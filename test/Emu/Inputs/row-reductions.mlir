// Broadcast-reduction kernels (form (d)), formed by stridec's fusion: each
// row's reductions, then an epilogue over the row that reads them broadcast
// back. Rows of 1000 (a warp, clamped last elements), a reduction over the
// outer dim (rows of 37 strided elements), rows of 2000 (a block of 64
// threads), rows of 40000 (a thread-block cluster of 5 blocks), f16
// rows of 65, integer rows, two reduced dims, and a non-keepdim mean read
// through unsqueeze + expand.
func.func @rows(%a: !stride.tensor<6x1000xf32>, %b: !stride.tensor<37x5xf32>,
                %c: !stride.tensor<3x2000xf32>, %d: !stride.tensor<2x40000xf32>,
                %e: !stride.tensor<4x65xf16>, %f: !stride.tensor<9x33xi32>,
                %g: !stride.tensor<3x4x5xf64>)
    -> (!stride.tensor<6x1000xf32>, !stride.tensor<37x5xf32>, !stride.tensor<3x2000xf32>,
        !stride.tensor<2x40000xf32>, !stride.tensor<4x65xf16>, !stride.tensor<9x33xi32>,
        !stride.tensor<3x4x5xf64>) {
  // softmax over the last dim of 6x1000
  %am = stride.max %a dims [1] keepdim : !stride.tensor<6x1000xf32> -> !stride.tensor<6x1xf32>
  %amb = stride.expand %am : !stride.tensor<6x1xf32> -> !stride.tensor<6x1000xf32, strides = [1, 0]>
  %ad = stride.sub %a, %amb : !stride.tensor<6x1000xf32>, !stride.tensor<6x1000xf32, strides = [1, 0]> -> !stride.tensor<6x1000xf32>
  %ae = stride.exp %ad : !stride.tensor<6x1000xf32> -> !stride.tensor<6x1000xf32>
  %as = stride.sum %ae dims [1] keepdim : !stride.tensor<6x1000xf32> -> !stride.tensor<6x1xf32>
  %asb = stride.expand %as : !stride.tensor<6x1xf32> -> !stride.tensor<6x1000xf32, strides = [1, 0]>
  %ay = stride.div %ae, %asb : !stride.tensor<6x1000xf32>, !stride.tensor<6x1000xf32, strides = [1, 0]> -> !stride.tensor<6x1000xf32>
  // softmax over dim 0 of 37x5
  %bm = stride.max %b dims [0] keepdim : !stride.tensor<37x5xf32> -> !stride.tensor<1x5xf32>
  %bmb = stride.expand %bm : !stride.tensor<1x5xf32> -> !stride.tensor<37x5xf32, strides = [0, 1]>
  %bd = stride.sub %b, %bmb : !stride.tensor<37x5xf32>, !stride.tensor<37x5xf32, strides = [0, 1]> -> !stride.tensor<37x5xf32>
  %be = stride.exp %bd : !stride.tensor<37x5xf32> -> !stride.tensor<37x5xf32>
  %bs = stride.sum %be dims [0] keepdim : !stride.tensor<37x5xf32> -> !stride.tensor<1x5xf32>
  %bsb = stride.expand %bs : !stride.tensor<1x5xf32> -> !stride.tensor<37x5xf32, strides = [0, 1]>
  %by = stride.div %be, %bsb : !stride.tensor<37x5xf32>, !stride.tensor<37x5xf32, strides = [0, 1]> -> !stride.tensor<37x5xf32>
  // x - mean(x) over rows of 2000, the mean without keepdim
  %cm = stride.mean %c dims [1] : !stride.tensor<3x2000xf32> -> !stride.tensor<3xf32>
  %cmu = stride.unsqueeze %cm dim 1 : !stride.tensor<3xf32> -> !stride.tensor<3x1xf32, strides = [1, 1]>
  %cmb = stride.expand %cmu : !stride.tensor<3x1xf32, strides = [1, 1]> -> !stride.tensor<3x2000xf32, strides = [1, 0]>
  %cy = stride.sub %c, %cmb : !stride.tensor<3x2000xf32>, !stride.tensor<3x2000xf32, strides = [1, 0]> -> !stride.tensor<3x2000xf32>
  // x / max(|x|) over rows of 40000
  %da = stride.abs %d : !stride.tensor<2x40000xf32> -> !stride.tensor<2x40000xf32>
  %dm = stride.max %da dims [1] keepdim : !stride.tensor<2x40000xf32> -> !stride.tensor<2x1xf32>
  %dmb = stride.expand %dm : !stride.tensor<2x1xf32> -> !stride.tensor<2x40000xf32, strides = [1, 0]>
  %dy = stride.div %d, %dmb : !stride.tensor<2x40000xf32>, !stride.tensor<2x40000xf32, strides = [1, 0]> -> !stride.tensor<2x40000xf32>
  // f16 softmax-like: exp(x) / sum(exp(x)) over rows of 65
  %ee = stride.exp %e : !stride.tensor<4x65xf16> -> !stride.tensor<4x65xf16>
  %es = stride.sum %ee dims [1] keepdim : !stride.tensor<4x65xf16> -> !stride.tensor<4x1xf16>
  %esb = stride.expand %es : !stride.tensor<4x1xf16> -> !stride.tensor<4x65xf16, strides = [1, 0]>
  %ey = stride.div %ee, %esb : !stride.tensor<4x65xf16>, !stride.tensor<4x65xf16, strides = [1, 0]> -> !stride.tensor<4x65xf16>
  // integers: x - max(x) + min(x)
  %fm = stride.max %f dims [1] keepdim : !stride.tensor<9x33xi32> -> !stride.tensor<9x1xi32>
  %fmb = stride.expand %fm : !stride.tensor<9x1xi32> -> !stride.tensor<9x33xi32, strides = [1, 0]>
  %fn = stride.min %f dims [1] keepdim : !stride.tensor<9x33xi32> -> !stride.tensor<9x1xi32>
  %fnb = stride.expand %fn : !stride.tensor<9x1xi32> -> !stride.tensor<9x33xi32, strides = [1, 0]>
  %fd = stride.sub %f, %fmb : !stride.tensor<9x33xi32>, !stride.tensor<9x33xi32, strides = [1, 0]> -> !stride.tensor<9x33xi32>
  %fy = stride.add %fd, %fnb : !stride.tensor<9x33xi32>, !stride.tensor<9x33xi32, strides = [1, 0]> -> !stride.tensor<9x33xi32>
  // two reduced dims (0 and 2) of 3x4x5: x / sum
  %gs = stride.sum %g dims [0, 2] keepdim : !stride.tensor<3x4x5xf64> -> !stride.tensor<1x4x1xf64>
  %gsb = stride.expand %gs : !stride.tensor<1x4x1xf64> -> !stride.tensor<3x4x5xf64, strides = [0, 1, 0]>
  %gy = stride.div %g, %gsb : !stride.tensor<3x4x5xf64>, !stride.tensor<3x4x5xf64, strides = [0, 1, 0]> -> !stride.tensor<3x4x5xf64>
  return %ay, %by, %cy, %dy, %ey, %fy, %gy : !stride.tensor<6x1000xf32>, !stride.tensor<37x5xf32>, !stride.tensor<3x2000xf32>,
        !stride.tensor<2x40000xf32>, !stride.tensor<4x65xf16>, !stride.tensor<9x33xi32>, !stride.tensor<3x4x5xf64>
}
