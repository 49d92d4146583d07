// stride.attention and stride.attention_backward in the reference
// interpreter: small cases whose values follow by hand from the op
// descriptions (python-free-docs/attention.md). scale = ln 3 with scores 0 and
// 1 gives weights 1/4 and 3/4.
// RUN: stride-run %s --reference --entry=weights --print | FileCheck %s --check-prefix=W
// RUN: stride-run %s --reference --entry=causal --print | FileCheck %s --check-prefix=C
// RUN: stride-run %s --reference --entry=gqa --print | FileCheck %s --check-prefix=G
// RUN: stride-run %s --reference --entry=masks --print | FileCheck %s --check-prefix=M
// RUN: stride-run %s --reference --entry=backward --print | FileCheck %s --check-prefix=B

// One query [1, 0] against keys [0, 1] and [1, 0]: scores [0, ln 3],
// weights [1/4, 3/4], values [4, 8]: 1 + 6 = 7; logsumexp ln(1 + 3) = ln 4.
func.func @weights() -> (!stride.tensor<1x1x1x1xf32>, !stride.tensor<1x1x1xf32>) {
  %q = stride.constant dense<[[[[1.0, 0.0]]]]> : tensor<1x1x1x2xf32> : !stride.tensor<1x1x1x2xf32>
  %k = stride.constant dense<[[[[0.0, 1.0], [1.0, 0.0]]]]> : tensor<1x1x2x2xf32> : !stride.tensor<1x1x2x2xf32>
  %v = stride.constant dense<[[[[4.0], [8.0]]]]> : tensor<1x1x2x1xf32> : !stride.tensor<1x1x2x1xf32>
  %o, %lse = stride.attention %q, %k, %v scale 1.0986122886681098
      : !stride.tensor<1x1x1x2xf32>, !stride.tensor<1x1x2x2xf32>, !stride.tensor<1x1x2x1xf32>
      -> !stride.tensor<1x1x1x1xf32>, !stride.tensor<1x1x1xf32>
  return %o, %lse : !stride.tensor<1x1x1x1xf32>, !stride.tensor<1x1x1xf32>
}
// The graph runs through the pipeline first, which decomposes an f32 op
// (python-free-docs/attention.md, "The fallback"): its weights are
// exp(ln 3) / 4 rounded to f32, so the result is 7 or one f32 ulp above.
// W:      result0: f32 [1, 1, 1, 1]
// W-NEXT: {{\[\[\[\[}}7{{(\.0000005)?}}]]]]
// W-NEXT: result1: f32 [1, 1, 1]
// W-NEXT: {{\[\[\[}}1.3862944]]]

// Zero queries: every seen key weighs the same, so row i is the mean of the
// values it sees. Causal is aligned to the top left: query i sees keys
// j <= i, also when Sq != Skv (bottom-right alignment would give row 0 of
// the 2x4 case the mean of 3 keys). Values 1, 2, 6, 10.
func.func @causal() -> (!stride.tensor<1x1x3x1xf32>, !stride.tensor<1x1x3xf32>,
                        !stride.tensor<1x1x2x1xf32>, !stride.tensor<1x1x4x1xf32>) {
  %v = stride.constant dense<[[[[1.0], [2.0], [6.0], [10.0]]]]> : tensor<1x1x4x1xf32> : !stride.tensor<1x1x4x1xf32>
  %q3 = stride.full 0.0 : !stride.tensor<1x1x3x1xf32>
  %v3 = stride.slice %v dim 2 start 0 end 3 step 1 : !stride.tensor<1x1x4x1xf32>
      -> !stride.tensor<1x1x3x1xf32, strides = [4, 4, 1, 1], offset = 0>
  %o3, %lse3 = stride.attention %q3, %q3, %v3 scale 1.0 causal
      : !stride.tensor<1x1x3x1xf32>, !stride.tensor<1x1x3x1xf32>,
        !stride.tensor<1x1x3x1xf32, strides = [4, 4, 1, 1], offset = 0>
      -> !stride.tensor<1x1x3x1xf32>, !stride.tensor<1x1x3xf32>
  %q2 = stride.full 0.0 : !stride.tensor<1x1x2x1xf32>
  %k4 = stride.full 0.0 : !stride.tensor<1x1x4x1xf32>
  %o24 = stride.attention %q2, %k4, %v scale 1.0 causal
      : !stride.tensor<1x1x2x1xf32>, !stride.tensor<1x1x4x1xf32>, !stride.tensor<1x1x4x1xf32>
      -> !stride.tensor<1x1x2x1xf32>
  %v2 = stride.slice %v dim 2 start 0 end 2 step 1 : !stride.tensor<1x1x4x1xf32>
      -> !stride.tensor<1x1x2x1xf32, strides = [4, 4, 1, 1], offset = 0>
  %o42 = stride.attention %k4, %q2, %v2 scale 1.0 causal
      : !stride.tensor<1x1x4x1xf32>, !stride.tensor<1x1x2x1xf32>,
        !stride.tensor<1x1x2x1xf32, strides = [4, 4, 1, 1], offset = 0>
      -> !stride.tensor<1x1x4x1xf32>
  return %o3, %lse3, %o24, %o42 : !stride.tensor<1x1x3x1xf32>, !stride.tensor<1x1x3xf32>,
      !stride.tensor<1x1x2x1xf32>, !stride.tensor<1x1x4x1xf32>
}
// C:      result0: f32 [1, 1, 3, 1]
// C-NEXT: {{\[\[\[\[}}1],
// C-NEXT:    [1.5],
// C-NEXT:    [3]]]]
// logsumexp: ln 1, ln 2, ln 3.
// C-NEXT: result1: f32 [1, 1, 3]
// C-NEXT: {{\[\[\[}}0, 0.6931472, 1.0986123]]]
// C-NEXT: result2: f32 [1, 1, 2, 1]
// C-NEXT: {{\[\[\[\[}}1],
// C-NEXT:    [1.5]]]]
// C-NEXT: result3: f32 [1, 1, 4, 1]
// C-NEXT: {{\[\[\[\[}}1],
// C-NEXT:    [1.5],
// C-NEXT:    [1.5],
// C-NEXT:    [1.5]]]]

// Grouped-query attention: 4 query heads on 2 key/value heads; query heads
// 0 and 1 read key head 0 (scores [0, ln 3]: 1/4 * 4 + 3/4 * 8 = 7), heads
// 2 and 3 key head 1 (scores [ln 3, 0]: 3/4 * 4 + 1/4 * 8 = 5). Reading
// head h % 2 instead would give 7, 5, 7, 5.
func.func @gqa() -> !stride.tensor<1x4x1x1xf32> {
  %q = stride.full 1.0 : !stride.tensor<1x4x1x1xf32>
  %k = stride.constant dense<[[[[0.0], [1.0]], [[1.0], [0.0]]]]> : tensor<1x2x2x1xf32> : !stride.tensor<1x2x2x1xf32>
  %v1 = stride.constant dense<[[[[4.0], [8.0]]]]> : tensor<1x1x2x1xf32> : !stride.tensor<1x1x2x1xf32>
  %v = stride.expand %v1 : !stride.tensor<1x1x2x1xf32>
      -> !stride.tensor<1x2x2x1xf32, strides = [2, 0, 1, 1], offset = 0>
  %o = stride.attention %q, %k, %v scale 1.0986122886681098
      : !stride.tensor<1x4x1x1xf32>, !stride.tensor<1x2x2x1xf32>,
        !stride.tensor<1x2x2x1xf32, strides = [2, 0, 1, 1], offset = 0>
      -> !stride.tensor<1x4x1x1xf32>
  return %o : !stride.tensor<1x4x1x1xf32>
}
// G:      result0: f32 [1, 4, 1, 1]
// G-NEXT: {{\[\[\[\[}}7]],
// G-NEXT:   {{\[\[}}7]],
// G-NEXT:   {{\[\[}}5]],
// G-NEXT:   {{\[\[}}5]]]]

// Masks broadcast with stride 0, zero queries (equal weights where seen).
// A boolean padding mask [true, true, false] shared by both heads and rows:
// the mean of values 2 and 4. A boolean mask per row, row 1 all false: row
// 0 the mean of 2 and 100, row 1 zero with logsumexp -inf (PyTorch's
// _safe_softmax). An additive mask [0, 1]: weights sigmoid(-1) and
// sigmoid(1) of values 0 and 1, logsumexp ln(1 + e).
func.func @masks() -> (!stride.tensor<1x2x2x1xf32>, !stride.tensor<1x1x2x1xf32>,
                       !stride.tensor<1x1x2xf32>, !stride.tensor<1x1x1x1xf32>,
                       !stride.tensor<1x1x1xf32>) {
  %q = stride.full 0.0 : !stride.tensor<1x2x2x1xf32>
  %k = stride.full 0.0 : !stride.tensor<1x1x3x1xf32>
  %v = stride.constant dense<[[[[2.0], [4.0], [100.0]]]]> : tensor<1x1x3x1xf32> : !stride.tensor<1x1x3x1xf32>
  %pad = stride.constant dense<[true, true, false]> : tensor<3xi1> : !stride.tensor<3xi1>
  %padm = stride.expand %pad : !stride.tensor<3xi1>
      -> !stride.tensor<1x2x2x3xi1, strides = [0, 0, 0, 1], offset = 0>
  %o1 = stride.attention %q, %k, %v mask %padm scale 1.0
      : !stride.tensor<1x2x2x1xf32>, !stride.tensor<1x1x3x1xf32>, !stride.tensor<1x1x3x1xf32>,
        !stride.tensor<1x2x2x3xi1, strides = [0, 0, 0, 1], offset = 0>
      -> !stride.tensor<1x2x2x1xf32>
  %rows = stride.constant dense<[[true, false, true], [false, false, false]]> : tensor<2x3xi1> : !stride.tensor<2x3xi1>
  %rowsm = stride.expand %rows : !stride.tensor<2x3xi1>
      -> !stride.tensor<1x1x2x3xi1, strides = [0, 0, 3, 1], offset = 0>
  %q2 = stride.full 0.0 : !stride.tensor<1x1x2x1xf32>
  %o2, %lse2 = stride.attention %q2, %k, %v mask %rowsm scale 1.0
      : !stride.tensor<1x1x2x1xf32>, !stride.tensor<1x1x3x1xf32>, !stride.tensor<1x1x3x1xf32>,
        !stride.tensor<1x1x2x3xi1, strides = [0, 0, 3, 1], offset = 0>
      -> !stride.tensor<1x1x2x1xf32>, !stride.tensor<1x1x2xf32>
  %add = stride.constant dense<[0.0, 1.0]> : tensor<2xf32> : !stride.tensor<2xf32>
  %addm = stride.expand %add : !stride.tensor<2xf32>
      -> !stride.tensor<1x1x1x2xf32, strides = [0, 0, 0, 1], offset = 0>
  %q1 = stride.full 0.0 : !stride.tensor<1x1x1x1xf32>
  %k2 = stride.full 0.0 : !stride.tensor<1x1x2x1xf32>
  %v2 = stride.constant dense<[[[[0.0], [1.0]]]]> : tensor<1x1x2x1xf32> : !stride.tensor<1x1x2x1xf32>
  %o3, %lse3 = stride.attention %q1, %k2, %v2 mask %addm scale 1.0
      : !stride.tensor<1x1x1x1xf32>, !stride.tensor<1x1x2x1xf32>, !stride.tensor<1x1x2x1xf32>,
        !stride.tensor<1x1x1x2xf32, strides = [0, 0, 0, 1], offset = 0>
      -> !stride.tensor<1x1x1x1xf32>, !stride.tensor<1x1x1xf32>
  return %o1, %o2, %lse2, %o3, %lse3 : !stride.tensor<1x2x2x1xf32>, !stride.tensor<1x1x2x1xf32>,
      !stride.tensor<1x1x2xf32>, !stride.tensor<1x1x1x1xf32>, !stride.tensor<1x1x1xf32>
}
// M:      result0: f32 [1, 2, 2, 1]
// M-NEXT: {{\[\[\[\[}}3],
// M-NEXT:    [3]],
// M-NEXT:   {{\[\[}}3],
// M-NEXT:    [3]]]]
// M-NEXT: result1: f32 [1, 1, 2, 1]
// M-NEXT: {{\[\[\[\[}}51],
// M-NEXT:    [0]]]]
// M-NEXT: result2: f32 [1, 1, 2]
// M-NEXT: {{\[\[\[}}0.6931472, -inf]]]
// M-NEXT: result3: f32 [1, 1, 1, 1]
// M-NEXT: {{\[\[\[\[}}0.7310586]]]]
// M-NEXT: result4: f32 [1, 1, 1]
// M-NEXT: {{\[\[\[}}1.3132616]]]

// The backward of the weights case in f16, with 2 query heads on one
// key/value head (both reading it alike). Per head: P = [1/4, 3/4], O = 7,
// dO = 1, dP = values = [4, 8], rowsum(dO * O) = 7, dS = P * (dP - 7) =
// [-3/4, 3/4]; dQ = ln 3 * (dS . keys) = 0.75 ln 3 = 0.824; dK = ln 3 * dS
// * q = [-0.824, 0.824] and dV = P * dO = [1/4, 3/4], each summed over the
// 2 heads: [-1.648, 1.648] and [0.5, 1.5].
func.func @backward() -> (!stride.tensor<1x2x1x1xf16>, !stride.tensor<1x2x1x1xf16>,
                          !stride.tensor<1x1x2x1xf16>, !stride.tensor<1x1x2x1xf16>) {
  %q = stride.full 1.0 : !stride.tensor<1x2x1x1xf16>
  %k = stride.constant dense<[[[[0.0], [1.0]]]]> : tensor<1x1x2x1xf16> : !stride.tensor<1x1x2x1xf16>
  %v = stride.constant dense<[[[[4.0], [8.0]]]]> : tensor<1x1x2x1xf16> : !stride.tensor<1x1x2x1xf16>
  %o, %lse = stride.attention %q, %k, %v scale 1.0986122886681098
      : !stride.tensor<1x2x1x1xf16>, !stride.tensor<1x1x2x1xf16>, !stride.tensor<1x1x2x1xf16>
      -> !stride.tensor<1x2x1x1xf16>, !stride.tensor<1x2x1xf32>
  %do = stride.full 1.0 : !stride.tensor<1x2x1x1xf16>
  %dq, %dk, %dv = stride.attention_backward %do, %q, %k, %v, %o, %lse scale 1.0986122886681098
      : !stride.tensor<1x2x1x1xf16>, !stride.tensor<1x2x1x1xf16>, !stride.tensor<1x1x2x1xf16>,
        !stride.tensor<1x1x2x1xf16>, !stride.tensor<1x2x1x1xf16>, !stride.tensor<1x2x1xf32>
      -> !stride.tensor<1x2x1x1xf16>, !stride.tensor<1x1x2x1xf16>, !stride.tensor<1x1x2x1xf16>
  return %o, %dq, %dk, %dv : !stride.tensor<1x2x1x1xf16>, !stride.tensor<1x2x1x1xf16>,
      !stride.tensor<1x1x2x1xf16>, !stride.tensor<1x1x2x1xf16>
}
// In f16: 0.75 ln 3 = 0.82396 is 0.8237, 1.5 ln 3 = 1.64792 is 1.647.
// B:      result0: f16 [1, 2, 1, 1]
// B-NEXT: {{\[\[\[\[}}7]],
// B-NEXT:   {{\[\[}}7]]]]
// B-NEXT: result1: f16 [1, 2, 1, 1]
// B-NEXT: {{\[\[\[\[}}0.8237]],
// B-NEXT:   {{\[\[}}0.8237]]]]
// B-NEXT: result2: f16 [1, 1, 2, 1]
// B-NEXT: {{\[\[\[\[}}-1.647],
// B-NEXT:    [1.647]]]]
// B-NEXT: result3: f16 [1, 1, 2, 1]
// B-NEXT: {{\[\[\[\[}}0.5],
// B-NEXT:    [1.5]]]]
