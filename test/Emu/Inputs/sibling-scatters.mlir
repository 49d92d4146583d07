// Sibling index scatters (python-free-docs/fusion.md, rule 7), one kernel
// per group: a decoder's key and value cache writes at one position (the
// key scaled in the kernel, the value read as it is), and a scatter beside
// a scatter_add into a column-major result, with one constant index (no
// duplicate row within a column, so the scatter's writes do not race).
func.func @siblings(%kc: !stride.tensor<1x2x8x4xf32>, %vc: !stride.tensor<1x2x8x4xf32>,
                    %k: !stride.tensor<1x2x1x4xf32>, %v: !stride.tensor<1x2x1x4xf32>,
                    %pos: !stride.tensor<1xi64>, %x: !stride.tensor<4x5xf32>,
                    %y: !stride.tensor<4x5xf32>, %s: !stride.tensor<3x5xf32>)
    -> (!stride.tensor<1x2x8x4xf32>, !stride.tensor<1x2x8x4xf32>,
        !stride.tensor<4x5xf32>, !stride.tensor<4x5xf32, strides = [1, 4], offset = 0>) {
  %p = stride.view %pos : !stride.tensor<1xi64> -> !stride.tensor<1x1x1x1xi64>
  %i = stride.expand %p : !stride.tensor<1x1x1x1xi64>
      -> !stride.tensor<1x2x1x4xi64, strides = [1, 0, 1, 0], offset = 0>
  %two = stride.full 2.0 : !stride.tensor<1x2x1x4xf32>
  %ks = stride.mul %k, %two : !stride.tensor<1x2x1x4xf32>, !stride.tensor<1x2x1x4xf32>
      -> !stride.tensor<1x2x1x4xf32>
  %kw = stride.scatter %kc, %i, %ks dim 2 : !stride.tensor<1x2x8x4xf32>,
      !stride.tensor<1x2x1x4xi64, strides = [1, 0, 1, 0], offset = 0>,
      !stride.tensor<1x2x1x4xf32> -> !stride.tensor<1x2x8x4xf32>
  %vw = stride.scatter %vc, %i, %v dim 2 : !stride.tensor<1x2x8x4xf32>,
      !stride.tensor<1x2x1x4xi64, strides = [1, 0, 1, 0], offset = 0>,
      !stride.tensor<1x2x1x4xf32> -> !stride.tensor<1x2x8x4xf32>
  %idx = stride.constant dense<[[0, 1, 2, 3, 0], [1, 2, 3, 0, 1], [3, 0, 1, 2, 2]]>
      : tensor<3x5xi64> : !stride.tensor<3x5xi64>
  %a = stride.scatter %x, %idx, %s dim 0 : !stride.tensor<4x5xf32>,
      !stride.tensor<3x5xi64>, !stride.tensor<3x5xf32> -> !stride.tensor<4x5xf32>
  %n = stride.neg %s : !stride.tensor<3x5xf32> -> !stride.tensor<3x5xf32>
  %b = stride.scatter_add %y, %idx, %n dim 0 : !stride.tensor<4x5xf32>,
      !stride.tensor<3x5xi64>, !stride.tensor<3x5xf32>
      -> !stride.tensor<4x5xf32, strides = [1, 4], offset = 0>
  return %kw, %vw, %a, %b : !stride.tensor<1x2x8x4xf32>, !stride.tensor<1x2x8x4xf32>,
      !stride.tensor<4x5xf32>, !stride.tensor<4x5xf32, strides = [1, 4], offset = 0>
}
