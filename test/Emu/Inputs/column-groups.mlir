// Outer reductions read 4 columns at a time (column groups: an outer
// reduction_split of vector width 4, a thread per 4 adjacent columns):
// rows of 8 (2 threads per row), 100 (25), 12 (3) and 260 (tiles of 128
// columns, the last one partial), f32 and bf16, row counts that are no
// multiple of the rows a block covers per step, a fused prologue (squares)
// and epilogues (sqrt, a bias), several reduced dims with keepdim, every
// reduction kind, integers, inputs sliced 1 or 2 elements in (element
// loads), and rows too few to split 16 loads per thread over 2 blocks
// (the column tiles of 32 outputs, a thread per column); phase 2 a thread
// per output (few slices) or a block per output (8321 rows of 128: 65).
func.func @column_groups(%a: !stride.tensor<5001x8xf32>, %b: !stride.tensor<9001x8xbf16>,
                         %c: !stride.tensor<3001x100xf32>, %bias: !stride.tensor<100xf32>,
                         %d: !stride.tensor<1999x100xbf16>, %e: !stride.tensor<601x260xf32>,
                         %f: !stride.tensor<11x300x12xf32>, %g: !stride.tensor<4097x8xi32>,
                         %h: !stride.tensor<4097x10xf32>, %k: !stride.tensor<3001x104xbf16>,
                         %n: !stride.tensor<1001x8xf32>, %p: !stride.tensor<8321x128xf32>)
    -> (!stride.tensor<8xf32>, !stride.tensor<8xbf16>, !stride.tensor<100xf32>,
        !stride.tensor<100xbf16>, !stride.tensor<260xf32>, !stride.tensor<260xf32>,
        !stride.tensor<1x1x12xf32>, !stride.tensor<8xi32>, !stride.tensor<8xf32>,
        !stride.tensor<100xbf16>, !stride.tensor<8xf32>, !stride.tensor<128xf32>) {
  %0 = stride.sum %a dims [0] : !stride.tensor<5001x8xf32> -> !stride.tensor<8xf32>
  %bb = stride.mul %b, %b : !stride.tensor<9001x8xbf16>, !stride.tensor<9001x8xbf16> -> !stride.tensor<9001x8xbf16>
  %bs = stride.sum %bb dims [0] : !stride.tensor<9001x8xbf16> -> !stride.tensor<8xbf16>
  %1 = stride.sqrt %bs : !stride.tensor<8xbf16> -> !stride.tensor<8xbf16>
  %cm = stride.mean %c dims [0] : !stride.tensor<3001x100xf32> -> !stride.tensor<100xf32>
  %2 = stride.add %cm, %bias : !stride.tensor<100xf32>, !stride.tensor<100xf32> -> !stride.tensor<100xf32>
  %dd = stride.mul %d, %d : !stride.tensor<1999x100xbf16>, !stride.tensor<1999x100xbf16> -> !stride.tensor<1999x100xbf16>
  %3 = stride.sum %dd dims [0] : !stride.tensor<1999x100xbf16> -> !stride.tensor<100xbf16>
  %4 = stride.max %e dims [0] : !stride.tensor<601x260xf32> -> !stride.tensor<260xf32>
  %5 = stride.min %e dims [0] : !stride.tensor<601x260xf32> -> !stride.tensor<260xf32>
  %6 = stride.sum %f dims [0, 1] keepdim : !stride.tensor<11x300x12xf32> -> !stride.tensor<1x1x12xf32>
  %7 = stride.sum %g dims [0] : !stride.tensor<4097x8xi32> -> !stride.tensor<8xi32>
  %hs = stride.slice %h dim 1 start 1 end 9 step 1 : !stride.tensor<4097x10xf32>
      -> !stride.tensor<4097x8xf32, strides = [10, 1], offset = 1>
  %8 = stride.sum %hs dims [0] : !stride.tensor<4097x8xf32, strides = [10, 1], offset = 1> -> !stride.tensor<8xf32>
  %ks = stride.slice %k dim 1 start 2 end 102 step 1 : !stride.tensor<3001x104xbf16>
      -> !stride.tensor<3001x100xbf16, strides = [104, 1], offset = 2>
  %9 = stride.sum %ks dims [0] : !stride.tensor<3001x100xbf16, strides = [104, 1], offset = 2> -> !stride.tensor<100xbf16>
  %10 = stride.sum %n dims [0] : !stride.tensor<1001x8xf32> -> !stride.tensor<8xf32>
  %11 = stride.sum %p dims [0] : !stride.tensor<8321x128xf32> -> !stride.tensor<128xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : !stride.tensor<8xf32>, !stride.tensor<8xbf16>, !stride.tensor<100xf32>,
        !stride.tensor<100xbf16>, !stride.tensor<260xf32>, !stride.tensor<260xf32>,
        !stride.tensor<1x1x12xf32>, !stride.tensor<8xi32>, !stride.tensor<8xf32>,
        !stride.tensor<100xbf16>, !stride.tensor<8xf32>, !stride.tensor<128xf32>
}
