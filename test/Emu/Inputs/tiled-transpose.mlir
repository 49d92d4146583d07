// Pointwise kernels that read an input transposed (non-unit stride along the
// innermost dim, unit stride along another): the tiled transpose scheme.
// Partial tiles, odd sizes (split staging and scalar stores), 3-D and 4-D,
// a view with an offset, and two staged inputs in one kernel.
func.func @tiles(%a: !stride.tensor<45x70xf32>, %z2: !stride.tensor<70x45xf32>,
                 %b: !stride.tensor<3x72x68xf32>, %z3: !stride.tensor<3x68x72xf32>,
                 %c: !stride.tensor<80x66xf32>, %z4: !stride.tensor<64x80xf32>,
                 %d: !stride.tensor<2x3x40x36xf32>, %bias: !stride.tensor<36xf32>,
                 %e: !stride.tensor<50x40xf32>, %f: !stride.tensor<50x40xf32>)
    -> (!stride.tensor<70x45xf32>, !stride.tensor<3x68x72xf32>, !stride.tensor<64x80xf32>,
        !stride.tensor<2x3x36x40xf32>, !stride.tensor<40x50xf32>) {
  // 2-D, odd sizes: neither dim a multiple of 4 or of the tile.
  %at = stride.permute %a dims [1, 0] : !stride.tensor<45x70xf32>
      -> !stride.tensor<70x45xf32, strides = [1, 70]>
  %r0 = stride.add %at, %z2 : !stride.tensor<70x45xf32, strides = [1, 70]>,
      !stride.tensor<70x45xf32> -> !stride.tensor<70x45xf32>
  // 3-D, 4-element accesses, partial tiles in both dims.
  %bt = stride.permute %b dims [0, 2, 1] : !stride.tensor<3x72x68xf32>
      -> !stride.tensor<3x68x72xf32, strides = [4896, 1, 68]>
  %two = stride.full 2.0 : !stride.tensor<3x68x72xf32>
  %bm = stride.mul %bt, %two : !stride.tensor<3x68x72xf32, strides = [4896, 1, 68]>,
      !stride.tensor<3x68x72xf32> -> !stride.tensor<3x68x72xf32>
  %r1 = stride.sub %bm, %z3 : !stride.tensor<3x68x72xf32>, !stride.tensor<3x68x72xf32>
      -> !stride.tensor<3x68x72xf32>
  // A view with an offset (not a multiple of 4: split staging).
  %cs = stride.slice %c dim 1 start 1 end 65 step 1 : !stride.tensor<80x66xf32>
      -> !stride.tensor<80x64xf32, strides = [66, 1], offset = 1>
  %ct = stride.permute %cs dims [1, 0] : !stride.tensor<80x64xf32, strides = [66, 1], offset = 1>
      -> !stride.tensor<64x80xf32, strides = [1, 66], offset = 1>
  %r2 = stride.mul %ct, %z4 : !stride.tensor<64x80xf32, strides = [1, 66], offset = 1>,
      !stride.tensor<64x80xf32> -> !stride.tensor<64x80xf32>
  // 4-D with two outer dims; a bias broadcast along the rows.
  %dt = stride.permute %d dims [0, 1, 3, 2] : !stride.tensor<2x3x40x36xf32>
      -> !stride.tensor<2x3x36x40xf32, strides = [4320, 1440, 1, 36]>
  %bu = stride.unsqueeze %bias dim 1 : !stride.tensor<36xf32> -> !stride.tensor<36x1xf32>
  %be = stride.expand %bu : !stride.tensor<36x1xf32>
      -> !stride.tensor<2x3x36x40xf32, strides = [0, 0, 1, 0]>
  %r3 = stride.add %dt, %be : !stride.tensor<2x3x36x40xf32, strides = [4320, 1440, 1, 36]>,
      !stride.tensor<2x3x36x40xf32, strides = [0, 0, 1, 0]> -> !stride.tensor<2x3x36x40xf32>
  // Two staged inputs.
  %et = stride.permute %e dims [1, 0] : !stride.tensor<50x40xf32>
      -> !stride.tensor<40x50xf32, strides = [1, 40]>
  %ft = stride.permute %f dims [1, 0] : !stride.tensor<50x40xf32>
      -> !stride.tensor<40x50xf32, strides = [1, 40]>
  %r4 = stride.maximum %et, %ft : !stride.tensor<40x50xf32, strides = [1, 40]>,
      !stride.tensor<40x50xf32, strides = [1, 40]> -> !stride.tensor<40x50xf32>
  return %r0, %r1, %r2, %r3, %r4 : !stride.tensor<70x45xf32>, !stride.tensor<3x68x72xf32>,
      !stride.tensor<64x80xf32>, !stride.tensor<2x3x36x40xf32>, !stride.tensor<40x50xf32>
}
