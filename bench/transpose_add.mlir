// transpose_add: permute(x[64,1024,1024], (0,2,1)) * 2 + z.
// Minimal bytes: read x and z (2 x 256 MiB), write 256 MiB = 805,306,368 bytes.
func.func @transpose_add(%x: !stride.tensor<64x1024x1024xf32>, %z: !stride.tensor<64x1024x1024xf32>)
    -> !stride.tensor<64x1024x1024xf32> {
  %t = stride.permute %x dims [0, 2, 1] : !stride.tensor<64x1024x1024xf32>
      -> !stride.tensor<64x1024x1024xf32, strides = [1048576, 1, 1024]>
  %two = stride.full 2.0 : !stride.tensor<64x1024x1024xf32>
  %m = stride.mul %t, %two : !stride.tensor<64x1024x1024xf32, strides = [1048576, 1, 1024]>,
      !stride.tensor<64x1024x1024xf32> -> !stride.tensor<64x1024x1024xf32>
  %y = stride.add %m, %z : !stride.tensor<64x1024x1024xf32>, !stride.tensor<64x1024x1024xf32>
      -> !stride.tensor<64x1024x1024xf32>
  return %y : !stride.tensor<64x1024x1024xf32>
}
