// cumsum (scheme row_scan) fused with a prologue: rows of odd lengths (a
// warp each, 8 rows to a block and a last block of 2; a block of 64),
// rows longer than a block (1024 threads, chunks with a carry: held in
// registers up to 8 chunks, a loop over them beyond), an outer
// dim (rows of stride 45), a transposed (non-contiguous) input, integers
// that wrap, a boolean mask counted in i64 (GPT-2's position ids), f64,
// and a rank-1 tensor.
func.func @scans(%x: !stride.tensor<37x45xf32>, %long: !stride.tensor<2x2500xf32>,
                 %m: !stride.tensor<3x77xi32>, %d: !stride.tensor<5x300xf64>,
                 %v: !stride.tensor<1031xf32>, %w: !stride.tensor<50x13xf32>,
                 %huge: !stride.tensor<9000xf32>)
    -> (!stride.tensor<37x45xf32>, !stride.tensor<37x45xf32>,
        !stride.tensor<45x37xf32>, !stride.tensor<2x2500xf32>,
        !stride.tensor<3x77xi32>, !stride.tensor<37x45xi64>,
        !stride.tensor<5x300xf64>, !stride.tensor<1031xf32>,
        !stride.tensor<50x13xf32>, !stride.tensor<9000xf32>) {
  // Along the rows, of exp(x) * 2: a block of 64 per row.
  %two = stride.full 2.0 : !stride.tensor<37x45xf32>
  %e = stride.exp %x : !stride.tensor<37x45xf32> -> !stride.tensor<37x45xf32>
  %p = stride.mul %e, %two : !stride.tensor<37x45xf32>, !stride.tensor<37x45xf32> -> !stride.tensor<37x45xf32>
  %rows = stride.cumsum %p dim 1 : !stride.tensor<37x45xf32> -> !stride.tensor<37x45xf32>
  // Along the columns: rows of 37 elements, 45 apart (a block of 64).
  %cols = stride.cumsum %x dim 0 : !stride.tensor<37x45xf32> -> !stride.tensor<37x45xf32>
  // Along dim 1 of the transpose (strides [1, 45]).
  %t = stride.permute %x dims [1, 0] : !stride.tensor<37x45xf32>
      -> !stride.tensor<45x37xf32, strides = [1, 45], offset = 0>
  %tc = stride.cumsum %t dim 1 : !stride.tensor<45x37xf32, strides = [1, 45], offset = 0>
      -> !stride.tensor<45x37xf32>
  // Rows of 2500: a block of 1024 threads, 3 chunks held in registers.
  %lc = stride.cumsum %long dim 1 : !stride.tensor<2x2500xf32> -> !stride.tensor<2x2500xf32>
  // i32 sums that wrap: 0 or 1 times 10^9 (a block of 128).
  %big = stride.full 1000000000.0 : !stride.tensor<3x77xi32>
  %mb = stride.mul %m, %big : !stride.tensor<3x77xi32>, !stride.tensor<3x77xi32> -> !stride.tensor<3x77xi32>
  %mc = stride.cumsum %mb dim 1 : !stride.tensor<3x77xi32> -> !stride.tensor<3x77xi32>
  // A mask counted in i64: cumsum(x > 0) as PyTorch gives it.
  %zero = stride.full 0.0 : !stride.tensor<37x45xf32>
  %pos = stride.cmp gt, %x, %zero : !stride.tensor<37x45xf32>, !stride.tensor<37x45xf32> -> !stride.tensor<37x45xi1>
  %pi = stride.cast %pos : !stride.tensor<37x45xi1> -> !stride.tensor<37x45xi64>
  %count = stride.cumsum %pi dim 1 : !stride.tensor<37x45xi64> -> !stride.tensor<37x45xi64>
  // f64 rows of 300 (a block of 512).
  %dc = stride.cumsum %d dim 1 : !stride.tensor<5x300xf64> -> !stride.tensor<5x300xf64>
  // One row of 1031: a block of 1024, 2 chunks, the second of 7 elements.
  %vc = stride.cumsum %v dim 0 : !stride.tensor<1031xf32> -> !stride.tensor<1031xf32>
  // Rows of 13 of -w: a warp each, 8 to a block of 256, 7 blocks.
  %nw = stride.neg %w : !stride.tensor<50x13xf32> -> !stride.tensor<50x13xf32>
  %wc = stride.cumsum %nw dim 1 : !stride.tensor<50x13xf32> -> !stride.tensor<50x13xf32>
  // One row of 9000: 9 chunks, more than are held: a loop over them.
  %hc = stride.cumsum %huge dim 0 : !stride.tensor<9000xf32> -> !stride.tensor<9000xf32>
  return %rows, %cols, %tc, %lc, %mc, %count, %dc, %vc, %wc, %hc
      : !stride.tensor<37x45xf32>, !stride.tensor<37x45xf32>,
        !stride.tensor<45x37xf32>, !stride.tensor<2x2500xf32>,
        !stride.tensor<3x77xi32>, !stride.tensor<37x45xi64>,
        !stride.tensor<5x300xf64>, !stride.tensor<1031xf32>,
        !stride.tensor<50x13xf32>, !stride.tensor<9000xf32>
}
