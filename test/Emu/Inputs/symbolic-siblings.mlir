// Sibling products over symbolic rows (test/Emu/symbolic-siblings.test): a
// SwiGLU MLP over x [rows, 8], rows in [1, 300], its gate and up
// projections two products of x against constant weights (nn.Linear's
// [N, K] read through a permute), merged into one product over the
// weights concatenated along N, each former product a slice of its
// columns. The attributes line is the only line that names the symbols'
// ranges (the test instantiates the function by replacing `[rows, N], f32`
// and dropping it).
func.func @swiglu(%x: !stride.tensor<[rows, 8], f32> {stride.name = "x"})
    -> (!stride.tensor<[rows, 4], f32>)
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 300]>]}
{
  %wg = stride.constant dense<[[0.5, -1.0, 0.25, 2.0, -0.5, 1.0, 0.75, -0.25],
      [1.0, 0.5, -0.75, 0.25, 0.5, -1.0, 0.25, 0.5],
      [-0.25, 0.75, 0.5, -0.5, 1.0, 0.25, -1.0, 0.75],
      [0.25, 0.25, 1.0, 0.5, -0.25, 0.5, 0.5, -1.0]]> : tensor<4x8xf32> : !stride.tensor<4x8xf32>
  %wu = stride.constant dense<[[1.0, 0.25, -0.5, 0.5, 0.75, -0.25, 1.0, 0.5],
      [-0.5, 1.0, 0.25, -1.0, 0.5, 0.75, -0.25, 0.25],
      [0.75, -0.25, 1.0, 0.25, -0.5, 0.5, 0.25, -0.75],
      [0.5, 0.5, -0.25, 0.75, 1.0, -1.0, 0.5, 0.25]]> : tensor<4x8xf32> : !stride.tensor<4x8xf32>
  %tg = stride.permute %wg dims [1, 0] : !stride.tensor<4x8xf32> -> !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>
  %tu = stride.permute %wu dims [1, 0] : !stride.tensor<4x8xf32> -> !stride.tensor<8x4xf32, strides = [1, 8], offset = 0>
  %g = stride.matmul %x, %tg : !stride.tensor<[rows, 8], f32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<[rows, 4], f32>
  %u = stride.matmul %x, %tu : !stride.tensor<[rows, 8], f32>, !stride.tensor<8x4xf32, strides = [1, 8], offset = 0> -> !stride.tensor<[rows, 4], f32>
  %s = stride.sigmoid %g : !stride.tensor<[rows, 4], f32> -> !stride.tensor<[rows, 4], f32>
  %a = stride.mul %g, %s : !stride.tensor<[rows, 4], f32>, !stride.tensor<[rows, 4], f32> -> !stride.tensor<[rows, 4], f32>
  %y = stride.mul %a, %u : !stride.tensor<[rows, 4], f32>, !stride.tensor<[rows, 4], f32> -> !stride.tensor<[rows, 4], f32>
  return %y : !stride.tensor<[rows, 4], f32>
}
