// Skinny products (python-free-docs/matmul.md, "Skinny products"): a few
// rows of activations against nn.Linear weights [N, K] read through a
// permute, as a decode step's linear layers are. f32: 1 row against a
// weight of 300 columns over K = 133, the first 133 of rows of 136
// elements (4-element loads, K not a multiple of them: each slice's whole
// vectors, then its last elements one per lane) with a folded bias and
// ReLU; 3 rows sliced out of a wider activation (a row stride of 150, an
// offset of 155: loads of one element) with a bias; the 1-row product
// again with a bias, an addend (a residual, added to the f32 sum before
// the ReLU) and a ReLU written on the op.
func.func @f32(%xf: !stride.tensor<1x136xf32> {stride.name = "x"},
               %wf: !stride.tensor<300x136xf32> {stride.name = "w"},
               %b: !stride.tensor<300xf32> {stride.name = "b"},
               %y: !stride.tensor<4x150xf32> {stride.name = "y"},
               %v: !stride.tensor<37x140xf32> {stride.name = "v"},
               %c: !stride.tensor<37xf32> {stride.name = "c"},
               %z: !stride.tensor<1x300xf32> {stride.name = "z"})
    -> (!stride.tensor<1x300xf32> {stride.name = "relu"},
        !stride.tensor<3x37xf32> {stride.name = "rows3"},
        !stride.tensor<1x300xf32> {stride.name = "addend"}) {
  %x = stride.slice %xf dim 1 start 0 end 133 step 1 : !stride.tensor<1x136xf32>
      -> !stride.tensor<1x133xf32, strides = [136, 1], offset = 0>
  %w = stride.slice %wf dim 1 start 0 end 133 step 1 : !stride.tensor<300x136xf32>
      -> !stride.tensor<300x133xf32, strides = [136, 1], offset = 0>
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<300x133xf32, strides = [136, 1], offset = 0>
      -> !stride.tensor<133x300xf32, strides = [1, 136], offset = 0>
  %p = stride.matmul %x, %wt : !stride.tensor<1x133xf32, strides = [136, 1], offset = 0>,
      !stride.tensor<133x300xf32, strides = [1, 136], offset = 0> -> !stride.tensor<1x300xf32>
  %be = stride.expand %b : !stride.tensor<300xf32>
      -> !stride.tensor<1x300xf32, strides = [0, 1], offset = 0>
  %pb = stride.add %p, %be : !stride.tensor<1x300xf32>,
      !stride.tensor<1x300xf32, strides = [0, 1], offset = 0> -> !stride.tensor<1x300xf32>
  %r = stride.relu %pb : !stride.tensor<1x300xf32> -> !stride.tensor<1x300xf32>
  %ys = stride.slice %y dim 1 start 5 end 145 step 1 : !stride.tensor<4x150xf32>
      -> !stride.tensor<4x140xf32, strides = [150, 1], offset = 5>
  %y3 = stride.slice %ys dim 0 start 1 end 4 step 1 : !stride.tensor<4x140xf32, strides = [150, 1], offset = 5>
      -> !stride.tensor<3x140xf32, strides = [150, 1], offset = 155>
  %vt = stride.permute %v dims [1, 0] : !stride.tensor<37x140xf32>
      -> !stride.tensor<140x37xf32, strides = [1, 140], offset = 0>
  %q = stride.matmul %y3, %vt : !stride.tensor<3x140xf32, strides = [150, 1], offset = 155>,
      !stride.tensor<140x37xf32, strides = [1, 140], offset = 0> -> !stride.tensor<3x37xf32>
  %ce = stride.expand %c : !stride.tensor<37xf32>
      -> !stride.tensor<3x37xf32, strides = [0, 1], offset = 0>
  %qb = stride.add %q, %ce : !stride.tensor<3x37xf32>,
      !stride.tensor<3x37xf32, strides = [0, 1], offset = 0> -> !stride.tensor<3x37xf32>
  %a = stride.matmul %x, %wt bias %b addend %z epilogue relu
      : !stride.tensor<1x133xf32, strides = [136, 1], offset = 0>,
        !stride.tensor<133x300xf32, strides = [1, 136], offset = 0>, !stride.tensor<300xf32>
      -> !stride.tensor<1x300xf32>
  return %r, %qb, %a : !stride.tensor<1x300xf32>, !stride.tensor<3x37xf32>,
      !stride.tensor<1x300xf32>
}
