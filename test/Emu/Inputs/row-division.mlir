// Divisions by a value held once per row (in f16 and bf16 Prelude.h's
// stride_div_row, the row's reciprocal and two Newton steps; in f32 a plain
// division), which must round exactly as an IEEE division: the divisor is each row's max, the same whatever the order
// the row is reduced in, so the fused kernels match the unfused ones (a
// plain division per element) bitwise. Rows of 1000 and 1024 (a warp), of
// 5000 (a block) and of 40000 (a thread-block cluster), in f32, bf16 and
// f16; numerators with signed zeros (-relu(x)), numerators and divisors out
// of [2^-60, 2^60] (the plain division's path), in range and out.
func.func @division(%a: !stride.tensor<4x1000xf32>, %b: !stride.tensor<3x5000xf32>,
                    %c: !stride.tensor<2x40000xf32>, %d: !stride.tensor<4x1024xbf16>,
                    %e: !stride.tensor<4x1000xf16>)
    -> (!stride.tensor<4x1000xf32>, !stride.tensor<4x1000xf32>, !stride.tensor<4x1000xf32>,
        !stride.tensor<4x1000xf32>, !stride.tensor<3x5000xf32>, !stride.tensor<2x40000xf32>,
        !stride.tensor<4x1024xbf16>, !stride.tensor<4x1000xf16>) {
  // x / max(x), rows of 1000
  %am = stride.max %a dims [1] keepdim : !stride.tensor<4x1000xf32> -> !stride.tensor<4x1xf32>
  %amb = stride.expand %am : !stride.tensor<4x1xf32> -> !stride.tensor<4x1000xf32, strides = [1, 0]>
  %ay = stride.div %a, %amb : !stride.tensor<4x1000xf32>, !stride.tensor<4x1000xf32, strides = [1, 0]> -> !stride.tensor<4x1000xf32>
  // -relu(x) / max(x): -0 where x <= 0
  %ar = stride.relu %a : !stride.tensor<4x1000xf32> -> !stride.tensor<4x1000xf32>
  %an = stride.neg %ar : !stride.tensor<4x1000xf32> -> !stride.tensor<4x1000xf32>
  %am2 = stride.max %a dims [1] keepdim : !stride.tensor<4x1000xf32> -> !stride.tensor<4x1xf32>
  %amb2 = stride.expand %am2 : !stride.tensor<4x1xf32> -> !stride.tensor<4x1000xf32, strides = [1, 0]>
  %zy = stride.div %an, %amb2 : !stride.tensor<4x1000xf32>, !stride.tensor<4x1000xf32, strides = [1, 0]> -> !stride.tensor<4x1000xf32>
  // (x * 1e30) / max(x): numerators beyond 2^60
  %big = stride.full 1.0e+30 : !stride.tensor<4x1000xf32>
  %ab = stride.mul %a, %big : !stride.tensor<4x1000xf32>, !stride.tensor<4x1000xf32> -> !stride.tensor<4x1000xf32>
  %am3 = stride.max %a dims [1] keepdim : !stride.tensor<4x1000xf32> -> !stride.tensor<4x1xf32>
  %amb3 = stride.expand %am3 : !stride.tensor<4x1xf32> -> !stride.tensor<4x1000xf32, strides = [1, 0]>
  %by = stride.div %ab, %amb3 : !stride.tensor<4x1000xf32>, !stride.tensor<4x1000xf32, strides = [1, 0]> -> !stride.tensor<4x1000xf32>
  // x / (max(x) * 1e-30): a divisor below 2^-60, computed once per row
  %am4 = stride.max %a dims [1] keepdim : !stride.tensor<4x1000xf32> -> !stride.tensor<4x1xf32>
  %tiny = stride.full 1.0e-30 : !stride.tensor<4x1xf32>
  %amt = stride.mul %am4, %tiny : !stride.tensor<4x1xf32>, !stride.tensor<4x1xf32> -> !stride.tensor<4x1xf32>
  %amtb = stride.expand %amt : !stride.tensor<4x1xf32> -> !stride.tensor<4x1000xf32, strides = [1, 0]>
  %ty = stride.div %a, %amtb : !stride.tensor<4x1000xf32>, !stride.tensor<4x1000xf32, strides = [1, 0]> -> !stride.tensor<4x1000xf32>
  // rows of 5000 (a block per row)
  %bm = stride.max %b dims [1] keepdim : !stride.tensor<3x5000xf32> -> !stride.tensor<3x1xf32>
  %bmb = stride.expand %bm : !stride.tensor<3x1xf32> -> !stride.tensor<3x5000xf32, strides = [1, 0]>
  %by2 = stride.div %b, %bmb : !stride.tensor<3x5000xf32>, !stride.tensor<3x5000xf32, strides = [1, 0]> -> !stride.tensor<3x5000xf32>
  // rows of 40000 (a thread-block cluster)
  %cm = stride.max %c dims [1] keepdim : !stride.tensor<2x40000xf32> -> !stride.tensor<2x1xf32>
  %cmb = stride.expand %cm : !stride.tensor<2x1xf32> -> !stride.tensor<2x40000xf32, strides = [1, 0]>
  %cy = stride.div %c, %cmb : !stride.tensor<2x40000xf32>, !stride.tensor<2x40000xf32, strides = [1, 0]> -> !stride.tensor<2x40000xf32>
  // bf16 rows of 1024, f16 rows of 1000
  %dm = stride.max %d dims [1] keepdim : !stride.tensor<4x1024xbf16> -> !stride.tensor<4x1xbf16>
  %dmb = stride.expand %dm : !stride.tensor<4x1xbf16> -> !stride.tensor<4x1024xbf16, strides = [1, 0]>
  %dy = stride.div %d, %dmb : !stride.tensor<4x1024xbf16>, !stride.tensor<4x1024xbf16, strides = [1, 0]> -> !stride.tensor<4x1024xbf16>
  %em = stride.max %e dims [1] keepdim : !stride.tensor<4x1000xf16> -> !stride.tensor<4x1xf16>
  %emb = stride.expand %em : !stride.tensor<4x1xf16> -> !stride.tensor<4x1000xf16, strides = [1, 0]>
  %ey = stride.div %e, %emb : !stride.tensor<4x1000xf16>, !stride.tensor<4x1000xf16, strides = [1, 0]> -> !stride.tensor<4x1000xf16>
  return %ay, %zy, %by, %ty, %by2, %cy, %dy, %ey
      : !stride.tensor<4x1000xf32>, !stride.tensor<4x1000xf32>, !stride.tensor<4x1000xf32>,
        !stride.tensor<4x1000xf32>, !stride.tensor<3x5000xf32>, !stride.tensor<2x40000xf32>,
        !stride.tensor<4x1024xbf16>, !stride.tensor<4x1000xf16>
}
