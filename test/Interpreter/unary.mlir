// Pointwise unary ops: computed in f64, rounded once to the result type.
// RUN: stride-run %s --reference --entry=floats --print | FileCheck %s --check-prefix=F
// RUN: stride-run %s --reference --entry=positive --print | FileCheck %s --check-prefix=P
// RUN: stride-run %s --reference --entry=ints --print | FileCheck %s --check-prefix=I
// RUN: stride-run %s --reference --entry=gelu_tanh --print | FileCheck %s --check-prefix=G
// RUN: stride-run %s --reference --entry=erf --print | FileCheck %s --check-prefix=ERF

func.func @floats() -> (!stride.tensor<5xf32>, !stride.tensor<5xf32>,
    !stride.tensor<5xf32>, !stride.tensor<5xf32>, !stride.tensor<5xf32>,
    !stride.tensor<5xf32>, !stride.tensor<5xf32>, !stride.tensor<5xf32>,
    !stride.tensor<5xf32>) {
  %x = stride.constant dense<[-2.0, -0.5, 0.0, 1.0, 0x7FC00000]> : tensor<5xf32>
      : !stride.tensor<5xf32>
  %neg = stride.neg %x : !stride.tensor<5xf32> -> !stride.tensor<5xf32>
  %abs = stride.abs %x : !stride.tensor<5xf32> -> !stride.tensor<5xf32>
  %relu = stride.relu %x : !stride.tensor<5xf32> -> !stride.tensor<5xf32>
  %exp = stride.exp %x : !stride.tensor<5xf32> -> !stride.tensor<5xf32>
  %tanh = stride.tanh %x : !stride.tensor<5xf32> -> !stride.tensor<5xf32>
  %sigmoid = stride.sigmoid %x : !stride.tensor<5xf32> -> !stride.tensor<5xf32>
  %gelu = stride.gelu %x : !stride.tensor<5xf32> -> !stride.tensor<5xf32>
  %sin = stride.sin %x : !stride.tensor<5xf32> -> !stride.tensor<5xf32>
  %cos = stride.cos %x : !stride.tensor<5xf32> -> !stride.tensor<5xf32>
  return %neg, %abs, %relu, %exp, %tanh, %sigmoid, %gelu, %sin, %cos
      : !stride.tensor<5xf32>, !stride.tensor<5xf32>, !stride.tensor<5xf32>,
        !stride.tensor<5xf32>, !stride.tensor<5xf32>, !stride.tensor<5xf32>,
        !stride.tensor<5xf32>, !stride.tensor<5xf32>, !stride.tensor<5xf32>
}

func.func @positive() -> (!stride.tensor<4xf64>, !stride.tensor<4xf64>,
                          !stride.tensor<4xf64>) {
  %x = stride.constant dense<[0.25, 1.0, 4.0, 0.0]> : tensor<4xf64>
      : !stride.tensor<4xf64>
  %log = stride.log %x : !stride.tensor<4xf64> -> !stride.tensor<4xf64>
  %sqrt = stride.sqrt %x : !stride.tensor<4xf64> -> !stride.tensor<4xf64>
  %rsqrt = stride.rsqrt %x : !stride.tensor<4xf64> -> !stride.tensor<4xf64>
  return %log, %sqrt, %rsqrt
      : !stride.tensor<4xf64>, !stride.tensor<4xf64>, !stride.tensor<4xf64>
}

func.func @ints() -> (!stride.tensor<4xi32>, !stride.tensor<4xi32>,
    !stride.tensor<4xi32>, !stride.tensor<4xi32>, !stride.tensor<2xi1>,
    !stride.tensor<3xi8>) {
  %x = stride.constant dense<[-3, 0, 5, -2147483648]> : tensor<4xi32>
      : !stride.tensor<4xi32>
  %neg = stride.neg %x : !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %abs = stride.abs %x : !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %relu = stride.relu %x : !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %not = stride.not %x : !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %b = stride.constant dense<[true, false]> : tensor<2xi1> : !stride.tensor<2xi1>
  %lnot = stride.not %b : !stride.tensor<2xi1> -> !stride.tensor<2xi1>
  %y = stride.constant dense<[-128, 127, 7]> : tensor<3xi8> : !stride.tensor<3xi8>
  %negy = stride.neg %y : !stride.tensor<3xi8> -> !stride.tensor<3xi8>
  return %neg, %abs, %relu, %not, %lnot, %negy
      : !stride.tensor<4xi32>, !stride.tensor<4xi32>, !stride.tensor<4xi32>,
        !stride.tensor<4xi32>, !stride.tensor<2xi1>, !stride.tensor<3xi8>
}

// F: result0: f32 [5]
// F-NEXT: [2, 0.5, -0, -1, nan]
// F-NEXT: result1: f32 [5]
// F-NEXT: [2, 0.5, 0, 1, nan]
// F-NEXT: result2: f32 [5]
// F-NEXT: [0, 0, 0, 1, nan]
// F-NEXT: result3: f32 [5]
// F-NEXT: [0.13533528, 0.60653067, 1, 2.7182817, nan]
// F-NEXT: result4: f32 [5]
// F-NEXT: [-0.9640276, -0.46211717, 0, 0.7615942, nan]
// F-NEXT: result5: f32 [5]
// F-NEXT: [0.11920292, 0.37754068, 0.5, 0.7310586, nan]
// F-NEXT: result6: f32 [5]
// F-NEXT: [-0.045500264, -0.15426877, 0, 0.8413448, nan]
// F-NEXT: result7: f32 [5]
// F-NEXT: [-0.9092974, -0.47942555, 0, 0.84147096, nan]
// F-NEXT: result8: f32 [5]
// F-NEXT: [-0.41614684, 0.87758255, 1, 0.5403023, nan]

// P: result0: f64 [4]
// P-NEXT: [-1.3862943611198906, 0, 1.3862943611198906, -inf]
// P-NEXT: result1: f64 [4]
// P-NEXT: [0.5, 1, 2, 0]
// P-NEXT: result2: f64 [4]
// P-NEXT: [2, 1, 0.5, inf]

// I: result0: i32 [4]
// I-NEXT: [3, 0, -5, -2147483648]
// I-NEXT: result1: i32 [4]
// I-NEXT: [3, 0, 5, -2147483648]
// I-NEXT: result2: i32 [4]
// I-NEXT: [0, 0, 5, 0]
// I-NEXT: result3: i32 [4]
// I-NEXT: [2, -1, -6, 2147483647]
// I-NEXT: result4: i1 [2]
// I-NEXT: [false, true]
// I-NEXT: result5: i8 [3]
// I-NEXT: [-128, -127, -7]

// GELU's tanh approximation (torch's approximate='tanh'), next to the exact
// erf form: gelu(1) = 0.8413447, gelu_tanh(1) = 0.841192.
func.func @gelu_tanh() -> !stride.tensor<5xf32> {
  %x = stride.constant dense<[-2.0, -0.5, 0.0, 1.0, 0x7FC00000]> : tensor<5xf32>
      : !stride.tensor<5xf32>
  %g = stride.gelu_tanh %x : !stride.tensor<5xf32> -> !stride.tensor<5xf32>
  return %g : !stride.tensor<5xf32>
}
// G: result0: f32 [5]
// G-NEXT: [-0.045402307, -0.154286, 0, 0.841192, nan]

// torch.erf (as std::erf in f64, rounded to the result type): erf(-x) =
// -erf(x), erf(0.5) = 0.5204999, erf(1) = 0.8427008, erf(2) = 0.9953223,
// erf(+-inf) = +-1.
func.func @erf() -> (!stride.tensor<7xf32>, !stride.tensor<2xf64>) {
  %x = stride.constant dense<[-2.0, -0.5, 0.0, 1.0, 0x7F800000, 0xFF800000, 0x7FC00000]>
      : tensor<7xf32> : !stride.tensor<7xf32>
  %e = stride.erf %x : !stride.tensor<7xf32> -> !stride.tensor<7xf32>
  %y = stride.constant dense<[0.5, 3.0]> : tensor<2xf64> : !stride.tensor<2xf64>
  %ey = stride.erf %y : !stride.tensor<2xf64> -> !stride.tensor<2xf64>
  return %e, %ey : !stride.tensor<7xf32>, !stride.tensor<2xf64>
}
// ERF: result0: f32 [7]
// ERF-NEXT: [-0.9953223, -0.5204999, 0, 0.8427008, 1, -1, nan]
// ERF-NEXT: result1: f64 [2]
// ERF-NEXT: [0.5204998778130465, 0.9999779095030014]
