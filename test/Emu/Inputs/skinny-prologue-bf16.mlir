// Skinny products with a pointwise prologue (python-free-docs/matmul.md,
// "Skinny products"), bf16: a SwiGLU of separate gate and up rows at 1 row
// over K = 4100, against the first 4100 columns of a weight's rows of 4104
// (8-element groups of both and of the weight, then the last 4 elements
// one per lane; K split into slices), and of the halves of a merged
// gate/up product at 5 rows over K = 100 (the up half starts at element
// 100: 4-element groups).
func.func @bf16(%g1: !stride.tensor<1x4100xbf16> {stride.name = "g1"},
                %u1: !stride.tensor<1x4100xbf16> {stride.name = "u1"},
                %wd1f: !stride.tensor<20x4104xbf16> {stride.name = "wd1"},
                %gu5: !stride.tensor<5x200xbf16> {stride.name = "gu5"},
                %wd5: !stride.tensor<24x100xbf16> {stride.name = "wd5"})
    -> (!stride.tensor<1x20xbf16> {stride.name = "one"},
        !stride.tensor<5x24xbf16> {stride.name = "rows5"}) {
  %s1 = stride.sigmoid %g1 : !stride.tensor<1x4100xbf16> -> !stride.tensor<1x4100xbf16>
  %si1 = stride.mul %g1, %s1 : !stride.tensor<1x4100xbf16>, !stride.tensor<1x4100xbf16> -> !stride.tensor<1x4100xbf16>
  %a1 = stride.mul %si1, %u1 : !stride.tensor<1x4100xbf16>, !stride.tensor<1x4100xbf16> -> !stride.tensor<1x4100xbf16>
  %wd1 = stride.slice %wd1f dim 1 start 0 end 4100 step 1 : !stride.tensor<20x4104xbf16>
      -> !stride.tensor<20x4100xbf16, strides = [4104, 1], offset = 0>
  %wd1t = stride.permute %wd1 dims [1, 0] : !stride.tensor<20x4100xbf16, strides = [4104, 1], offset = 0>
      -> !stride.tensor<4100x20xbf16, strides = [1, 4104], offset = 0>
  %d1 = stride.matmul %a1, %wd1t : !stride.tensor<1x4100xbf16>,
      !stride.tensor<4100x20xbf16, strides = [1, 4104], offset = 0> -> !stride.tensor<1x20xbf16>
  %g5 = stride.slice %gu5 dim 1 start 0 end 100 step 1 : !stride.tensor<5x200xbf16>
      -> !stride.tensor<5x100xbf16, strides = [200, 1], offset = 0>
  %u5 = stride.slice %gu5 dim 1 start 100 end 200 step 1 : !stride.tensor<5x200xbf16>
      -> !stride.tensor<5x100xbf16, strides = [200, 1], offset = 100>
  %s5 = stride.sigmoid %g5 : !stride.tensor<5x100xbf16, strides = [200, 1], offset = 0> -> !stride.tensor<5x100xbf16>
  %si5 = stride.mul %g5, %s5 : !stride.tensor<5x100xbf16, strides = [200, 1], offset = 0>, !stride.tensor<5x100xbf16> -> !stride.tensor<5x100xbf16>
  %a5 = stride.mul %si5, %u5 : !stride.tensor<5x100xbf16>, !stride.tensor<5x100xbf16, strides = [200, 1], offset = 100> -> !stride.tensor<5x100xbf16>
  %wd5t = stride.permute %wd5 dims [1, 0] : !stride.tensor<24x100xbf16>
      -> !stride.tensor<100x24xbf16, strides = [1, 100], offset = 0>
  %d5 = stride.matmul %a5, %wd5t : !stride.tensor<5x100xbf16>,
      !stride.tensor<100x24xbf16, strides = [1, 100], offset = 0> -> !stride.tensor<5x24xbf16>
  return %d1, %d5 : !stride.tensor<1x20xbf16>, !stride.tensor<5x24xbf16>
}
