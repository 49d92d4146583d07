// Row-parallel products, each all-reduced: split by
// stride-chunk-collectives where it may (chunk-collectives.mlir).

// 8 rows: two chunks of 4.
func.func @even(%x: !stride.tensor<8x4xf32>, %w: !stride.tensor<4x16xf32>) -> !stride.tensor<8x16xf32> {
  %p = stride.matmul %x, %w : !stride.tensor<8x4xf32>, !stride.tensor<4x16xf32> -> !stride.tensor<8x16xf32>
  %r = stride.all_reduce %p sum world_size 2 : !stride.tensor<8x16xf32> -> !stride.tensor<8x16xf32>
  %y = stride.add %r, %r : !stride.tensor<8x16xf32>, !stride.tensor<8x16xf32> -> !stride.tensor<8x16xf32>
  return %y : !stride.tensor<8x16xf32>
}

// 9 rows: 4, then the other 5; a max all-reduce of a transposed weight.
func.func @uneven(%x: !stride.tensor<9x4xf32>, %w: !stride.tensor<16x4xf32>) -> !stride.tensor<9x16xf32> {
  %t = stride.permute %w dims [1, 0] : !stride.tensor<16x4xf32> -> !stride.tensor<4x16xf32, strides = [1, 4], offset = 0>
  %p = stride.matmul %x, %t : !stride.tensor<9x4xf32>, !stride.tensor<4x16xf32, strides = [1, 4], offset = 0> -> !stride.tensor<9x16xf32>
  %r = stride.all_reduce %p max world_size 2 : !stride.tensor<9x16xf32> -> !stride.tensor<9x16xf32>
  return %r : !stride.tensor<9x16xf32>
}

// Left alone: too few rows; a product read by more than its all-reduce; a
// batched product.
func.func @kept(%x: !stride.tensor<2x4xf32>, %w: !stride.tensor<4x16xf32>,
                %y: !stride.tensor<8x4xf32>, %b: !stride.tensor<2x8x4xf32>,
                %bw: !stride.tensor<2x4x16xf32>)
    -> (!stride.tensor<2x16xf32>, !stride.tensor<8x16xf32>, !stride.tensor<8x16xf32>, !stride.tensor<2x8x16xf32>) {
  %p = stride.matmul %x, %w : !stride.tensor<2x4xf32>, !stride.tensor<4x16xf32> -> !stride.tensor<2x16xf32>
  %r = stride.all_reduce %p sum world_size 2 : !stride.tensor<2x16xf32> -> !stride.tensor<2x16xf32>
  %q = stride.matmul %y, %w : !stride.tensor<8x4xf32>, !stride.tensor<4x16xf32> -> !stride.tensor<8x16xf32>
  %s = stride.all_reduce %q sum world_size 2 : !stride.tensor<8x16xf32> -> !stride.tensor<8x16xf32>
  %bp = stride.matmul %b, %bw : !stride.tensor<2x8x4xf32>, !stride.tensor<2x4x16xf32> -> !stride.tensor<2x8x16xf32>
  %br = stride.all_reduce %bp sum world_size 2 : !stride.tensor<2x8x16xf32> -> !stride.tensor<2x8x16xf32>
  return %r, %s, %q, %br : !stride.tensor<2x16xf32>, !stride.tensor<8x16xf32>, !stride.tensor<8x16xf32>, !stride.tensor<2x8x16xf32>
}
