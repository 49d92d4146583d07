// Each collective on the ranks' own inputs (stride-run --simulate-ranks).
func.func @collectives(%x: !stride.tensor<2x3xf32> {stride.name = "x"},
                       %i: !stride.tensor<4xi32> {stride.name = "i"})
    -> (!stride.tensor<2x3xf32> {stride.name = "sum"},
        !stride.tensor<2x3xf32> {stride.name = "avg"},
        !stride.tensor<2x3xf32> {stride.name = "max"},
        !stride.tensor<4xi32> {stride.name = "imin"},
        !stride.tensor<4x3xf32> {stride.name = "gather0"},
        !stride.tensor<2x6xf32> {stride.name = "gather1"},
        !stride.tensor<1x3xf32> {stride.name = "scatter"}) {
  %sum = stride.all_reduce %x sum world_size 2 : !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  %avg = stride.all_reduce %x avg world_size 2 : !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  %max = stride.all_reduce %x max world_size 2 : !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>
  %imin = stride.all_reduce %i min world_size 2 : !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %g0 = stride.all_gather %x dim 0 world_size 2 : !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
  %g1 = stride.all_gather %x dim 1 world_size 2 : !stride.tensor<2x3xf32> -> !stride.tensor<2x6xf32>
  %s = stride.reduce_scatter %x sum dim 0 world_size 2 : !stride.tensor<2x3xf32> -> !stride.tensor<1x3xf32>
  return %sum, %avg, %max, %imin, %g0, %g1, %s : !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>, !stride.tensor<4xi32>, !stride.tensor<4x3xf32>, !stride.tensor<2x6xf32>, !stride.tensor<1x3xf32>
}
