// index_add: zeros[65536, 1024].index_add(0, idx[65536] random, src[65536, 1024]).
// Minimal bytes: read src (256 MiB) and idx (512 KiB), write 256 MiB
//   = 2 x 268,435,456 + 524,288 = 537,395,200 bytes.
func.func @index_add(%idx: !stride.tensor<65536xi64>, %src: !stride.tensor<65536x1024xf32>)
    -> !stride.tensor<65536x1024xf32> {
  %z = stride.full 0.0 : !stride.tensor<65536x1024xf32>
  %r = stride.index_add %z, %idx, %src dim 0
      : !stride.tensor<65536x1024xf32>, !stride.tensor<65536xi64>, !stride.tensor<65536x1024xf32>
      -> !stride.tensor<65536x1024xf32>
  return %r : !stride.tensor<65536x1024xf32>
}
