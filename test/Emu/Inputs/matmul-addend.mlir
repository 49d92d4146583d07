// Residual adds that stride-fuse folds into the product as its addend
// (cuBLASLt's C, read with the product's layout), in f32: relu(x w + b + r),
// and a batched product whose residual is another product's result, both
// returned. ResNet's bottleneck end is matmul-addend-bf16.mlir.
func.func @addends(%x: !stride.tensor<6x16xf32> {stride.name = "x"},
                   %w: !stride.tensor<16x12xf32> {stride.name = "w"},
                   %b: !stride.tensor<12xf32> {stride.name = "b"},
                   %r: !stride.tensor<6x12xf32> {stride.name = "r"},
                   %u: !stride.tensor<3x5x8xf32> {stride.name = "u"},
                   %v: !stride.tensor<3x8x4xf32> {stride.name = "v"})
    -> (!stride.tensor<6x12xf32>, !stride.tensor<3x5x4xf32>,
        !stride.tensor<3x5x4xf32>) {
  %p = stride.matmul %x, %w : !stride.tensor<6x16xf32>, !stride.tensor<16x12xf32>
      -> !stride.tensor<6x12xf32>
  %be = stride.expand %b : !stride.tensor<12xf32>
      -> !stride.tensor<6x12xf32, strides = [0, 1], offset = 0>
  %pb = stride.add %p, %be : !stride.tensor<6x12xf32>,
      !stride.tensor<6x12xf32, strides = [0, 1], offset = 0> -> !stride.tensor<6x12xf32>
  %pr = stride.add %pb, %r : !stride.tensor<6x12xf32>, !stride.tensor<6x12xf32>
      -> !stride.tensor<6x12xf32>
  %pa = stride.relu %pr : !stride.tensor<6x12xf32> -> !stride.tensor<6x12xf32>
  %q = stride.matmul %u, %v : !stride.tensor<3x5x8xf32>, !stride.tensor<3x8x4xf32>
      -> !stride.tensor<3x5x4xf32>
  %q2 = stride.matmul %u, %v : !stride.tensor<3x5x8xf32>, !stride.tensor<3x8x4xf32>
      -> !stride.tensor<3x5x4xf32>
  %qs = stride.add %q2, %q : !stride.tensor<3x5x4xf32>, !stride.tensor<3x5x4xf32>
      -> !stride.tensor<3x5x4xf32>
  return %pa, %q, %qs : !stride.tensor<6x12xf32>, !stride.tensor<3x5x4xf32>,
      !stride.tensor<3x5x4xf32>
}
