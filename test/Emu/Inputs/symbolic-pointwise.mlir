// One module for every row count: x [rows, 64] scaled and shifted by
// weights broadcast over the rows, then tanh; and relu(x).
// symbolic-sizes.test runs the reference interpreter on it instantiated at
// a static row count (stride-run --instantiate-symbols).
func.func @scale_shift(%x: !stride.tensor<[rows, 64], f32> {stride.name = "x"},
                       %w: !stride.tensor<1x64xf32> {stride.name = "w"},
                       %b: !stride.tensor<1x64xf32> {stride.name = "b"})
    -> (!stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32>)
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 1024]>]}
{
  %we = stride.expand %w : !stride.tensor<1x64xf32> -> !stride.tensor<[rows, 64], f32, strides = [0, 1]>
  %be = stride.expand %b : !stride.tensor<1x64xf32> -> !stride.tensor<[rows, 64], f32, strides = [0, 1]>
  %m = stride.mul %x, %we : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32, strides = [0, 1]> -> !stride.tensor<[rows, 64], f32>
  %a = stride.add %m, %be : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32, strides = [0, 1]> -> !stride.tensor<[rows, 64], f32>
  %t = stride.tanh %a : !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 64], f32>
  %r = stride.relu %x : !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 64], f32>
  return %t, %r : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32>
}
