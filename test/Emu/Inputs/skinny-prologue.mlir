// Skinny products with a pointwise prologue (python-free-docs/matmul.md,
// "Skinny products"), f32: a SwiGLU over the two halves of a merged
// gate/up product's rows (K = 133: the up half starts at element 133, so
// the prologue's inputs are read one element at a time), at 1 row and 3;
// and 3 rows scaled by a weight broadcast over them (an RMSNorm's weight,
// read through expand: 4-element groups), a value per row broadcast along
// K (read one element a group) and a scalar, over K = 64.
func.func @f32(%gu1: !stride.tensor<1x266xf32> {stride.name = "gu1"},
               %gu3: !stride.tensor<3x266xf32> {stride.name = "gu3"},
               %wd: !stride.tensor<40x133xf32> {stride.name = "wd"},
               %x: !stride.tensor<3x64xf32> {stride.name = "x"},
               %g: !stride.tensor<64xf32> {stride.name = "g"},
               %rs: !stride.tensor<3x1xf32> {stride.name = "rs"},
               %wo: !stride.tensor<24x64xf32> {stride.name = "wo"})
    -> (!stride.tensor<1x40xf32> {stride.name = "swiglu1"},
        !stride.tensor<3x40xf32> {stride.name = "swiglu3"},
        !stride.tensor<3x24xf32> {stride.name = "scaled"}) {
  %wdt = stride.permute %wd dims [1, 0] : !stride.tensor<40x133xf32>
      -> !stride.tensor<133x40xf32, strides = [1, 133], offset = 0>
  %g1 = stride.slice %gu1 dim 1 start 0 end 133 step 1 : !stride.tensor<1x266xf32>
      -> !stride.tensor<1x133xf32, strides = [266, 1], offset = 0>
  %u1 = stride.slice %gu1 dim 1 start 133 end 266 step 1 : !stride.tensor<1x266xf32>
      -> !stride.tensor<1x133xf32, strides = [266, 1], offset = 133>
  %s1 = stride.sigmoid %g1 : !stride.tensor<1x133xf32, strides = [266, 1], offset = 0> -> !stride.tensor<1x133xf32>
  %si1 = stride.mul %g1, %s1 : !stride.tensor<1x133xf32, strides = [266, 1], offset = 0>, !stride.tensor<1x133xf32> -> !stride.tensor<1x133xf32>
  %a1 = stride.mul %si1, %u1 : !stride.tensor<1x133xf32>, !stride.tensor<1x133xf32, strides = [266, 1], offset = 133> -> !stride.tensor<1x133xf32>
  %d1 = stride.matmul %a1, %wdt : !stride.tensor<1x133xf32>,
      !stride.tensor<133x40xf32, strides = [1, 133], offset = 0> -> !stride.tensor<1x40xf32>
  %g3 = stride.slice %gu3 dim 1 start 0 end 133 step 1 : !stride.tensor<3x266xf32>
      -> !stride.tensor<3x133xf32, strides = [266, 1], offset = 0>
  %u3 = stride.slice %gu3 dim 1 start 133 end 266 step 1 : !stride.tensor<3x266xf32>
      -> !stride.tensor<3x133xf32, strides = [266, 1], offset = 133>
  %s3 = stride.sigmoid %g3 : !stride.tensor<3x133xf32, strides = [266, 1], offset = 0> -> !stride.tensor<3x133xf32>
  %si3 = stride.mul %g3, %s3 : !stride.tensor<3x133xf32, strides = [266, 1], offset = 0>, !stride.tensor<3x133xf32> -> !stride.tensor<3x133xf32>
  %a3 = stride.mul %si3, %u3 : !stride.tensor<3x133xf32>, !stride.tensor<3x133xf32, strides = [266, 1], offset = 133> -> !stride.tensor<3x133xf32>
  %d3 = stride.matmul %a3, %wdt : !stride.tensor<3x133xf32>,
      !stride.tensor<133x40xf32, strides = [1, 133], offset = 0> -> !stride.tensor<3x40xf32>
  %ge = stride.expand %g : !stride.tensor<64xf32> -> !stride.tensor<3x64xf32, strides = [0, 1], offset = 0>
  %xs = stride.mul %x, %ge : !stride.tensor<3x64xf32>, !stride.tensor<3x64xf32, strides = [0, 1], offset = 0> -> !stride.tensor<3x64xf32>
  %rse = stride.expand %rs : !stride.tensor<3x1xf32> -> !stride.tensor<3x64xf32, strides = [1, 0], offset = 0>
  %xr = stride.mul %xs, %rse : !stride.tensor<3x64xf32>, !stride.tensor<3x64xf32, strides = [1, 0], offset = 0> -> !stride.tensor<3x64xf32>
  %half = stride.full 5.000000e-01 : !stride.tensor<f32>
  %he = stride.expand %half : !stride.tensor<f32> -> !stride.tensor<3x64xf32, strides = [0, 0], offset = 0>
  %xh = stride.mul %xr, %he : !stride.tensor<3x64xf32>, !stride.tensor<3x64xf32, strides = [0, 0], offset = 0> -> !stride.tensor<3x64xf32>
  %wot = stride.permute %wo dims [1, 0] : !stride.tensor<24x64xf32>
      -> !stride.tensor<64x24xf32, strides = [1, 64], offset = 0>
  %o = stride.matmul %xh, %wot : !stride.tensor<3x64xf32>,
      !stride.tensor<64x24xf32, strides = [1, 64], offset = 0> -> !stride.tensor<3x24xf32>
  return %d1, %d3, %o : !stride.tensor<1x40xf32>, !stride.tensor<3x40xf32>, !stride.tensor<3x24xf32>
}
