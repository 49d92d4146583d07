// A bf16 state with stored initial values (1 .. 8), for the package's
// reads and writes of bf16 states (python/tests/test_runtime.py).
func.func @step(%cache: !stride.tensor<2x4xbf16> {stride.name = "cache", stride.state = dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xbf16>},
                %pos: !stride.tensor<1xi64> {stride.name = "pos"},
                %new: !stride.tensor<2x1xbf16> {stride.name = "new"})
    -> (!stride.tensor<2x4xbf16> {stride.name = "updated", stride.writes = "cache"},
        !stride.tensor<2xbf16> {stride.name = "total"}) {
  %p = stride.view %pos : !stride.tensor<1xi64> -> !stride.tensor<1x1xi64>
  %i = stride.expand %p : !stride.tensor<1x1xi64> -> !stride.tensor<2x1xi64, strides = [0, 1], offset = 0>
  %u = stride.scatter %cache, %i, %new dim 1 : !stride.tensor<2x4xbf16>, !stride.tensor<2x1xi64, strides = [0, 1], offset = 0>, !stride.tensor<2x1xbf16> -> !stride.tensor<2x4xbf16>
  %t = stride.sum %u dims [1] : !stride.tensor<2x4xbf16> -> !stride.tensor<2xbf16>
  return %u, %t : !stride.tensor<2x4xbf16>, !stride.tensor<2xbf16>
}
