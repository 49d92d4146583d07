// Reductions to few outputs over many elements, each output's range split
// over several blocks (scheme reduction_split): full reductions and a few
// outputs, odd sizes and sizes of whole groups of 4 (4-element loads),
// every reduction kind, a prologue and an epilogue, several reductions of
// one kernel, non-adjacent reduced dims, f32, f64 and integers.
func.func @split(%x: !stride.tensor<3x7x4001xf32>, %p: !stride.tensor<96x1000xf32>,
                 %q: !stride.tensor<96x1000xf32>, %b: !stride.tensor<3x30011xf32>,
                 %c: !stride.tensor<3x1xf32>, %w: !stride.tensor<5x12288xf32>,
                 %u: !stride.tensor<2x9001xf32>, %t: !stride.tensor<2x3x8195xf64>,
                 %i: !stride.tensor<4x20011xi32>, %l: !stride.tensor<16384xi64>)
    -> (!stride.tensor<f32>, !stride.tensor<f32>, !stride.tensor<3x1xf32>,
        !stride.tensor<5xf32>, !stride.tensor<5xf32>, !stride.tensor<2xf32>,
        !stride.tensor<1x3x1xf64>, !stride.tensor<4xi32>, !stride.tensor<i64>) {
  %0 = stride.kernel "full_sum_odd" ins(%x : !stride.tensor<3x7x4001xf32>) -> (!stride.tensor<f32>) {
  ^bb0(%a: !stride.tensor<3x7x4001xf32>):
    %r = stride.sum %a dims [0, 1, 2] : !stride.tensor<3x7x4001xf32> -> !stride.tensor<f32>
    stride.yield %r : !stride.tensor<f32>
  }
  %1 = stride.kernel "full_mean_of_product" ins(%p, %q : !stride.tensor<96x1000xf32>, !stride.tensor<96x1000xf32>)
      -> (!stride.tensor<f32>) {
  ^bb0(%a: !stride.tensor<96x1000xf32>, %e: !stride.tensor<96x1000xf32>):
    %m = stride.mul %a, %e : !stride.tensor<96x1000xf32>, !stride.tensor<96x1000xf32> -> !stride.tensor<96x1000xf32>
    %r = stride.mean %m dims [0, 1] : !stride.tensor<96x1000xf32> -> !stride.tensor<f32>
    %one = stride.full 1.0 : !stride.tensor<f32>
    %y = stride.add %r, %one : !stride.tensor<f32>, !stride.tensor<f32> -> !stride.tensor<f32>
    stride.yield %y : !stride.tensor<f32>
  }
  %2 = stride.kernel "few_mean_epilogue" ins(%b, %c : !stride.tensor<3x30011xf32>, !stride.tensor<3x1xf32>)
      -> (!stride.tensor<3x1xf32>) {
  ^bb0(%a: !stride.tensor<3x30011xf32>, %d: !stride.tensor<3x1xf32>):
    %m = stride.mean %a dims [1] keepdim : !stride.tensor<3x30011xf32> -> !stride.tensor<3x1xf32>
    %e = stride.exp %m : !stride.tensor<3x1xf32> -> !stride.tensor<3x1xf32>
    %y = stride.add %e, %d : !stride.tensor<3x1xf32>, !stride.tensor<3x1xf32> -> !stride.tensor<3x1xf32>
    stride.yield %y : !stride.tensor<3x1xf32>
  }
  %3:2 = stride.kernel "few_max_min" ins(%w : !stride.tensor<5x12288xf32>)
      -> (!stride.tensor<5xf32>, !stride.tensor<5xf32>) {
  ^bb0(%a: !stride.tensor<5x12288xf32>):
    %mx = stride.max %a dims [1] : !stride.tensor<5x12288xf32> -> !stride.tensor<5xf32>
    %mn = stride.min %a dims [1] : !stride.tensor<5x12288xf32> -> !stride.tensor<5xf32>
    %range = stride.sub %mx, %mn : !stride.tensor<5xf32>, !stride.tensor<5xf32> -> !stride.tensor<5xf32>
    stride.yield %mn, %range : !stride.tensor<5xf32>, !stride.tensor<5xf32>
  }
  %4 = stride.kernel "few_prod" ins(%u : !stride.tensor<2x9001xf32>) -> (!stride.tensor<2xf32>) {
  ^bb0(%a: !stride.tensor<2x9001xf32>):
    %k = stride.full 0.015625 : !stride.tensor<2x9001xf32>
    %s = stride.mul %a, %k : !stride.tensor<2x9001xf32>, !stride.tensor<2x9001xf32> -> !stride.tensor<2x9001xf32>
    %one = stride.full 1.0 : !stride.tensor<2x9001xf32>
    %v = stride.add %s, %one : !stride.tensor<2x9001xf32>, !stride.tensor<2x9001xf32> -> !stride.tensor<2x9001xf32>
    %r = stride.prod %v dims [1] : !stride.tensor<2x9001xf32> -> !stride.tensor<2xf32>
    stride.yield %r : !stride.tensor<2xf32>
  }
  %5 = stride.kernel "two_dims_f64" ins(%t : !stride.tensor<2x3x8195xf64>) -> (!stride.tensor<1x3x1xf64>) {
  ^bb0(%a: !stride.tensor<2x3x8195xf64>):
    %r = stride.sum %a dims [0, 2] keepdim : !stride.tensor<2x3x8195xf64> -> !stride.tensor<1x3x1xf64>
    stride.yield %r : !stride.tensor<1x3x1xf64>
  }
  %6 = stride.kernel "int_sum" ins(%i : !stride.tensor<4x20011xi32>) -> (!stride.tensor<4xi32>) {
  ^bb0(%a: !stride.tensor<4x20011xi32>):
    %r = stride.sum %a dims [1] : !stride.tensor<4x20011xi32> -> !stride.tensor<4xi32>
    stride.yield %r : !stride.tensor<4xi32>
  }
  %7 = stride.kernel "int_max" ins(%l : !stride.tensor<16384xi64>) -> (!stride.tensor<i64>) {
  ^bb0(%a: !stride.tensor<16384xi64>):
    %r = stride.max %a dims [0] : !stride.tensor<16384xi64> -> !stride.tensor<i64>
    stride.yield %r : !stride.tensor<i64>
  }
  return %0, %1, %2, %3#0, %3#1, %4, %5, %6, %7
      : !stride.tensor<f32>, !stride.tensor<f32>, !stride.tensor<3x1xf32>,
        !stride.tensor<5xf32>, !stride.tensor<5xf32>, !stride.tensor<2xf32>,
        !stride.tensor<1x3x1xf64>, !stride.tensor<4xi32>, !stride.tensor<i64>
}
