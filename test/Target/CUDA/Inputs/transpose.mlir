// x read transposed (innermost stride 64) plus z read contiguously.
func.func @transpose_add(%x: !stride.tensor<64x64xf32>, %z: !stride.tensor<64x64xf32>)
    -> !stride.tensor<64x64xf32> {
  %t = stride.permute %x dims [1, 0] : !stride.tensor<64x64xf32>
      -> !stride.tensor<64x64xf32, strides = [1, 64], offset = 0>
  %y = stride.add %t, %z : !stride.tensor<64x64xf32, strides = [1, 64], offset = 0>,
      !stride.tensor<64x64xf32> -> !stride.tensor<64x64xf32>
  return %y : !stride.tensor<64x64xf32>
}
