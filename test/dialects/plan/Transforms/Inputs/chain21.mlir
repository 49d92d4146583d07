// A chain of 21 pointwise ops: unfused, 21 kernels, 20 temporaries.
func.func @chain(%x: !stride.tensor<64x64xf32>) -> !stride.tensor<64x64xf32> {
  %v0 = stride.neg %x : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v1 = stride.exp %v0 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v2 = stride.neg %v1 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v3 = stride.exp %v2 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v4 = stride.neg %v3 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v5 = stride.exp %v4 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v6 = stride.neg %v5 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v7 = stride.exp %v6 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v8 = stride.neg %v7 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v9 = stride.exp %v8 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v10 = stride.neg %v9 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v11 = stride.exp %v10 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v12 = stride.neg %v11 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v13 = stride.exp %v12 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v14 = stride.neg %v13 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v15 = stride.exp %v14 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v16 = stride.neg %v15 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v17 = stride.exp %v16 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v18 = stride.neg %v17 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v19 = stride.exp %v18 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  %v20 = stride.neg %v19 : !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  return %v20 : !stride.tensor<64x64xf32>
}
