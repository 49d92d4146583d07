// Broadcast reductions over rows of 16 to 64 elements, a power of two of
// groups of 4: each row takes that many lanes, a group each, several rows
// per warp (Schedule.cpp, kMinRowLanes). Row counts that fill every warp
// (40 rows of 32: 4 per warp) and that leave a warp's last rows past the
// end (7 rows of 64, 2 per warp; 5 rows of 16, 8 per warp; 1001 rows of
// 64), softmax in f32 and bf16, and a LayerNorm with a weight over rows of
// 16 (two reductions, a per-row rsqrt).
func.func @short_rows(%a: !stride.tensor<7x64xf32>, %b: !stride.tensor<5x16xf32>,
                      %w: !stride.tensor<16xf32>, %c: !stride.tensor<40x32xbf16>,
                      %e: !stride.tensor<1001x64xf32>)
    -> (!stride.tensor<7x64xf32>, !stride.tensor<5x16xf32>, !stride.tensor<40x32xbf16>,
        !stride.tensor<1001x64xf32>) {
  // softmax over rows of 64
  %am = stride.max %a dims [1] keepdim : !stride.tensor<7x64xf32> -> !stride.tensor<7x1xf32>
  %amb = stride.expand %am : !stride.tensor<7x1xf32> -> !stride.tensor<7x64xf32, strides = [1, 0]>
  %ad = stride.sub %a, %amb : !stride.tensor<7x64xf32>, !stride.tensor<7x64xf32, strides = [1, 0]> -> !stride.tensor<7x64xf32>
  %ae = stride.exp %ad : !stride.tensor<7x64xf32> -> !stride.tensor<7x64xf32>
  %as = stride.sum %ae dims [1] keepdim : !stride.tensor<7x64xf32> -> !stride.tensor<7x1xf32>
  %asb = stride.expand %as : !stride.tensor<7x1xf32> -> !stride.tensor<7x64xf32, strides = [1, 0]>
  %ay = stride.div %ae, %asb : !stride.tensor<7x64xf32>, !stride.tensor<7x64xf32, strides = [1, 0]> -> !stride.tensor<7x64xf32>
  // LayerNorm over rows of 16, times a weight
  %bm = stride.mean %b dims [1] keepdim : !stride.tensor<5x16xf32> -> !stride.tensor<5x1xf32>
  %bmb = stride.expand %bm : !stride.tensor<5x1xf32> -> !stride.tensor<5x16xf32, strides = [1, 0]>
  %bd = stride.sub %b, %bmb : !stride.tensor<5x16xf32>, !stride.tensor<5x16xf32, strides = [1, 0]> -> !stride.tensor<5x16xf32>
  %bq = stride.mul %bd, %bd : !stride.tensor<5x16xf32>, !stride.tensor<5x16xf32> -> !stride.tensor<5x16xf32>
  %bv = stride.mean %bq dims [1] keepdim : !stride.tensor<5x16xf32> -> !stride.tensor<5x1xf32>
  %bvr = stride.rsqrt %bv : !stride.tensor<5x1xf32> -> !stride.tensor<5x1xf32>
  %bvb = stride.expand %bvr : !stride.tensor<5x1xf32> -> !stride.tensor<5x16xf32, strides = [1, 0]>
  %bn = stride.mul %bd, %bvb : !stride.tensor<5x16xf32>, !stride.tensor<5x16xf32, strides = [1, 0]> -> !stride.tensor<5x16xf32>
  %wb = stride.expand %w : !stride.tensor<16xf32> -> !stride.tensor<5x16xf32, strides = [0, 1]>
  %by = stride.mul %bn, %wb : !stride.tensor<5x16xf32>, !stride.tensor<5x16xf32, strides = [0, 1]> -> !stride.tensor<5x16xf32>
  // bf16 softmax over rows of 32
  %cm = stride.max %c dims [1] keepdim : !stride.tensor<40x32xbf16> -> !stride.tensor<40x1xbf16>
  %cmb = stride.expand %cm : !stride.tensor<40x1xbf16> -> !stride.tensor<40x32xbf16, strides = [1, 0]>
  %cd = stride.sub %c, %cmb : !stride.tensor<40x32xbf16>, !stride.tensor<40x32xbf16, strides = [1, 0]> -> !stride.tensor<40x32xbf16>
  %ce = stride.exp %cd : !stride.tensor<40x32xbf16> -> !stride.tensor<40x32xbf16>
  %cs = stride.sum %ce dims [1] keepdim : !stride.tensor<40x32xbf16> -> !stride.tensor<40x1xbf16>
  %csb = stride.expand %cs : !stride.tensor<40x1xbf16> -> !stride.tensor<40x32xbf16, strides = [1, 0]>
  %cy = stride.div %ce, %csb : !stride.tensor<40x32xbf16>, !stride.tensor<40x32xbf16, strides = [1, 0]> -> !stride.tensor<40x32xbf16>
  // x - max(x) over 1001 rows of 64
  %em = stride.max %e dims [1] keepdim : !stride.tensor<1001x64xf32> -> !stride.tensor<1001x1xf32>
  %emb = stride.expand %em : !stride.tensor<1001x1xf32> -> !stride.tensor<1001x64xf32, strides = [1, 0]>
  %ey = stride.sub %e, %emb : !stride.tensor<1001x64xf32>, !stride.tensor<1001x64xf32, strides = [1, 0]> -> !stride.tensor<1001x64xf32>
  return %ay, %by, %cy, %ey : !stride.tensor<7x64xf32>, !stride.tensor<5x16xf32>, !stride.tensor<40x32xbf16>, !stride.tensor<1001x64xf32>
}
