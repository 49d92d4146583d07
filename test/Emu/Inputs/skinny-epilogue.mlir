// A skinny product with a prologue and an epilogue in one kernel
// (python-free-docs/matmul.md, "Skinny products"), f32, 3 rows: the rows
// scaled by a weight broadcast over them (the prologue, with
// --skinny-prologue), a merged gate/up product over K = 64 (weight [40,
// 64]: gate columns 0-19, up columns 20-39), and after it the SwiGLU of
// its halves plus a residual read from a kernel input (the epilogue),
// yielded through a reshape to [3, 1, 20]: a warp sums gate column e and
// up column e + 20, and the lane of (row, e) evaluates the epilogue.
func.func @f32(%x: !stride.tensor<3x64xf32> {stride.name = "x"},
               %g: !stride.tensor<64xf32> {stride.name = "g"},
               %w: !stride.tensor<40x64xf32> {stride.name = "w"},
               %res: !stride.tensor<3x1x20xf32> {stride.name = "res"})
    -> (!stride.tensor<3x1x20xf32> {stride.name = "out"}) {
  %ge = stride.expand %g : !stride.tensor<64xf32> -> !stride.tensor<3x64xf32, strides = [0, 1], offset = 0>
  %xs = stride.mul %x, %ge : !stride.tensor<3x64xf32>, !stride.tensor<3x64xf32, strides = [0, 1], offset = 0> -> !stride.tensor<3x64xf32>
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<40x64xf32>
      -> !stride.tensor<64x40xf32, strides = [1, 64], offset = 0>
  %gu = stride.matmul %xs, %wt : !stride.tensor<3x64xf32>,
      !stride.tensor<64x40xf32, strides = [1, 64], offset = 0> -> !stride.tensor<3x40xf32>
  %ga = stride.slice %gu dim 1 start 0 end 20 step 1 : !stride.tensor<3x40xf32>
      -> !stride.tensor<3x20xf32, strides = [40, 1], offset = 0>
  %up = stride.slice %gu dim 1 start 20 end 40 step 1 : !stride.tensor<3x40xf32>
      -> !stride.tensor<3x20xf32, strides = [40, 1], offset = 20>
  %ga3 = stride.view %ga : !stride.tensor<3x20xf32, strides = [40, 1], offset = 0>
      -> !stride.tensor<3x1x20xf32, strides = [40, 40, 1], offset = 0>
  %up3 = stride.view %up : !stride.tensor<3x20xf32, strides = [40, 1], offset = 20>
      -> !stride.tensor<3x1x20xf32, strides = [40, 40, 1], offset = 20>
  %s = stride.sigmoid %ga3 : !stride.tensor<3x1x20xf32, strides = [40, 40, 1], offset = 0> -> !stride.tensor<3x1x20xf32>
  %si = stride.mul %ga3, %s : !stride.tensor<3x1x20xf32, strides = [40, 40, 1], offset = 0>, !stride.tensor<3x1x20xf32> -> !stride.tensor<3x1x20xf32>
  %a = stride.mul %si, %up3 : !stride.tensor<3x1x20xf32>, !stride.tensor<3x1x20xf32, strides = [40, 40, 1], offset = 20> -> !stride.tensor<3x1x20xf32>
  %o = stride.add %a, %res : !stride.tensor<3x1x20xf32>, !stride.tensor<3x1x20xf32> -> !stride.tensor<3x1x20xf32>
  return %o : !stride.tensor<3x1x20xf32>
}
