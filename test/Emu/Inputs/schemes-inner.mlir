// Reductions over the inner dim (a warp, 8 threads, a block per output, a
// full reduction); schemes-outer.mlir computes the same values over the
// outer dim of the transposed inputs, with the other kernel shapes.
func.func @schemes(%x: !stride.tensor<8x100xf32>, %s: !stride.tensor<50x5xf32>,
                   %b: !stride.tensor<3x5000xf32>, %i: !stride.tensor<9x33xi32>)
    -> (!stride.tensor<8xf32>, !stride.tensor<50xf32>, !stride.tensor<3xf32>,
        !stride.tensor<f32>, !stride.tensor<9xi32>) {
  %0 = stride.sum %x dims [1] : !stride.tensor<8x100xf32> -> !stride.tensor<8xf32>
  %1 = stride.max %s dims [1] : !stride.tensor<50x5xf32> -> !stride.tensor<50xf32>
  %2 = stride.mean %b dims [1] : !stride.tensor<3x5000xf32> -> !stride.tensor<3xf32>
  %3 = stride.min %x dims [0, 1] : !stride.tensor<8x100xf32> -> !stride.tensor<f32>
  %4 = stride.sum %i dims [1] : !stride.tensor<9x33xi32> -> !stride.tensor<9xi32>
  return %0, %1, %2, %3, %4 : !stride.tensor<8xf32>, !stride.tensor<50xf32>,
      !stride.tensor<3xf32>, !stride.tensor<f32>, !stride.tensor<9xi32>
}
