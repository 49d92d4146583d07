// Collectives that NCCL cannot run as they are: gathered and scattered
// along inner dims, and reduced from a transposed view
// (prepare-collectives.mlir).
func.func @inner(%x: !stride.tensor<2x3x4xf32> {stride.name = "x"})
    -> (!stride.tensor<2x6x4xf32> {stride.name = "gather1"},
        !stride.tensor<2x3x2xf32> {stride.name = "scatter2"},
        !stride.tensor<4x3xf32> {stride.name = "sumt"}) {
  %g = stride.all_gather %x dim 1 world_size 2 : !stride.tensor<2x3x4xf32> -> !stride.tensor<2x6x4xf32>
  %s = stride.reduce_scatter %x sum dim 2 world_size 2 : !stride.tensor<2x3x4xf32> -> !stride.tensor<2x3x2xf32>
  %v = stride.select %x dim 0 index 1 : !stride.tensor<2x3x4xf32> -> !stride.tensor<3x4xf32, strides = [4, 1], offset = 12>
  %t = stride.permute %v dims [1, 0] : !stride.tensor<3x4xf32, strides = [4, 1], offset = 12> -> !stride.tensor<4x3xf32, strides = [1, 4], offset = 12>
  %r = stride.all_reduce %t sum world_size 2 : !stride.tensor<4x3xf32, strides = [1, 4], offset = 12> -> !stride.tensor<4x3xf32>
  return %g, %s, %r : !stride.tensor<2x6x4xf32>, !stride.tensor<2x3x2xf32>, !stride.tensor<4x3xf32>
}
