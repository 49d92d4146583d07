// The reductions of schemes-inner.mlir over the outer dim of transposed
// copies: column tiles with the reduced range split over 32 threads, or not
// split; the full reduction in two steps.
func.func @schemes(%x: !stride.tensor<8x100xf32>, %s: !stride.tensor<50x5xf32>,
                   %b: !stride.tensor<3x5000xf32>, %i: !stride.tensor<9x33xi32>)
    -> (!stride.tensor<8xf32>, !stride.tensor<50xf32>, !stride.tensor<3xf32>,
        !stride.tensor<f32>, !stride.tensor<9xi32>) {
  %xt = stride.permute %x dims [1, 0] : !stride.tensor<8x100xf32>
      -> !stride.tensor<100x8xf32, strides = [1, 100], offset = 0>
  %xc = stride.clone %xt : !stride.tensor<100x8xf32, strides = [1, 100], offset = 0>
      -> !stride.tensor<100x8xf32>
  %0 = stride.sum %xc dims [0] : !stride.tensor<100x8xf32> -> !stride.tensor<8xf32>
  %st = stride.permute %s dims [1, 0] : !stride.tensor<50x5xf32>
      -> !stride.tensor<5x50xf32, strides = [1, 5], offset = 0>
  %sc = stride.clone %st : !stride.tensor<5x50xf32, strides = [1, 5], offset = 0>
      -> !stride.tensor<5x50xf32>
  %1 = stride.max %sc dims [0] : !stride.tensor<5x50xf32> -> !stride.tensor<50xf32>
  %bt = stride.permute %b dims [1, 0] : !stride.tensor<3x5000xf32>
      -> !stride.tensor<5000x3xf32, strides = [1, 5000], offset = 0>
  %bc = stride.clone %bt : !stride.tensor<5000x3xf32, strides = [1, 5000], offset = 0>
      -> !stride.tensor<5000x3xf32>
  %2 = stride.mean %bc dims [0] : !stride.tensor<5000x3xf32> -> !stride.tensor<3xf32>
  %rows = stride.min %xc dims [1] : !stride.tensor<100x8xf32> -> !stride.tensor<100xf32>
  %3 = stride.min %rows dims [0] : !stride.tensor<100xf32> -> !stride.tensor<f32>
  %it = stride.permute %i dims [1, 0] : !stride.tensor<9x33xi32>
      -> !stride.tensor<33x9xi32, strides = [1, 33], offset = 0>
  %ic = stride.clone %it : !stride.tensor<33x9xi32, strides = [1, 33], offset = 0>
      -> !stride.tensor<33x9xi32>
  %4 = stride.sum %ic dims [0] : !stride.tensor<33x9xi32> -> !stride.tensor<9xi32>
  return %0, %1, %2, %3, %4 : !stride.tensor<8xf32>, !stride.tensor<50xf32>,
      !stride.tensor<3xf32>, !stride.tensor<f32>, !stride.tensor<9xi32>
}
