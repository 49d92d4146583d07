// Batch norm's training backward after a ReLU, as the importer writes
// ResNet-50's bf16 one (resnet.py:147-155): the saved bf16 activation,
// mean and rstd widened to f32 for the sums and the input's gradient.
// Rows of 2 x 4 x 4 = 32 elements: a warp's.
func.func @bn_backward(%g: !stride.tensor<2x8x4x4xbf16>, %relu: !stride.tensor<2x8x4x4xbf16>, %x: !stride.tensor<2x8x4x4xbf16>,
    %w: !stride.tensor<8xbf16>, %mean: !stride.tensor<8xbf16>, %rstd: !stride.tensor<8xbf16>)
    -> (!stride.tensor<2x8x4x4xbf16>, !stride.tensor<8xbf16>, !stride.tensor<8xbf16>) {
  %zero = stride.full 0.0 : !stride.tensor<bf16>
  %zeros = stride.expand %zero : !stride.tensor<bf16> -> !stride.tensor<2x8x4x4xbf16, strides = [0, 0, 0, 0]>
  %mask = stride.cmp le, %relu, %zeros : !stride.tensor<2x8x4x4xbf16>, !stride.tensor<2x8x4x4xbf16, strides = [0, 0, 0, 0]> -> !stride.tensor<2x8x4x4xi1>
  %gz = stride.where %mask, %zeros, %g : !stride.tensor<2x8x4x4xi1>, !stride.tensor<2x8x4x4xbf16, strides = [0, 0, 0, 0]>, !stride.tensor<2x8x4x4xbf16> -> !stride.tensor<2x8x4x4xbf16>
  %gf = stride.cast %gz : !stride.tensor<2x8x4x4xbf16> -> !stride.tensor<2x8x4x4xf32>
  %xf = stride.cast %x : !stride.tensor<2x8x4x4xbf16> -> !stride.tensor<2x8x4x4xf32>
  %wf = stride.cast %w : !stride.tensor<8xbf16> -> !stride.tensor<8xf32>
  %meanf = stride.cast %mean : !stride.tensor<8xbf16> -> !stride.tensor<8xf32>
  %rstdf = stride.cast %rstd : !stride.tensor<8xbf16> -> !stride.tensor<8xf32>
  %sg = stride.sum %gf dims [0, 2, 3] : !stride.tensor<2x8x4x4xf32> -> !stride.tensor<8xf32>
  %v1 = stride.view %meanf : !stride.tensor<8xf32> -> !stride.tensor<1x8x1x1xf32>
  %b1 = stride.expand %v1 : !stride.tensor<1x8x1x1xf32> -> !stride.tensor<2x8x4x4xf32, strides = [0, 1, 0, 0]>
  %xm = stride.sub %xf, %b1 : !stride.tensor<2x8x4x4xf32>, !stride.tensor<2x8x4x4xf32, strides = [0, 1, 0, 0]> -> !stride.tensor<2x8x4x4xf32>
  %gxm = stride.mul %gf, %xm : !stride.tensor<2x8x4x4xf32>, !stride.tensor<2x8x4x4xf32> -> !stride.tensor<2x8x4x4xf32>
  %sgx = stride.sum %gxm dims [0, 2, 3] : !stride.tensor<2x8x4x4xf32> -> !stride.tensor<8xf32>
  %inv = stride.full 3.12500000000000000e-02 : !stride.tensor<f32>
  %invc = stride.expand %inv : !stride.tensor<f32> -> !stride.tensor<8xf32, strides = [0]>
  %gmean = stride.mul %sg, %invc : !stride.tensor<8xf32>, !stride.tensor<8xf32, strides = [0]> -> !stride.tensor<8xf32>
  %gxmean = stride.mul %sgx, %invc : !stride.tensor<8xf32>, !stride.tensor<8xf32, strides = [0]> -> !stride.tensor<8xf32>
  %r2 = stride.mul %rstdf, %rstdf : !stride.tensor<8xf32>, !stride.tensor<8xf32> -> !stride.tensor<8xf32>
  %proj = stride.mul %gxmean, %r2 : !stride.tensor<8xf32>, !stride.tensor<8xf32> -> !stride.tensor<8xf32>
  %scale = stride.mul %rstdf, %wf : !stride.tensor<8xf32>, !stride.tensor<8xf32> -> !stride.tensor<8xf32>
  %v2 = stride.view %meanf : !stride.tensor<8xf32> -> !stride.tensor<1x8x1x1xf32>
  %b2 = stride.expand %v2 : !stride.tensor<1x8x1x1xf32> -> !stride.tensor<2x8x4x4xf32, strides = [0, 1, 0, 0]>
  %xm2 = stride.sub %xf, %b2 : !stride.tensor<2x8x4x4xf32>, !stride.tensor<2x8x4x4xf32, strides = [0, 1, 0, 0]> -> !stride.tensor<2x8x4x4xf32>
  %v3 = stride.view %proj : !stride.tensor<8xf32> -> !stride.tensor<1x8x1x1xf32>
  %b3 = stride.expand %v3 : !stride.tensor<1x8x1x1xf32> -> !stride.tensor<2x8x4x4xf32, strides = [0, 1, 0, 0]>
  %t1 = stride.mul %xm2, %b3 : !stride.tensor<2x8x4x4xf32>, !stride.tensor<2x8x4x4xf32, strides = [0, 1, 0, 0]> -> !stride.tensor<2x8x4x4xf32>
  %t2 = stride.sub %gf, %t1 : !stride.tensor<2x8x4x4xf32>, !stride.tensor<2x8x4x4xf32> -> !stride.tensor<2x8x4x4xf32>
  %v4 = stride.view %gmean : !stride.tensor<8xf32> -> !stride.tensor<1x8x1x1xf32>
  %b4 = stride.expand %v4 : !stride.tensor<1x8x1x1xf32> -> !stride.tensor<2x8x4x4xf32, strides = [0, 1, 0, 0]>
  %t3 = stride.sub %t2, %b4 : !stride.tensor<2x8x4x4xf32>, !stride.tensor<2x8x4x4xf32, strides = [0, 1, 0, 0]> -> !stride.tensor<2x8x4x4xf32>
  %v5 = stride.view %scale : !stride.tensor<8xf32> -> !stride.tensor<1x8x1x1xf32>
  %b5 = stride.expand %v5 : !stride.tensor<1x8x1x1xf32> -> !stride.tensor<2x8x4x4xf32, strides = [0, 1, 0, 0]>
  %t4 = stride.mul %t3, %b5 : !stride.tensor<2x8x4x4xf32>, !stride.tensor<2x8x4x4xf32, strides = [0, 1, 0, 0]> -> !stride.tensor<2x8x4x4xf32>
  %gi = stride.cast %t4 : !stride.tensor<2x8x4x4xf32> -> !stride.tensor<2x8x4x4xbf16>
  %gw32 = stride.mul %sgx, %rstdf : !stride.tensor<8xf32>, !stride.tensor<8xf32> -> !stride.tensor<8xf32>
  %gw = stride.cast %gw32 : !stride.tensor<8xf32> -> !stride.tensor<8xbf16>
  %gb = stride.cast %sg : !stride.tensor<8xf32> -> !stride.tensor<8xbf16>
  return %gi, %gw, %gb : !stride.tensor<2x8x4x4xbf16>, !stride.tensor<8xbf16>, !stride.tensor<8xbf16>
}
