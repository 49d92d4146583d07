// stride-schedule-kernels over a symbolic row count
// (python-free-docs/symbolic-sizes.md, "Kernels with size arguments"): the
// row form of the static row length, the launch over the rows (elements,
// per_block), its grid at the largest count; no split; a cluster's rows
// counted in blocks; rows of symbolic length re-read.
// RUN: stride-opt %s --stride-fuse --stride-outline-kernels --stride-schedule-kernels -split-input-file | FileCheck %s

// Softmax over rows of 64, two rows a warp: 16 rows a block.
// CHECK-LABEL: func.func @softmax
// CHECK: #stride.schedule<scheme = row_registers, index_bits = 64, vector_width = 4, threads = 16, elements_per_thread = 4, launches = [#stride.launch<grid = 64, block = 256, elements = <rows>, per_block = 16>]>
func.func @softmax(%x: !stride.tensor<[rows, 64], f32>) -> !stride.tensor<[rows, 64], f32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 1024]>]} {
  %m = stride.max %x dims [1] keepdim : !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 1], f32>
  %mb = stride.expand %m : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 64], f32, strides = [1, 0]>
  %d = stride.sub %x, %mb : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32, strides = [1, 0]> -> !stride.tensor<[rows, 64], f32>
  %e = stride.exp %d : !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 64], f32>
  %s = stride.sum %e dims [1] keepdim : !stride.tensor<[rows, 64], f32> -> !stride.tensor<[rows, 1], f32>
  %sb = stride.expand %s : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 64], f32, strides = [1, 0]>
  %y = stride.div %e, %sb : !stride.tensor<[rows, 64], f32>, !stride.tensor<[rows, 64], f32, strides = [1, 0]> -> !stride.tensor<[rows, 64], f32>
  return %y : !stride.tensor<[rows, 64], f32>
}

// -----

// The sum over rows of 65536 at batch 1 would split across blocks
// (reduction_split); over a symbolic count it takes a block per output.
// CHECK-LABEL: func.func @full_rows
// CHECK: #stride.schedule<scheme = reduction_inner, index_bits = 64, vector_width = 4, threads = 1024, launches = [#stride.launch<grid = 4, block = 1024, elements = <batch>>]>
func.func @full_rows(%x: !stride.tensor<[batch, 65536], f32>) -> !stride.tensor<[batch], f32>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 4]>]} {
  %s = stride.sum %x dims [1] : !stride.tensor<[batch, 65536], f32> -> !stride.tensor<[batch], f32>
  return %s : !stride.tensor<[batch], f32>
}

// -----

// Softmax over rows of 40000 on clusters of 5 blocks: the grid at run time
// is the rows times 5 blocks.
// CHECK-LABEL: func.func @cluster_rows
// CHECK: cluster_blocks = 5
// CHECK-SAME: launches = [#stride.launch<grid = 40, block = 512, elements = <rows*5>>]
func.func @cluster_rows(%x: !stride.tensor<[rows, 40000], f32>) -> !stride.tensor<[rows, 40000], f32>
    attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 8]>]} {
  %m = stride.max %x dims [1] keepdim : !stride.tensor<[rows, 40000], f32> -> !stride.tensor<[rows, 1], f32>
  %mb = stride.expand %m : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 40000], f32, strides = [1, 0]>
  %d = stride.sub %x, %mb : !stride.tensor<[rows, 40000], f32>, !stride.tensor<[rows, 40000], f32, strides = [1, 0]> -> !stride.tensor<[rows, 40000], f32>
  %e = stride.exp %d : !stride.tensor<[rows, 40000], f32> -> !stride.tensor<[rows, 40000], f32>
  %s = stride.sum %e dims [1] keepdim : !stride.tensor<[rows, 40000], f32> -> !stride.tensor<[rows, 1], f32>
  %sb = stride.expand %s : !stride.tensor<[rows, 1], f32> -> !stride.tensor<[rows, 40000], f32, strides = [1, 0]>
  %y = stride.div %e, %sb : !stride.tensor<[rows, 40000], f32>, !stride.tensor<[rows, 40000], f32, strides = [1, 0]> -> !stride.tensor<[rows, 40000], f32>
  return %y : !stride.tensor<[rows, 40000], f32>
}

// -----

// Softmax over rows of symbolic length: re-read, the threads chosen at the
// largest length (4096: 128 threads, 32 elements each).
// CHECK-LABEL: func.func @row_length
// CHECK: #stride.schedule<scheme = row_reread, index_bits = 64, threads = 128, elements_per_thread = 32, launches = [#stride.launch<grid = 16, block = 128, elements = <batch>>]>
func.func @row_length(%x: !stride.tensor<[batch, seq], f32>) -> !stride.tensor<[batch, seq], f32>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 16]>,
                                  #stride.symbol<"seq", range = [1, 4096]>]} {
  %m = stride.max %x dims [1] keepdim : !stride.tensor<[batch, seq], f32> -> !stride.tensor<[batch, 1], f32>
  %mb = stride.expand %m : !stride.tensor<[batch, 1], f32> -> !stride.tensor<[batch, seq], f32, strides = [1, 0]>
  %d = stride.sub %x, %mb : !stride.tensor<[batch, seq], f32>, !stride.tensor<[batch, seq], f32, strides = [1, 0]> -> !stride.tensor<[batch, seq], f32>
  %e = stride.exp %d : !stride.tensor<[batch, seq], f32> -> !stride.tensor<[batch, seq], f32>
  %s = stride.sum %e dims [1] keepdim : !stride.tensor<[batch, seq], f32> -> !stride.tensor<[batch, 1], f32>
  %sb = stride.expand %s : !stride.tensor<[batch, 1], f32> -> !stride.tensor<[batch, seq], f32, strides = [1, 0]>
  %y = stride.div %e, %sb : !stride.tensor<[batch, seq], f32>, !stride.tensor<[batch, seq], f32, strides = [1, 0]> -> !stride.tensor<[batch, seq], f32>
  return %y : !stride.tensor<[batch, seq], f32>
}

// -----

// A sum over a symbolic length to static outputs (an outer reduction): the
// outputs' launch is static, never split, no 4-element groups.
// CHECK-LABEL: func.func @column_sums
// CHECK: #stride.schedule<scheme = reduction_outer, index_bits = 64, threads = 1, slices = 32, launches = [#stride.launch<grid = 24, block = 32, block_y = 32>]>
func.func @column_sums(%x: !stride.tensor<[batch, 768], f32>) -> !stride.tensor<1x768xf32>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 1024]>]} {
  %s = stride.sum %x dims [0] keepdim : !stride.tensor<[batch, 768], f32> -> !stride.tensor<1x768xf32>
  return %s : !stride.tensor<1x768xf32>
}
