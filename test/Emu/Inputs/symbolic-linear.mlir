// One module for every token count: two nn.Linear layers over x
// [tokens, 64] (weights [N, K] read through a permute, K contiguous), the
// first with a bias and ReLU, the second over its result. At one token
// each product runs as the skinny product kernel, elsewhere as a cuBLASLt
// call (stride-product-variants; python-free-docs/symbolic-sizes.md,
// "Variants selected at run time"). The attributes line is the only line
// that names the symbols' ranges, so that symbolic-variants.test
// instantiates the function at a static token count for the reference
// interpreter by replacing `[tokens, N], f32` and dropping it.
func.func @linears(%x: !stride.tensor<[tokens, 64], f32> {stride.name = "x"},
                   %w1: !stride.tensor<96x64xf32> {stride.name = "w1"},
                   %b1: !stride.tensor<96xf32> {stride.name = "b1"},
                   %w2: !stride.tensor<40x96xf32> {stride.name = "w2"})
    -> !stride.tensor<[tokens, 40], f32>
    attributes {stride.symbols = [#stride.symbol<"tokens", range = [1, 256]>]}
{
  %w1t = stride.permute %w1 dims [1, 0] : !stride.tensor<96x64xf32> -> !stride.tensor<64x96xf32, strides = [1, 64], offset = 0>
  %h = stride.matmul %x, %w1t bias %b1 : !stride.tensor<[tokens, 64], f32>, !stride.tensor<64x96xf32, strides = [1, 64], offset = 0>, !stride.tensor<96xf32> -> !stride.tensor<[tokens, 96], f32>
  %r = stride.relu %h : !stride.tensor<[tokens, 96], f32> -> !stride.tensor<[tokens, 96], f32>
  %w2t = stride.permute %w2 dims [1, 0] : !stride.tensor<40x96xf32> -> !stride.tensor<96x40xf32, strides = [1, 96], offset = 0>
  %y = stride.matmul %r, %w2t : !stride.tensor<[tokens, 96], f32>, !stride.tensor<96x40xf32, strides = [1, 96], offset = 0> -> !stride.tensor<[tokens, 40], f32>
  return %y : !stride.tensor<[tokens, 40], f32>
}
