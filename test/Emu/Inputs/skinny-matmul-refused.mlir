// A product of one row that the skinny product kernel refuses: its weight
// is row-major [K, N] (its K elements N apart), which the kernel would read
// down columns; it stays a cuBLASLt call (python-free-docs/matmul.md,
// "Skinny products").
func.func @refused(%x: !stride.tensor<1x40xf32> {stride.name = "x"},
                   %w: !stride.tensor<40x24xf32> {stride.name = "w"})
    -> !stride.tensor<1x24xf32> {
  %p = stride.matmul %x, %w : !stride.tensor<1x40xf32>, !stride.tensor<40x24xf32>
      -> !stride.tensor<1x24xf32>
  return %p : !stride.tensor<1x24xf32>
}
