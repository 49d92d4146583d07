// index_add into rows of 32 or more elements: the segmented form (the
// inverse of the index, then each output element once). Duplicate indices
// and empty rows (more index elements than rows, and fewer), an index_add
// along an inner dim, fused input and source expressions, views with
// offsets, odd rows (element by element) and every element type it takes.
func.func @segmented(%x: !stride.tensor<20x36xf32>, %idx: !stride.tensor<50xi64>,
                     %src: !stride.tensor<50x36xf32>,
                     %idx7: !stride.tensor<7xi64>, %src3: !stride.tensor<3x7x40xf32>,
                     %big: !stride.tensor<11x48xf32>, %idx12: !stride.tensor<12xi64>,
                     %srcT: !stride.tensor<40x12xf32>,
                     %iw: !stride.tensor<6x33xi32>, %idx9: !stride.tensor<9xi64>,
                     %isrc: !stride.tensor<9x33xi32>,
                     %dw: !stride.tensor<6x64xf64>, %dsrc: !stride.tensor<9x64xf64>,
                     %lw: !stride.tensor<6x64xi64>, %lsrc: !stride.tensor<9x64xi64>)
    -> (!stride.tensor<20x36xf32>, !stride.tensor<3x10x40xf32>, !stride.tensor<9x40xf32>,
        !stride.tensor<6x33xi32>, !stride.tensor<6x64xf64>, !stride.tensor<6x64xi64>) {
  // Input + contributions; 50 index elements into 20 rows.
  %r0 = stride.index_add %x, %idx, %src dim 0 : !stride.tensor<20x36xf32>,
      !stride.tensor<50xi64>, !stride.tensor<50x36xf32> -> !stride.tensor<20x36xf32>
  // Along dim 1 of a 3-D result: 7 index elements into 10 rows (at least 3
  // empty), zeros as the input, a fused source expression.
  %z = stride.full 0.0 : !stride.tensor<3x10x40xf32>
  %three = stride.full 3.0 : !stride.tensor<3x7x40xf32>
  %s3 = stride.mul %src3, %three : !stride.tensor<3x7x40xf32>, !stride.tensor<3x7x40xf32>
      -> !stride.tensor<3x7x40xf32>
  %r1 = stride.index_add %z, %idx7, %s3 dim 1 : !stride.tensor<3x10x40xf32>,
      !stride.tensor<7xi64>, !stride.tensor<3x7x40xf32> -> !stride.tensor<3x10x40xf32>
  // Views with offsets: the input a slice of %big, the source transposed.
  %in = stride.slice %big dim 0 start 2 end 11 step 1 : !stride.tensor<11x48xf32>
      -> !stride.tensor<9x48xf32, strides = [48, 1], offset = 96>
  %in2 = stride.slice %in dim 1 start 5 end 45 step 1 : !stride.tensor<9x48xf32, strides = [48, 1], offset = 96>
      -> !stride.tensor<9x40xf32, strides = [48, 1], offset = 101>
  %st = stride.permute %srcT dims [1, 0] : !stride.tensor<40x12xf32>
      -> !stride.tensor<12x40xf32, strides = [1, 12]>
  %r2 = stride.index_add %in2, %idx12, %st dim 0 : !stride.tensor<9x40xf32, strides = [48, 1], offset = 101>,
      !stride.tensor<12xi64>, !stride.tensor<12x40xf32, strides = [1, 12]> -> !stride.tensor<9x40xf32>
  // Integers, rows of 33 (not a multiple of 4).
  %r3 = stride.index_add %iw, %idx9, %isrc dim 0 : !stride.tensor<6x33xi32>,
      !stride.tensor<9xi64>, !stride.tensor<9x33xi32> -> !stride.tensor<6x33xi32>
  // f64 and i64.
  %r4 = stride.index_add %dw, %idx9, %dsrc dim 0 : !stride.tensor<6x64xf64>,
      !stride.tensor<9xi64>, !stride.tensor<9x64xf64> -> !stride.tensor<6x64xf64>
  %r5 = stride.index_add %lw, %idx9, %lsrc dim 0 : !stride.tensor<6x64xi64>,
      !stride.tensor<9xi64>, !stride.tensor<9x64xi64> -> !stride.tensor<6x64xi64>
  return %r0, %r1, %r2, %r3, %r4, %r5 : !stride.tensor<20x36xf32>, !stride.tensor<3x10x40xf32>,
      !stride.tensor<9x40xf32>, !stride.tensor<6x33xi32>, !stride.tensor<6x64xf64>,
      !stride.tensor<6x64xi64>
}
