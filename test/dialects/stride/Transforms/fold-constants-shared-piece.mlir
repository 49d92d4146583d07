// stride-fold-constants on a concatenation whose first piece is a constant
// another op also reads (Passes.td; a tied embedding padded with zero rows
// for the library, as stride-matmul-layout pads GPT-2's LM head over
// symbolic tokens): the folded concatenation replaces the constant, whose
// other readers read its first piece, a slice of it. The module grows by
// the zero rows only (32 bytes here, within a bound of 40; without the
// rule it would grow by 128 bytes and keep both). Bit for bit what the
// unfolded module computes, on the interpreter.
// RUN: stride-opt %s "--stride-fold-constants=max-growth-bytes=40" | FileCheck %s
// RUN: stride-opt %s "--stride-fold-constants=max-growth-bytes=31" | FileCheck %s --check-prefix=TIGHT
// RUN: rm -rf %t && mkdir -p %t
// RUN: stride-opt %s "--stride-fold-constants=max-growth-bytes=40" -o %t/folded.mlir
// RUN: stride-run %s --reference --entry=tied_padded --random-inputs --seed 2 --output-dir %t/unfolded
// RUN: stride-run %t/folded.mlir --reference --entry=tied_padded --random-inputs --seed 2 --expect %t/unfolded --rtol 0 | FileCheck %s --check-prefix=SAME

// CHECK-LABEL: func.func @tied_padded
// CHECK-NEXT: %[[P:.*]] = stride.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], {{.*}}, [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<8x4xf32> : <8x4xf32, strides = [4, 1], offset = 0>
// CHECK-NEXT: %[[W:.*]] = stride.slice %[[P]] dim 0 start 0 end 6 step 1 : <8x4xf32, strides = [4, 1], offset = 0> -> <6x4xf32, strides = [4, 1], offset = 0>
// CHECK-NEXT: %[[E:.*]] = stride.index_select %[[W]], %arg0 dim 0
// CHECK-NEXT: %[[T:.*]] = stride.permute %[[P]] dims [1, 0]
// CHECK-NEXT: return %[[E]], %[[T]]
// TIGHT-LABEL: func.func @tied_padded
// TIGHT: stride.cat
// SAME-COUNT-2: match
func.func @tied_padded(%idx: !stride.tensor<3xi64>)
    -> (!stride.tensor<3x4xf32>, !stride.tensor<4x8xf32, strides = [1, 4], offset = 0>) {
  %w = stride.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0],
      [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0],
      [17.0, 18.0, 19.0, 20.0], [21.0, 22.0, 23.0, 24.0]]> : tensor<6x4xf32> : !stride.tensor<6x4xf32>
  %e = stride.index_select %w, %idx dim 0 : !stride.tensor<6x4xf32>, !stride.tensor<3xi64> -> !stride.tensor<3x4xf32>
  // The weight read transposed, padded in its memory's orientation and
  // permuted back (MatmulLayout.cpp, padWithZeros).
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<6x4xf32> -> !stride.tensor<4x6xf32, strides = [1, 4], offset = 0>
  %rows = stride.permute %wt dims [1, 0] : !stride.tensor<4x6xf32, strides = [1, 4], offset = 0> -> !stride.tensor<6x4xf32>
  %z = stride.full 0.0 : !stride.tensor<2x4xf32>
  %p = stride.cat %rows, %z dim 0 : !stride.tensor<6x4xf32>, !stride.tensor<2x4xf32> -> !stride.tensor<8x4xf32>
  %pt = stride.permute %p dims [1, 0] : !stride.tensor<8x4xf32> -> !stride.tensor<4x8xf32, strides = [1, 4], offset = 0>
  return %e, %pt : !stride.tensor<3x4xf32>, !stride.tensor<4x8xf32, strides = [1, 4], offset = 0>
}
