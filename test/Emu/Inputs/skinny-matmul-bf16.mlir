// bf16 skinny products (python-free-docs/matmul.md, "Skinny products"):
// 8 rows (a batch-8 decode step) against an nn.Linear weight [45, 4100]
// read through a permute, the first 4100 of rows of 4104 elements: 8-element
// (16-byte) loads, K not a multiple of them, and K split into 2 slices
// whose partial sums a second launch adds; a residual add in a kernel
// after it. 3 rows against a dense weight [20, 36] (rows of 72 bytes:
// 4-element loads), with a bias and ReLU.
func.func @bf16(%xf: !stride.tensor<8x4104xbf16> {stride.name = "x"},
                %wf: !stride.tensor<45x4104xbf16> {stride.name = "w"},
                %h: !stride.tensor<8x45xbf16> {stride.name = "h"},
                %y: !stride.tensor<3x36xbf16> {stride.name = "y"},
                %v: !stride.tensor<20x36xbf16> {stride.name = "v"},
                %b: !stride.tensor<20xbf16> {stride.name = "b"})
    -> (!stride.tensor<8x45xbf16> {stride.name = "rows8"},
        !stride.tensor<3x20xbf16> {stride.name = "rows3"}) {
  %x = stride.slice %xf dim 1 start 0 end 4100 step 1 : !stride.tensor<8x4104xbf16>
      -> !stride.tensor<8x4100xbf16, strides = [4104, 1], offset = 0>
  %w = stride.slice %wf dim 1 start 0 end 4100 step 1 : !stride.tensor<45x4104xbf16>
      -> !stride.tensor<45x4100xbf16, strides = [4104, 1], offset = 0>
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<45x4100xbf16, strides = [4104, 1], offset = 0>
      -> !stride.tensor<4100x45xbf16, strides = [1, 4104], offset = 0>
  %p = stride.matmul %x, %wt : !stride.tensor<8x4100xbf16, strides = [4104, 1], offset = 0>,
      !stride.tensor<4100x45xbf16, strides = [1, 4104], offset = 0> -> !stride.tensor<8x45xbf16>
  %s = stride.add %p, %h : !stride.tensor<8x45xbf16>, !stride.tensor<8x45xbf16>
      -> !stride.tensor<8x45xbf16>
  %vt = stride.permute %v dims [1, 0] : !stride.tensor<20x36xbf16>
      -> !stride.tensor<36x20xbf16, strides = [1, 36], offset = 0>
  %q = stride.matmul %y, %vt : !stride.tensor<3x36xbf16>,
      !stride.tensor<36x20xbf16, strides = [1, 36], offset = 0> -> !stride.tensor<3x20xbf16>
  %be = stride.expand %b : !stride.tensor<20xbf16>
      -> !stride.tensor<3x20xbf16, strides = [0, 1], offset = 0>
  %qb = stride.add %q, %be : !stride.tensor<3x20xbf16>,
      !stride.tensor<3x20xbf16, strides = [0, 1], offset = 0> -> !stride.tensor<3x20xbf16>
  %r = stride.relu %qb : !stride.tensor<3x20xbf16> -> !stride.tensor<3x20xbf16>
  return %s, %r : !stride.tensor<8x45xbf16>, !stride.tensor<3x20xbf16>
}
