// Batch norm's training backward after a ReLU, as the importer writes
// ResNet-50's bf16 one (resnet.py:147-155): the saved bf16 activation,
// mean and rstd widened to f32 for the sums and the input's gradient.
// Rows of 2 x 96 x 96 = 18,432 elements: a cluster's on sm_90 (RowSplit.h).
func.func @bn_backward_long(%g: !stride.tensor<2x4x96x96xbf16>, %relu: !stride.tensor<2x4x96x96xbf16>, %x: !stride.tensor<2x4x96x96xbf16>,
    %w: !stride.tensor<4xbf16>, %mean: !stride.tensor<4xbf16>, %rstd: !stride.tensor<4xbf16>)
    -> (!stride.tensor<2x4x96x96xbf16>, !stride.tensor<4xbf16>, !stride.tensor<4xbf16>) {
  %zero = stride.full 0.0 : !stride.tensor<bf16>
  %zeros = stride.expand %zero : !stride.tensor<bf16> -> !stride.tensor<2x4x96x96xbf16, strides = [0, 0, 0, 0]>
  %mask = stride.cmp le, %relu, %zeros : !stride.tensor<2x4x96x96xbf16>, !stride.tensor<2x4x96x96xbf16, strides = [0, 0, 0, 0]> -> !stride.tensor<2x4x96x96xi1>
  %gz = stride.where %mask, %zeros, %g : !stride.tensor<2x4x96x96xi1>, !stride.tensor<2x4x96x96xbf16, strides = [0, 0, 0, 0]>, !stride.tensor<2x4x96x96xbf16> -> !stride.tensor<2x4x96x96xbf16>
  %gf = stride.cast %gz : !stride.tensor<2x4x96x96xbf16> -> !stride.tensor<2x4x96x96xf32>
  %xf = stride.cast %x : !stride.tensor<2x4x96x96xbf16> -> !stride.tensor<2x4x96x96xf32>
  %wf = stride.cast %w : !stride.tensor<4xbf16> -> !stride.tensor<4xf32>
  %meanf = stride.cast %mean : !stride.tensor<4xbf16> -> !stride.tensor<4xf32>
  %rstdf = stride.cast %rstd : !stride.tensor<4xbf16> -> !stride.tensor<4xf32>
  %sg = stride.sum %gf dims [0, 2, 3] : !stride.tensor<2x4x96x96xf32> -> !stride.tensor<4xf32>
  %v1 = stride.view %meanf : !stride.tensor<4xf32> -> !stride.tensor<1x4x1x1xf32>
  %b1 = stride.expand %v1 : !stride.tensor<1x4x1x1xf32> -> !stride.tensor<2x4x96x96xf32, strides = [0, 1, 0, 0]>
  %xm = stride.sub %xf, %b1 : !stride.tensor<2x4x96x96xf32>, !stride.tensor<2x4x96x96xf32, strides = [0, 1, 0, 0]> -> !stride.tensor<2x4x96x96xf32>
  %gxm = stride.mul %gf, %xm : !stride.tensor<2x4x96x96xf32>, !stride.tensor<2x4x96x96xf32> -> !stride.tensor<2x4x96x96xf32>
  %sgx = stride.sum %gxm dims [0, 2, 3] : !stride.tensor<2x4x96x96xf32> -> !stride.tensor<4xf32>
  %inv = stride.full 5.42534722222222192e-05 : !stride.tensor<f32>
  %invc = stride.expand %inv : !stride.tensor<f32> -> !stride.tensor<4xf32, strides = [0]>
  %gmean = stride.mul %sg, %invc : !stride.tensor<4xf32>, !stride.tensor<4xf32, strides = [0]> -> !stride.tensor<4xf32>
  %gxmean = stride.mul %sgx, %invc : !stride.tensor<4xf32>, !stride.tensor<4xf32, strides = [0]> -> !stride.tensor<4xf32>
  %r2 = stride.mul %rstdf, %rstdf : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %proj = stride.mul %gxmean, %r2 : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %scale = stride.mul %rstdf, %wf : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %v2 = stride.view %meanf : !stride.tensor<4xf32> -> !stride.tensor<1x4x1x1xf32>
  %b2 = stride.expand %v2 : !stride.tensor<1x4x1x1xf32> -> !stride.tensor<2x4x96x96xf32, strides = [0, 1, 0, 0]>
  %xm2 = stride.sub %xf, %b2 : !stride.tensor<2x4x96x96xf32>, !stride.tensor<2x4x96x96xf32, strides = [0, 1, 0, 0]> -> !stride.tensor<2x4x96x96xf32>
  %v3 = stride.view %proj : !stride.tensor<4xf32> -> !stride.tensor<1x4x1x1xf32>
  %b3 = stride.expand %v3 : !stride.tensor<1x4x1x1xf32> -> !stride.tensor<2x4x96x96xf32, strides = [0, 1, 0, 0]>
  %t1 = stride.mul %xm2, %b3 : !stride.tensor<2x4x96x96xf32>, !stride.tensor<2x4x96x96xf32, strides = [0, 1, 0, 0]> -> !stride.tensor<2x4x96x96xf32>
  %t2 = stride.sub %gf, %t1 : !stride.tensor<2x4x96x96xf32>, !stride.tensor<2x4x96x96xf32> -> !stride.tensor<2x4x96x96xf32>
  %v4 = stride.view %gmean : !stride.tensor<4xf32> -> !stride.tensor<1x4x1x1xf32>
  %b4 = stride.expand %v4 : !stride.tensor<1x4x1x1xf32> -> !stride.tensor<2x4x96x96xf32, strides = [0, 1, 0, 0]>
  %t3 = stride.sub %t2, %b4 : !stride.tensor<2x4x96x96xf32>, !stride.tensor<2x4x96x96xf32, strides = [0, 1, 0, 0]> -> !stride.tensor<2x4x96x96xf32>
  %v5 = stride.view %scale : !stride.tensor<4xf32> -> !stride.tensor<1x4x1x1xf32>
  %b5 = stride.expand %v5 : !stride.tensor<1x4x1x1xf32> -> !stride.tensor<2x4x96x96xf32, strides = [0, 1, 0, 0]>
  %t4 = stride.mul %t3, %b5 : !stride.tensor<2x4x96x96xf32>, !stride.tensor<2x4x96x96xf32, strides = [0, 1, 0, 0]> -> !stride.tensor<2x4x96x96xf32>
  %gi = stride.cast %t4 : !stride.tensor<2x4x96x96xf32> -> !stride.tensor<2x4x96x96xbf16>
  %gw32 = stride.mul %sgx, %rstdf : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %gw = stride.cast %gw32 : !stride.tensor<4xf32> -> !stride.tensor<4xbf16>
  %gb = stride.cast %sg : !stride.tensor<4xf32> -> !stride.tensor<4xbf16>
  return %gi, %gw, %gb : !stride.tensor<2x4x96x96xbf16>, !stride.tensor<4xbf16>, !stride.tensor<4xbf16>
}
