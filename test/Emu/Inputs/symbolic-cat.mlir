// Concatenations over symbolic sizes (python-free-docs/symbolic-sizes.md,
// rows in [1, 200]): along a static dim of symbolic tensors (x [rows, 4]
// and y [rows, 2] side by side), along the symbolic dim itself (x, then a
// static 3x4 block z: rows + 3 rows, the boundary at `rows`), and a static
// block first (z, then x: the boundary at 3, x's rows shifted by 3), each
// fused with an elementwise op; one kernel each, their boundaries the size
// parameter. symbolic-cat.test runs it at several row counts against the
// reference interpreter on the function instantiated at each.
func.func @cats(%x: !stride.tensor<[rows, 4], f32> {stride.name = "x"},
                %y: !stride.tensor<[rows, 2], f32> {stride.name = "y"},
                %z: !stride.tensor<3x4xf32> {stride.name = "z"})
    -> (!stride.tensor<[rows, 6], f32>, !stride.tensor<[rows + 3, 4], f32>,
        !stride.tensor<[rows + 3, 4], f32>)
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 200]>]}
{
  %side = stride.cat %x, %y dim 1 : !stride.tensor<[rows, 4], f32>, !stride.tensor<[rows, 2], f32> -> !stride.tensor<[rows, 6], f32>
  %a = stride.exp %side : !stride.tensor<[rows, 6], f32> -> !stride.tensor<[rows, 6], f32>
  %below = stride.cat %x, %z dim 0 : !stride.tensor<[rows, 4], f32>, !stride.tensor<3x4xf32> -> !stride.tensor<[rows + 3, 4], f32>
  %b = stride.neg %below : !stride.tensor<[rows + 3, 4], f32> -> !stride.tensor<[rows + 3, 4], f32>
  %above = stride.cat %z, %x dim 0 : !stride.tensor<3x4xf32>, !stride.tensor<[rows, 4], f32> -> !stride.tensor<[rows + 3, 4], f32>
  %c = stride.tanh %above : !stride.tensor<[rows + 3, 4], f32> -> !stride.tensor<[rows + 3, 4], f32>
  return %a, %b, %c : !stride.tensor<[rows, 6], f32>, !stride.tensor<[rows + 3, 4], f32>, !stride.tensor<[rows + 3, 4], f32>
}
