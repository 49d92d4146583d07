// Collectives that the plan runs as NCCL calls, with no kernel around them
// (the fake CUDA driver's kernels compute nothing; its "device memory" is
// host memory, which the fake NCCL reads and writes): collectives.test.
func.func @collectives(%x: !stride.tensor<2x3xf32> {stride.name = "x"},
                       %i: !stride.tensor<4xi32> {stride.name = "i"})
    -> (!stride.tensor<2x3xf32> {stride.name = "sum"},
        !stride.tensor<2x3xf32> {stride.name = "avg"},
        !stride.tensor<2x3xf32> {stride.name = "max"},
        !stride.tensor<4xi32> {stride.name = "isum"},
        !stride.tensor<4x3xf32> {stride.name = "gather"},
        !stride.tensor<1x3xf32> {stride.name = "scatter"}) {
  %sum = stride.all_reduce %x sum world_size 2 : !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  %avg = stride.all_reduce %x avg world_size 2 : !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  %max = stride.all_reduce %x max world_size 2 : !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  %isum = stride.all_reduce %i sum world_size 2 : !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %g = stride.all_gather %x dim 0 world_size 2 : !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
  %s = stride.reduce_scatter %x sum dim 0 world_size 2 : !stride.tensor<2x3xf32> -> !stride.tensor<1x3xf32>
  return %sum, %avg, %max, %isum, %g, %s : !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>, !stride.tensor<4xi32>, !stride.tensor<4x3xf32>, !stride.tensor<1x3xf32>
}
