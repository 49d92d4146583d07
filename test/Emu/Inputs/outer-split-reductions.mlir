// Outer reductions whose column tiles alone cannot fill the GPU, each
// tile's rows split over several blocks (scheme reduction_outer_split),
// and rows of a few elements, a thread each reading 4 at a time: odd
// sizes, partial tiles, every reduction kind, an epilogue, several
// reduced dims, f32, f64 and integers.
func.func @outer_split(%a: !stride.tensor<5000x39xf32>, %b: !stride.tensor<3001x70xf64>,
                       %c: !stride.tensor<1x70xf64>, %d: !stride.tensor<30x40x33xf32>,
                       %e: !stride.tensor<1000x9xi32>, %f: !stride.tensor<1001x8xf32>,
                       %g: !stride.tensor<7x9x12xf32>, %h: !stride.tensor<333x4xf64>,
                       %i: !stride.tensor<100x16xi64>)
    -> (!stride.tensor<39xf32>, !stride.tensor<1x70xf64>, !stride.tensor<33xf32>,
        !stride.tensor<33xf32>, !stride.tensor<9xi32>, !stride.tensor<1001xf32>,
        !stride.tensor<7x9xf32>, !stride.tensor<333xf64>, !stride.tensor<100xi64>) {
  %0 = stride.kernel "cols_sum" ins(%a : !stride.tensor<5000x39xf32>) -> (!stride.tensor<39xf32>) {
  ^bb0(%x: !stride.tensor<5000x39xf32>):
    %r = stride.sum %x dims [0] : !stride.tensor<5000x39xf32> -> !stride.tensor<39xf32>
    stride.yield %r : !stride.tensor<39xf32>
  }
  %1 = stride.kernel "cols_mean_bias_f64" ins(%b, %c : !stride.tensor<3001x70xf64>, !stride.tensor<1x70xf64>)
      -> (!stride.tensor<1x70xf64>) {
  ^bb0(%x: !stride.tensor<3001x70xf64>, %y: !stride.tensor<1x70xf64>):
    %m = stride.mean %x dims [0] keepdim : !stride.tensor<3001x70xf64> -> !stride.tensor<1x70xf64>
    %s = stride.add %m, %y : !stride.tensor<1x70xf64>, !stride.tensor<1x70xf64> -> !stride.tensor<1x70xf64>
    stride.yield %s : !stride.tensor<1x70xf64>
  }
  %2:2 = stride.kernel "cols_max_min_two_dims" ins(%d : !stride.tensor<30x40x33xf32>)
      -> (!stride.tensor<33xf32>, !stride.tensor<33xf32>) {
  ^bb0(%x: !stride.tensor<30x40x33xf32>):
    %mx = stride.max %x dims [0, 1] : !stride.tensor<30x40x33xf32> -> !stride.tensor<33xf32>
    %mn = stride.min %x dims [0, 1] : !stride.tensor<30x40x33xf32> -> !stride.tensor<33xf32>
    stride.yield %mx, %mn : !stride.tensor<33xf32>, !stride.tensor<33xf32>
  }
  %3 = stride.kernel "cols_int_sum" ins(%e : !stride.tensor<1000x9xi32>) -> (!stride.tensor<9xi32>) {
  ^bb0(%x: !stride.tensor<1000x9xi32>):
    %r = stride.sum %x dims [0] : !stride.tensor<1000x9xi32> -> !stride.tensor<9xi32>
    stride.yield %r : !stride.tensor<9xi32>
  }
  %4 = stride.kernel "narrow_sum" ins(%f : !stride.tensor<1001x8xf32>) -> (!stride.tensor<1001xf32>) {
  ^bb0(%x: !stride.tensor<1001x8xf32>):
    %r = stride.sum %x dims [1] : !stride.tensor<1001x8xf32> -> !stride.tensor<1001xf32>
    stride.yield %r : !stride.tensor<1001xf32>
  }
  %5 = stride.kernel "narrow_max" ins(%g : !stride.tensor<7x9x12xf32>) -> (!stride.tensor<7x9xf32>) {
  ^bb0(%x: !stride.tensor<7x9x12xf32>):
    %r = stride.max %x dims [2] : !stride.tensor<7x9x12xf32> -> !stride.tensor<7x9xf32>
    stride.yield %r : !stride.tensor<7x9xf32>
  }
  %6 = stride.kernel "narrow_prod_f64" ins(%h : !stride.tensor<333x4xf64>) -> (!stride.tensor<333xf64>) {
  ^bb0(%x: !stride.tensor<333x4xf64>):
    %r = stride.prod %x dims [1] : !stride.tensor<333x4xf64> -> !stride.tensor<333xf64>
    stride.yield %r : !stride.tensor<333xf64>
  }
  %7 = stride.kernel "narrow_int_sum" ins(%i : !stride.tensor<100x16xi64>) -> (!stride.tensor<100xi64>) {
  ^bb0(%x: !stride.tensor<100x16xi64>):
    %r = stride.sum %x dims [1] : !stride.tensor<100x16xi64> -> !stride.tensor<100xi64>
    stride.yield %r : !stride.tensor<100xi64>
  }
  return %0, %1, %2#0, %2#1, %3, %4, %5, %6, %7
      : !stride.tensor<39xf32>, !stride.tensor<1x70xf64>, !stride.tensor<33xf32>,
        !stride.tensor<33xf32>, !stride.tensor<9xi32>, !stride.tensor<1001xf32>,
        !stride.tensor<7x9xf32>, !stride.tensor<333xf64>, !stride.tensor<100xi64>
}
