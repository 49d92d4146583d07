// argmax and argmin (greedy decoding's last step) on random inputs, against
// the reference interpreter (argmax.test): rows of 32,000 and 50,257
// logits, 1 to 32 rows, f32 and bf16 (bf16's rounding makes ties near the
// maximum); a cast and a slice before it; ties everywhere (values cast to
// integers, random 0/1 integers); NaNs (log of x + 0.9995 below 0: a few a
// signed zeros only (x * 0: -0.0 equals 0.0, so the first element wins);
// an outer dim; max and argmax of the same rows in one kernel (max.dim);
// a one-hot of the argmax (a broadcast epilogue over the row).
!logits = !stride.tensor<32x32000xf32>
!wide = !stride.tensor<4x50257xbf16>
!one = !stride.tensor<1x50257xf32>
!small = !stride.tensor<5x1000xf32>
func.func @argmax(%a: !logits, %b: !wide, %c: !one, %d: !small,
                  %e: !stride.tensor<3x7x33xf32>, %f: !stride.tensor<6x300xi32>)
    -> (!stride.tensor<32x1xi64>, !stride.tensor<32xi64>, !stride.tensor<32xi64>,
        !stride.tensor<4x1xi64>, !stride.tensor<1xi64>, !stride.tensor<32xi64>,
        !stride.tensor<32xi64>, !stride.tensor<5xi64>, !stride.tensor<5xi64>,
        !stride.tensor<5xf32>, !stride.tensor<5xi64>, !stride.tensor<5xi64>,
        !stride.tensor<5xi64>, !stride.tensor<3x33xi64>, !stride.tensor<6xi64>,
        !stride.tensor<6xi64>, !stride.tensor<5x1000xi1>) {
  // The decode step, f32 and cast to bf16.
  %0 = stride.argmax %a dim 1 keepdim : !logits -> !stride.tensor<32x1xi64>
  %h = stride.cast %a : !logits -> !stride.tensor<32x32000xbf16>
  %1 = stride.argmax %h dim 1 : !stride.tensor<32x32000xbf16> -> !stride.tensor<32xi64>
  // A slice of the row (indices count from the slice's start).
  %s = stride.slice %a dim 1 start 7 end 31000 step 1 : !logits
      -> !stride.tensor<32x30993xf32, strides = [32000, 1], offset = 7>
  %2 = stride.argmin %s dim 1 : !stride.tensor<32x30993xf32, strides = [32000, 1], offset = 7>
      -> !stride.tensor<32xi64>
  // GPT-2's vocabulary, bf16 logits, 4 rows and 1.
  %3 = stride.argmax %b dim 1 keepdim : !wide -> !stride.tensor<4x1xi64>
  %4 = stride.argmax %c dim 1 : !one -> !stride.tensor<1xi64>
  // Ties: the logits cast to integers -3..3 and back.
  %four = stride.full 4.0 : !stride.tensor<f32>
  %four2 = stride.expand %four : !stride.tensor<f32>
      -> !stride.tensor<32x32000xf32, strides = [0, 0], offset = 0>
  %m = stride.mul %a, %four2 : !logits,
      !stride.tensor<32x32000xf32, strides = [0, 0], offset = 0> -> !logits
  %mi = stride.cast %m : !logits -> !stride.tensor<32x32000xi32>
  %mf = stride.cast %mi : !stride.tensor<32x32000xi32> -> !logits
  %5 = stride.argmax %mf dim 1 : !logits -> !stride.tensor<32xi64>
  %6 = stride.argmin %mf dim 1 : !logits -> !stride.tensor<32xi64>
  // NaNs: log(d + 0.997) where d < -0.997.
  %k = stride.full 0.997 : !stride.tensor<f32>
  %k2 = stride.expand %k : !stride.tensor<f32>
      -> !stride.tensor<5x1000xf32, strides = [0, 0], offset = 0>
  %dk = stride.add %d, %k2 : !small,
      !stride.tensor<5x1000xf32, strides = [0, 0], offset = 0> -> !small
  %ln = stride.log %dk : !small -> !small
  %7 = stride.argmax %ln dim 1 : !small -> !stride.tensor<5xi64>
  %8 = stride.argmin %ln dim 1 : !small -> !stride.tensor<5xi64>
  // max.dim's values and indices: one kernel.
  %9, %10 = stride.kernel "max_argmax" ins(%ln : !small)
      -> (!stride.tensor<5xf32>, !stride.tensor<5xi64>) {
  ^bb0(%x: !small):
    %v = stride.max %x dims [1] : !small -> !stride.tensor<5xf32>
    %i = stride.argmax %x dim 1 : !small -> !stride.tensor<5xi64>
    stride.yield %v, %i : !stride.tensor<5xf32>, !stride.tensor<5xi64>
  }
  // Signed zeros only.
  %zero = stride.full 0.0 : !stride.tensor<f32>
  %zero2 = stride.expand %zero : !stride.tensor<f32>
      -> !stride.tensor<5x1000xf32, strides = [0, 0], offset = 0>
  %z = stride.mul %d, %zero2 : !small,
      !stride.tensor<5x1000xf32, strides = [0, 0], offset = 0> -> !small
  %11 = stride.argmax %z dim 1 : !small -> !stride.tensor<5xi64>
  %12 = stride.argmin %z dim 1 : !small -> !stride.tensor<5xi64>
  // An outer dim, and integers with ties.
  %13 = stride.argmin %e dim 1 : !stride.tensor<3x7x33xf32> -> !stride.tensor<3x33xi64>
  %14 = stride.argmax %f dim 1 : !stride.tensor<6x300xi32> -> !stride.tensor<6xi64>
  %15 = stride.argmin %f dim 1 : !stride.tensor<6x300xi32> -> !stride.tensor<6xi64>
  // The one-hot of each row's argmax.
  %am = stride.argmax %d dim 1 keepdim : !small -> !stride.tensor<5x1xi64>
  %amb = stride.expand %am : !stride.tensor<5x1xi64>
      -> !stride.tensor<5x1000xi64, strides = [1, 0], offset = 0>
  %io = stride.iota dim 1 : !stride.tensor<5x1000xi64>
  %16 = stride.cmp eq, %io, %amb : !stride.tensor<5x1000xi64>,
      !stride.tensor<5x1000xi64, strides = [1, 0], offset = 0> -> !stride.tensor<5x1000xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16
      : !stride.tensor<32x1xi64>, !stride.tensor<32xi64>, !stride.tensor<32xi64>,
        !stride.tensor<4x1xi64>, !stride.tensor<1xi64>, !stride.tensor<32xi64>,
        !stride.tensor<32xi64>, !stride.tensor<5xi64>, !stride.tensor<5xi64>,
        !stride.tensor<5xf32>, !stride.tensor<5xi64>, !stride.tensor<5xi64>,
        !stride.tensor<5xi64>, !stride.tensor<3x33xi64>, !stride.tensor<6xi64>,
        !stride.tensor<6xi64>, !stride.tensor<5x1000xi1>
}
