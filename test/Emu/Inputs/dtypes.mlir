// Element types: f16 and bf16 computed in f32 and rounded per op, i8
// arithmetic that wraps, integer division, booleans, iota and constants,
// casts between every kind. Run with integer inputs in [0, 4].
func.func @dtypes(%h: !stride.tensor<4x8xf16>, %h2: !stride.tensor<4x8xf16>,
                  %f: !stride.tensor<4x8xf32>, %d: !stride.tensor<4x8xf64>,
                  %c: !stride.tensor<4x8xi8>, %n: !stride.tensor<4x8xi32>,
                  %m: !stride.tensor<4x8xi32>, %l: !stride.tensor<4x8xi64>)
    -> (!stride.tensor<4x8xf16>, !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>, !stride.tensor<4x8xi8>,
        !stride.tensor<4x8xi32>, !stride.tensor<4x8xf32>, !stride.tensor<3x4xf32>,
        !stride.tensor<4x8xi32>, !stride.tensor<4x8xf16>, !stride.tensor<4x8xi64>) {
  %0:2 = stride.kernel "half_chain" ins(%h, %h2 : !stride.tensor<4x8xf16>, !stride.tensor<4x8xf16>)
      -> (!stride.tensor<4x8xf16>, !stride.tensor<4x8xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf16>, %b: !stride.tensor<4x8xf16>):
    %s = stride.add %a, %b : !stride.tensor<4x8xf16>, !stride.tensor<4x8xf16> -> !stride.tensor<4x8xf16>
    %t = stride.full 0.1 : !stride.tensor<4x8xf16>
    %p = stride.mul %s, %t : !stride.tensor<4x8xf16>, !stride.tensor<4x8xf16> -> !stride.tensor<4x8xf16>
    %g = stride.gelu %p : !stride.tensor<4x8xf16> -> !stride.tensor<4x8xf16>
    %w = stride.cast %g : !stride.tensor<4x8xf16> -> !stride.tensor<4x8xf32>
    stride.yield %g, %w : !stride.tensor<4x8xf16>, !stride.tensor<4x8xf32>
  }
  %1 = stride.kernel "bf16_round_trip" ins(%f : !stride.tensor<4x8xf32>) -> (!stride.tensor<4x8xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    %b = stride.cast %a : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xbf16>
    %e = stride.exp %b : !stride.tensor<4x8xbf16> -> !stride.tensor<4x8xbf16>
    %r = stride.cast %e : !stride.tensor<4x8xbf16> -> !stride.tensor<4x8xf32>
    stride.yield %r : !stride.tensor<4x8xf32>
  }
  %2 = stride.kernel "int8_wrap" ins(%c : !stride.tensor<4x8xi8>) -> (!stride.tensor<4x8xi8>) {
  ^bb0(%a: !stride.tensor<4x8xi8>):
    %k = stride.full 100.0 : !stride.tensor<4x8xi8>
    %p = stride.mul %a, %k : !stride.tensor<4x8xi8>, !stride.tensor<4x8xi8> -> !stride.tensor<4x8xi8>
    %q = stride.add %p, %k : !stride.tensor<4x8xi8>, !stride.tensor<4x8xi8> -> !stride.tensor<4x8xi8>
    %r = stride.abs %q : !stride.tensor<4x8xi8> -> !stride.tensor<4x8xi8>
    stride.yield %r : !stride.tensor<4x8xi8>
  }
  %3 = stride.kernel "int_div" ins(%n, %m : !stride.tensor<4x8xi32>, !stride.tensor<4x8xi32>)
      -> (!stride.tensor<4x8xi32>) {
  ^bb0(%a: !stride.tensor<4x8xi32>, %b: !stride.tensor<4x8xi32>):
    %three = stride.full 3.0 : !stride.tensor<4x8xi32>
    %one = stride.full 1.0 : !stride.tensor<4x8xi32>
    %num = stride.sub %a, %three : !stride.tensor<4x8xi32>, !stride.tensor<4x8xi32> -> !stride.tensor<4x8xi32>
    %den = stride.add %b, %one : !stride.tensor<4x8xi32>, !stride.tensor<4x8xi32> -> !stride.tensor<4x8xi32>
    %q = stride.div %num, %den : !stride.tensor<4x8xi32>, !stride.tensor<4x8xi32> -> !stride.tensor<4x8xi32>
    stride.yield %q : !stride.tensor<4x8xi32>
  }
  %4 = stride.kernel "bool_logic" ins(%f, %d : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf64>)
      -> (!stride.tensor<4x8xf32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>, %b: !stride.tensor<4x8xf64>):
    %z = stride.full 0.0 : !stride.tensor<4x8xf32>
    %pos = stride.cmp gt, %a, %z : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xi1>
    %bf = stride.cast %b : !stride.tensor<4x8xf64> -> !stride.tensor<4x8xf32>
    %lt = stride.cmp lt, %a, %bf : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xi1>
    %np = stride.not %pos : !stride.tensor<4x8xi1> -> !stride.tensor<4x8xi1>
    %either = stride.or %np, %lt : !stride.tensor<4x8xi1>, !stride.tensor<4x8xi1> -> !stride.tensor<4x8xi1>
    %both = stride.and %pos, %lt : !stride.tensor<4x8xi1>, !stride.tensor<4x8xi1> -> !stride.tensor<4x8xi1>
    %w = stride.where %either, %a, %bf : !stride.tensor<4x8xi1>, !stride.tensor<4x8xf32>,
        !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    %bb = stride.cast %both : !stride.tensor<4x8xi1> -> !stride.tensor<4x8xf32>
    %r = stride.add %w, %bb : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    stride.yield %r : !stride.tensor<4x8xf32>
  }
  %5 = stride.kernel "iota_constant" -> (!stride.tensor<3x4xf32>) {
    %i = stride.iota dim 1 : !stride.tensor<3x4xf32>
    %cst = stride.constant dense<[[1.5, -2.0, 0.25, 8.0], [0.0, 1.0e-3, -7.5, 3.0],
                                [100.0, -0.5, 2.0, 1.0]]> : tensor<3x4xf32>
        : !stride.tensor<3x4xf32>
    %r = stride.add %i, %cst : !stride.tensor<3x4xf32>, !stride.tensor<3x4xf32> -> !stride.tensor<3x4xf32>
    stride.yield %r : !stride.tensor<3x4xf32>
  }
  %6 = stride.kernel "float_to_int" ins(%f : !stride.tensor<4x8xf32>) -> (!stride.tensor<4x8xi32>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    %k = stride.full 10.0 : !stride.tensor<4x8xf32>
    %p = stride.mul %a, %k : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>
    %r = stride.cast %p : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xi32>
    stride.yield %r : !stride.tensor<4x8xi32>
  }
  %7 = stride.kernel "to_half" ins(%l, %d : !stride.tensor<4x8xi64>, !stride.tensor<4x8xf64>)
      -> (!stride.tensor<4x8xf16>) {
  ^bb0(%a: !stride.tensor<4x8xi64>, %b: !stride.tensor<4x8xf64>):
    %x = stride.cast %a : !stride.tensor<4x8xi64> -> !stride.tensor<4x8xf16>
    %y = stride.cast %b : !stride.tensor<4x8xf64> -> !stride.tensor<4x8xf16>
    %r = stride.sub %x, %y : !stride.tensor<4x8xf16>, !stride.tensor<4x8xf16> -> !stride.tensor<4x8xf16>
    stride.yield %r : !stride.tensor<4x8xf16>
  }
  %8 = stride.kernel "bool_to_int" ins(%f : !stride.tensor<4x8xf32>) -> (!stride.tensor<4x8xi64>) {
  ^bb0(%a: !stride.tensor<4x8xf32>):
    %b = stride.cast %a : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xi1>
    %i = stride.cast %b : !stride.tensor<4x8xi1> -> !stride.tensor<4x8xi64>
    %k = stride.iota dim 0 : !stride.tensor<4x8xi64>
    %r = stride.add %i, %k : !stride.tensor<4x8xi64>, !stride.tensor<4x8xi64> -> !stride.tensor<4x8xi64>
    stride.yield %r : !stride.tensor<4x8xi64>
  }
  return %0#0, %0#1, %1, %2, %3, %4, %5, %6, %7, %8 : !stride.tensor<4x8xf16>, !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32>,
      !stride.tensor<4x8xi8>, !stride.tensor<4x8xi32>, !stride.tensor<4x8xf32>,
      !stride.tensor<3x4xf32>, !stride.tensor<4x8xi32>, !stride.tensor<4x8xf16>,
      !stride.tensor<4x8xi64>
}
