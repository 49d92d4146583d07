// stride.matmul in the reference interpreter: sums in f64 over the operands'
// logical elements (any layout: transposed, sliced, zero batch stride), plus
// the bias, through the epilogue, rounded once to the result type.
// RUN: stride-run %s --reference --entry=small --print | FileCheck %s --check-prefix=S
// RUN: stride-run %s --reference --entry=odd --print | FileCheck %s --check-prefix=O
// RUN: stride-run %s --reference --entry=batched --print | FileCheck %s --check-prefix=B
// RUN: stride-run %s --reference --entry=rounding --print | FileCheck %s --check-prefix=R

!x23 = !stride.tensor<2x3xf32, strides = [3, 1], offset = 0>
!x32t = !stride.tensor<3x2xf32, strides = [1, 3], offset = 0>

// A = [[0, 1, 2], [3, 4, 5]]; A @ A^T = [[5, 14], [14, 50]].
func.func @small() -> (!stride.tensor<2x2xf32>, !stride.tensor<2x2xf32>,
    !stride.tensor<2x1xf32>, !stride.tensor<2x2x2xf32>) {
  %i = stride.iota dim 0 : !stride.tensor<6xf32>
  %a = stride.view %i : !stride.tensor<6xf32> -> !x23
  %at = stride.permute %a dims [1, 0] : !x23 -> !x32t
  %p = stride.matmul %a, %at : !x23, !x32t -> !stride.tensor<2x2xf32>
  // bias [1, -20], then relu: [[6, 0], [15, 30]].
  %bias = stride.constant dense<[1.0, -20.0]> : tensor<2xf32> : !stride.tensor<2xf32>
  %r = stride.matmul %a, %at bias %bias epilogue relu
      : !x23, !x32t, !stride.tensor<2xf32> -> !stride.tensor<2x2xf32>
  // Column 0 of A (a slice) times [[0.5]], through GELU's tanh form:
  // gelu_tanh(0) = 0, gelu_tanh(1.5) = 1.39957.
  %col = stride.slice %a dim 1 start 0 end 1 step 1
      : !x23 -> !stride.tensor<2x1xf32, strides = [3, 1], offset = 0>
  %half = stride.full 0.5 : !stride.tensor<1x1xf32>
  %g = stride.matmul %col, %half epilogue gelu_tanh
      : !stride.tensor<2x1xf32, strides = [3, 1], offset = 0>,
        !stride.tensor<1x1xf32> -> !stride.tensor<2x1xf32>
  // Batch stride 0: the same A in both batches, times [[0, 1], [2, 3],
  // [4, 5]] and [[6, 7], [8, 9], [10, 11]].
  %ae = stride.expand %a : !x23 -> !stride.tensor<2x2x3xf32, strides = [0, 3, 1], offset = 0>
  %j = stride.iota dim 0 : !stride.tensor<12xf32>
  %b = stride.view %j : !stride.tensor<12xf32> -> !stride.tensor<2x3x2xf32>
  %bb = stride.matmul %ae, %b
      : !stride.tensor<2x2x3xf32, strides = [0, 3, 1], offset = 0>,
        !stride.tensor<2x3x2xf32> -> !stride.tensor<2x2x2xf32>
  return %p, %r, %g, %bb : !stride.tensor<2x2xf32>, !stride.tensor<2x2xf32>,
      !stride.tensor<2x1xf32>, !stride.tensor<2x2x2xf32>
}
// S:      result0: f32 [2, 2]
// S-NEXT: {{\[}}[5, 14],
// S-NEXT:  [14, 50]]
// S-NEXT: result1: f32 [2, 2]
// S-NEXT: {{\[}}[6, 0],
// S-NEXT:  [15, 30]]
// S-NEXT: result2: f32 [2, 1]
// S-NEXT: {{\[}}[0],
// S-NEXT:  [1.3995715]]
// S-NEXT: result3: f32 [2, 2, 2]
// S-NEXT: {{\[\[}}[10, 13],
// S-NEXT:   [28, 40]],
// S-NEXT:  {{\[}}[28, 31],
// S-NEXT:   [100, 112]]]

// Odd sizes, a sliced lhs and a transposed rhs (f64): the product equals the
// sum over k of the broadcast elementwise products, bit for bit (the same
// sums in the same order).
!l = !stride.tensor<17x33xf64, strides = [66, 2], offset = 1>
!r = !stride.tensor<33x65xf64, strides = [1, 33], offset = 0>
!cube = !stride.tensor<17x33x65xf64>
func.func @odd() -> (!stride.tensor<f64>, !stride.tensor<f64>) {
  %i = stride.iota dim 0 : !stride.tensor<1122xf64>
  %iv = stride.view %i : !stride.tensor<1122xf64> -> !stride.tensor<17x66xf64>
  %s = stride.sin %iv : !stride.tensor<17x66xf64> -> !stride.tensor<17x66xf64>
  %lhs = stride.slice %s dim 1 start 1 end 66 step 2 : !stride.tensor<17x66xf64> -> !l
  %j = stride.iota dim 0 : !stride.tensor<2145xf64>
  %jv = stride.view %j : !stride.tensor<2145xf64> -> !stride.tensor<65x33xf64>
  %c = stride.cos %jv : !stride.tensor<65x33xf64> -> !stride.tensor<65x33xf64>
  %rhs = stride.permute %c dims [1, 0] : !stride.tensor<65x33xf64> -> !r
  %p = stride.matmul %lhs, %rhs : !l, !r -> !stride.tensor<17x65xf64>
  %lu = stride.unsqueeze %lhs dim 2 : !l -> !stride.tensor<17x33x1xf64, strides = [66, 2, 1], offset = 1>
  %le = stride.expand %lu : !stride.tensor<17x33x1xf64, strides = [66, 2, 1], offset = 1>
      -> !stride.tensor<17x33x65xf64, strides = [66, 2, 0], offset = 1>
  %ru = stride.unsqueeze %rhs dim 0 : !r -> !stride.tensor<1x33x65xf64, strides = [33, 1, 33], offset = 0>
  %re = stride.expand %ru : !stride.tensor<1x33x65xf64, strides = [33, 1, 33], offset = 0>
      -> !stride.tensor<17x33x65xf64, strides = [0, 1, 33], offset = 0>
  %m = stride.mul %le, %re : !stride.tensor<17x33x65xf64, strides = [66, 2, 0], offset = 1>,
      !stride.tensor<17x33x65xf64, strides = [0, 1, 33], offset = 0> -> !cube
  %q = stride.sum %m dims [1] : !cube -> !stride.tensor<17x65xf64>
  %d = stride.sub %p, %q : !stride.tensor<17x65xf64>, !stride.tensor<17x65xf64>
      -> !stride.tensor<17x65xf64>
  %ad = stride.abs %d : !stride.tensor<17x65xf64> -> !stride.tensor<17x65xf64>
  %most = stride.max %ad dims [0, 1] : !stride.tensor<17x65xf64> -> !stride.tensor<f64>
  // The product is not zero: the sum of its elements.
  %total = stride.sum %p dims [0, 1] : !stride.tensor<17x65xf64> -> !stride.tensor<f64>
  return %most, %total : !stride.tensor<f64>, !stride.tensor<f64>
}
// O:      result0: f64 []
// O-NEXT: {{^}}0{{$}}
// O-NEXT: result1: f64 []
// O-NEXT: 1.1030012895107024

// Batched (3 x [5x7] @ [7x4]) with a broadcast batch (stride 0) in rhs,
// against the same sum of products.
!bl = !stride.tensor<3x5x7xf64>
!br = !stride.tensor<3x7x4xf64, strides = [0, 4, 1], offset = 0>
func.func @batched() -> (!stride.tensor<f64>, !stride.tensor<f64>) {
  %i = stride.iota dim 0 : !stride.tensor<105xf64>
  %iv = stride.view %i : !stride.tensor<105xf64> -> !bl
  %lhs = stride.sin %iv : !bl -> !bl
  %j = stride.iota dim 0 : !stride.tensor<28xf64>
  %jv = stride.view %j : !stride.tensor<28xf64> -> !stride.tensor<7x4xf64>
  %c = stride.cos %jv : !stride.tensor<7x4xf64> -> !stride.tensor<7x4xf64>
  %rhs = stride.expand %c : !stride.tensor<7x4xf64> -> !br
  %p = stride.matmul %lhs, %rhs : !bl, !br -> !stride.tensor<3x5x4xf64>
  %lu = stride.unsqueeze %lhs dim 3 : !bl -> !stride.tensor<3x5x7x1xf64, strides = [35, 7, 1, 1], offset = 0>
  %le = stride.expand %lu : !stride.tensor<3x5x7x1xf64, strides = [35, 7, 1, 1], offset = 0>
      -> !stride.tensor<3x5x7x4xf64, strides = [35, 7, 1, 0], offset = 0>
  %ru = stride.unsqueeze %rhs dim 1 : !br -> !stride.tensor<3x1x7x4xf64, strides = [0, 28, 4, 1], offset = 0>
  %re = stride.expand %ru : !stride.tensor<3x1x7x4xf64, strides = [0, 28, 4, 1], offset = 0>
      -> !stride.tensor<3x5x7x4xf64, strides = [0, 0, 4, 1], offset = 0>
  %m = stride.mul %le, %re : !stride.tensor<3x5x7x4xf64, strides = [35, 7, 1, 0], offset = 0>,
      !stride.tensor<3x5x7x4xf64, strides = [0, 0, 4, 1], offset = 0> -> !stride.tensor<3x5x7x4xf64>
  %q = stride.sum %m dims [2] : !stride.tensor<3x5x7x4xf64> -> !stride.tensor<3x5x4xf64>
  %d = stride.sub %p, %q : !stride.tensor<3x5x4xf64>, !stride.tensor<3x5x4xf64>
      -> !stride.tensor<3x5x4xf64>
  %ad = stride.abs %d : !stride.tensor<3x5x4xf64> -> !stride.tensor<3x5x4xf64>
  %most = stride.max %ad dims [0, 1, 2] : !stride.tensor<3x5x4xf64> -> !stride.tensor<f64>
  %total = stride.sum %p dims [0, 1, 2] : !stride.tensor<3x5x4xf64> -> !stride.tensor<f64>
  return %most, %total : !stride.tensor<f64>, !stride.tensor<f64>
}
// B:      result0: f64 []
// B-NEXT: {{^}}0{{$}}
// B-NEXT: result1: f64 []
// B-NEXT: 2.9312319434616154

// The bias joins the accumulator before the one rounding (as in cuBLASLt and
// PyTorch's addmm): in bf16, [1, 1] @ [1, 2^-8] = 1 + 2^-8 is a tie that
// rounds to 1, so a separate add of -1 gives 0, but the op's bias gives 2^-8.
// (The product is returned too, so stride-fuse leaves the add separate.)
func.func @rounding() -> (!stride.tensor<1x1xbf16>, !stride.tensor<1x1xbf16>,
                          !stride.tensor<1x1xbf16>) {
  %x = stride.constant dense<[[1.0, 1.0]]> : tensor<1x2xbf16> : !stride.tensor<1x2xbf16>
  %w = stride.constant dense<[[1.0], [0.00390625]]> : tensor<2x1xbf16> : !stride.tensor<2x1xbf16>
  %b = stride.constant dense<[-1.0]> : tensor<1xbf16> : !stride.tensor<1xbf16>
  %fused = stride.matmul %x, %w bias %b : !stride.tensor<1x2xbf16>, !stride.tensor<2x1xbf16>,
      !stride.tensor<1xbf16> -> !stride.tensor<1x1xbf16>
  %p = stride.matmul %x, %w : !stride.tensor<1x2xbf16>, !stride.tensor<2x1xbf16> -> !stride.tensor<1x1xbf16>
  %be = stride.expand %b : !stride.tensor<1xbf16> -> !stride.tensor<1x1xbf16, strides = [0, 1], offset = 0>
  %separate = stride.add %p, %be : !stride.tensor<1x1xbf16>,
      !stride.tensor<1x1xbf16, strides = [0, 1], offset = 0> -> !stride.tensor<1x1xbf16>
  return %fused, %separate, %p : !stride.tensor<1x1xbf16>, !stride.tensor<1x1xbf16>,
      !stride.tensor<1x1xbf16>
}
// R:      result0: bf16 [1, 1]
// R-NEXT: {{\[\[}}0.0039]]
// R-NEXT: result1: bf16 [1, 1]
// R-NEXT: {{\[\[}}0]]
// R-NEXT: result2: bf16 [1, 1]
// R-NEXT: {{\[\[}}1]]
