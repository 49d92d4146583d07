// stride-schedule-kernels over a symbolic row count
// (python-free-docs/symbolic-sizes.md, "Kernels with size arguments"): the
// row form of the static row length, the launch over the rows (elements,
// per_block), its grid at the largest count; no split; a cluster's rows
// counted in blocks. A reduction over a dim of symbolic size is refused at
// the op (stride-check-symbolic-sizes refuses it first in the pipeline).
// RUN: stride-opt %s --stride-fuse --stride-outline-kernels --stride-schedule-kernels -split-input-file -verify-diagnostics | FileCheck %s

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

func.func @symbolic_row(%x: !stride.tensor<[batch, 768], f32>) -> !stride.tensor<1x768xf32>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 1024]>]} {
  // expected-error @+1 {{cannot emit CUDA for kernel 'sum_kernel': 'stride.sum' reduces dim 0 of symbolic size batch; reductions over symbolic sizes reduce rows of static length}}
  %s = stride.sum %x dims [0] keepdim : !stride.tensor<[batch, 768], f32> -> !stride.tensor<1x768xf32>
  return %s : !stride.tensor<1x768xf32>
}
