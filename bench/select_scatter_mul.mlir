// select_scatter_mul: select_scatter(x[4096,16,4096], row[4096,4096], dim 1, index 3) * 0.5.
// Minimal bytes: x except the replaced index (15/16 of 1 GiB), row (64 MiB),
// write 1 GiB = 1,006,632,960 + 67,108,864 + 1,073,741,824 = 2,147,483,648 bytes.
func.func @select_scatter_mul(%x: !stride.tensor<4096x16x4096xf32>, %row: !stride.tensor<4096x4096xf32>)
    -> !stride.tensor<4096x16x4096xf32> {
  %s = stride.select_scatter %x, %row dim 1 index 3
      : !stride.tensor<4096x16x4096xf32>, !stride.tensor<4096x4096xf32>
      -> !stride.tensor<4096x16x4096xf32>
  %h = stride.full 0.5 : !stride.tensor<4096x16x4096xf32>
  %y = stride.mul %s, %h : !stride.tensor<4096x16x4096xf32>, !stride.tensor<4096x16x4096xf32>
      -> !stride.tensor<4096x16x4096xf32>
  return %y : !stride.tensor<4096x16x4096xf32>
}
