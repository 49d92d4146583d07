// One kernel per reduction shape: a warp per output (inner dim of 100), 8
// threads per output (inner dim of 5), a block per output (inner dim of
// 5000), column tiles with the reduced range split over 32 threads (outer
// dim of 512) and unsplit (outer dim of 6), a full reduction, several
// reductions of one prologue with an epilogue, two non-adjacent dims, and
// f64 / integer accumulators.
func.func @reductions(%x: !stride.tensor<8x100xf32>, %s: !stride.tensor<50x5xf32>,
                      %b: !stride.tensor<3x5000xf32>, %c: !stride.tensor<3x1xf32>,
                      %o: !stride.tensor<512x40xf32>, %p: !stride.tensor<10x6x7xf32>,
                      %t: !stride.tensor<6x5x7xf64>, %i: !stride.tensor<9x33xi32>,
                      %l: !stride.tensor<33x9xi64>)
    -> (!stride.tensor<8xf32>, !stride.tensor<50xf32>, !stride.tensor<3x1xf32>,
        !stride.tensor<3x1xf32>, !stride.tensor<40xf32>, !stride.tensor<10x7xf32>,
        !stride.tensor<f32>, !stride.tensor<8xf32>, !stride.tensor<8xf32>,
        !stride.tensor<8xf32>, !stride.tensor<1x5x1xf64>, !stride.tensor<9xi32>,
        !stride.tensor<9xi64>) {
  %0 = stride.kernel "inner_warp" ins(%x : !stride.tensor<8x100xf32>) -> (!stride.tensor<8xf32>) {
  ^bb0(%a: !stride.tensor<8x100xf32>):
    %r = stride.sum %a dims [1] : !stride.tensor<8x100xf32> -> !stride.tensor<8xf32>
    stride.yield %r : !stride.tensor<8xf32>
  }
  %1 = stride.kernel "inner_subwarp" ins(%s : !stride.tensor<50x5xf32>) -> (!stride.tensor<50xf32>) {
  ^bb0(%a: !stride.tensor<50x5xf32>):
    %r = stride.max %a dims [1] : !stride.tensor<50x5xf32> -> !stride.tensor<50xf32>
    stride.yield %r : !stride.tensor<50xf32>
  }
  %2:2 = stride.kernel "inner_block" ins(%b, %c : !stride.tensor<3x5000xf32>, !stride.tensor<3x1xf32>)
      -> (!stride.tensor<3x1xf32>, !stride.tensor<3x1xf32>) {
  ^bb0(%a: !stride.tensor<3x5000xf32>, %d: !stride.tensor<3x1xf32>):
    %m = stride.mean %a dims [1] keepdim : !stride.tensor<3x5000xf32> -> !stride.tensor<3x1xf32>
    %e = stride.exp %m : !stride.tensor<3x1xf32> -> !stride.tensor<3x1xf32>
    %y = stride.add %e, %d : !stride.tensor<3x1xf32>, !stride.tensor<3x1xf32> -> !stride.tensor<3x1xf32>
    stride.yield %m, %y : !stride.tensor<3x1xf32>, !stride.tensor<3x1xf32>
  }
  %3 = stride.kernel "outer_split" ins(%o : !stride.tensor<512x40xf32>) -> (!stride.tensor<40xf32>) {
  ^bb0(%a: !stride.tensor<512x40xf32>):
    %r = stride.sum %a dims [0] : !stride.tensor<512x40xf32> -> !stride.tensor<40xf32>
    stride.yield %r : !stride.tensor<40xf32>
  }
  %4 = stride.kernel "outer_plain" ins(%p : !stride.tensor<10x6x7xf32>) -> (!stride.tensor<10x7xf32>) {
  ^bb0(%a: !stride.tensor<10x6x7xf32>):
    %r = stride.prod %a dims [1] : !stride.tensor<10x6x7xf32> -> !stride.tensor<10x7xf32>
    stride.yield %r : !stride.tensor<10x7xf32>
  }
  %5 = stride.kernel "full" ins(%x : !stride.tensor<8x100xf32>) -> (!stride.tensor<f32>) {
  ^bb0(%a: !stride.tensor<8x100xf32>):
    %r = stride.min %a dims [0, 1] : !stride.tensor<8x100xf32> -> !stride.tensor<f32>
    stride.yield %r : !stride.tensor<f32>
  }
  %6:3 = stride.kernel "several" ins(%x : !stride.tensor<8x100xf32>)
      -> (!stride.tensor<8xf32>, !stride.tensor<8xf32>, !stride.tensor<8xf32>) {
  ^bb0(%a: !stride.tensor<8x100xf32>):
    %sq = stride.mul %a, %a : !stride.tensor<8x100xf32>, !stride.tensor<8x100xf32> -> !stride.tensor<8x100xf32>
    %one = stride.full 1.0 : !stride.tensor<8x100xf32>
    %v = stride.sub %sq, %one : !stride.tensor<8x100xf32>, !stride.tensor<8x100xf32> -> !stride.tensor<8x100xf32>
    %mx = stride.max %v dims [1] : !stride.tensor<8x100xf32> -> !stride.tensor<8xf32>
    %mn = stride.min %v dims [1] : !stride.tensor<8x100xf32> -> !stride.tensor<8xf32>
    %me = stride.mean %v dims [1] : !stride.tensor<8x100xf32> -> !stride.tensor<8xf32>
    %range = stride.sub %mx, %mn : !stride.tensor<8xf32>, !stride.tensor<8xf32> -> !stride.tensor<8xf32>
    stride.yield %range, %me, %mx : !stride.tensor<8xf32>, !stride.tensor<8xf32>, !stride.tensor<8xf32>
  }
  %7 = stride.kernel "two_dims" ins(%t : !stride.tensor<6x5x7xf64>) -> (!stride.tensor<1x5x1xf64>) {
  ^bb0(%a: !stride.tensor<6x5x7xf64>):
    %r = stride.sum %a dims [0, 2] keepdim : !stride.tensor<6x5x7xf64> -> !stride.tensor<1x5x1xf64>
    stride.yield %r : !stride.tensor<1x5x1xf64>
  }
  %8 = stride.kernel "int_sum" ins(%i : !stride.tensor<9x33xi32>) -> (!stride.tensor<9xi32>) {
  ^bb0(%a: !stride.tensor<9x33xi32>):
    %r = stride.sum %a dims [1] : !stride.tensor<9x33xi32> -> !stride.tensor<9xi32>
    stride.yield %r : !stride.tensor<9xi32>
  }
  %9 = stride.kernel "int_max_outer" ins(%l : !stride.tensor<33x9xi64>) -> (!stride.tensor<9xi64>) {
  ^bb0(%a: !stride.tensor<33x9xi64>):
    %r = stride.max %a dims [0] : !stride.tensor<33x9xi64> -> !stride.tensor<9xi64>
    stride.yield %r : !stride.tensor<9xi64>
  }
  return %0, %1, %2#0, %2#1, %3, %4, %5, %6#0, %6#1, %6#2, %7, %8, %9
      : !stride.tensor<8xf32>, !stride.tensor<50xf32>, !stride.tensor<3x1xf32>,
        !stride.tensor<3x1xf32>, !stride.tensor<40xf32>, !stride.tensor<10x7xf32>,
        !stride.tensor<f32>, !stride.tensor<8xf32>, !stride.tensor<8xf32>,
        !stride.tensor<8xf32>, !stride.tensor<1x5x1xf64>, !stride.tensor<9xi32>,
        !stride.tensor<9xi64>
}
