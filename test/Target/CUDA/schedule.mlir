// Each decision of stride-schedule-kernels, one case each: the scheme of
// every kernel form, vector width, tile, threads, index width, launches and
// scratch, and the pass options (arch, multiprocessors, vectorize).
// decode-attention=split-kv: the bf16 decode step of @split_kv, which auto
// gives to cuDNN, runs as the split-KV kernel here.
// RUN: stride-opt --stride-pipeline='form-kernels decode-attention=split-kv' --stride-schedule-kernels -split-input-file %s | FileCheck %s
// RUN: stride-opt --stride-pipeline=form-kernels --stride-schedule-kernels="arch=sm_80" -split-input-file %s | FileCheck %s --check-prefix=SM80
// RUN: stride-opt --stride-pipeline=form-kernels --stride-schedule-kernels="arch=sm_120" -split-input-file %s | FileCheck %s --check-prefix=SM120
// RUN: stride-opt --stride-pipeline=form-kernels --stride-schedule-kernels="multiprocessors=2" -split-input-file %s | FileCheck %s --check-prefix=MP2
// RUN: stride-opt --stride-pipeline=form-kernels --stride-schedule-kernels="vectorize=false" -split-input-file %s | FileCheck %s --check-prefix=SCALAR
// RUN: stride-opt --stride-pipeline='form-kernels skinny-prologue' --stride-schedule-kernels -split-input-file %s | FileCheck %s --check-prefix=PROLOGUE
// RUN: stride-opt --stride-pipeline=form-kernels --stride-schedule-kernels="skinny-column-warps=1" -split-input-file %s | FileCheck %s --check-prefix=WARP

// Innermost dim not a multiple of 4: one element per thread and step; 15
// elements, one block of 256.
// CHECK-LABEL: func.func @grid_stride
// CHECK: stride.schedule = #stride.schedule<scheme = grid_stride, index_bits = 32, launches = [#stride.launch<grid = 1, block = 256>]>
func.func @grid_stride(%a: !stride.tensor<3x5xf32>) -> !stride.tensor<3x5xf32> {
  %r = stride.exp %a : !stride.tensor<3x5xf32> -> !stride.tensor<3x5xf32>
  return %r : !stride.tensor<3x5xf32>
}

// -----

// Innermost dim a multiple of 4: 4 elements per thread; 4194304 elements
// are 4096 blocks' worth of quads (the cap, 16 waves of 2048 threads on
// each multiprocessor, is 8448 blocks on 132 multiprocessors, 256 on 2).
// CHECK-LABEL: func.func @vectorized
// CHECK: stride.schedule = #stride.schedule<scheme = vectorized, index_bits = 32, vector_width = 4, launches = [#stride.launch<grid = 4096, block = 256>]>
// MP2-LABEL: func.func @vectorized
// MP2: launches = [#stride.launch<grid = 256, block = 256>]
// SCALAR-LABEL: func.func @vectorized
// SCALAR: #stride.schedule<scheme = grid_stride, index_bits = 32, launches = [#stride.launch<grid = 16384, block = 256>]>
func.func @vectorized(%a: !stride.tensor<2048x2048xf32>) -> !stride.tensor<2048x2048xf32> {
  %r = stride.exp %a : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  return %r : !stride.tensor<2048x2048xf32>
}

// -----

// The same shape in a kernel of 17 ops (more than kMaxVectorizedOps, 16):
// bound by arithmetic, one element per thread and step (16384 blocks).
// CHECK-LABEL: func.func @many_ops_not_vectorized
// CHECK: #stride.schedule<scheme = grid_stride, index_bits = 32, launches = [#stride.launch<grid = 16384, block = 256>]>
func.func @many_ops_not_vectorized(%a: !stride.tensor<2048x2048xf32>) -> !stride.tensor<2048x2048xf32> {
  %t0 = stride.exp %a : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t1 = stride.tanh %t0 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t2 = stride.exp %t1 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t3 = stride.tanh %t2 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t4 = stride.exp %t3 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t5 = stride.tanh %t4 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t6 = stride.exp %t5 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t7 = stride.tanh %t6 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t8 = stride.exp %t7 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t9 = stride.tanh %t8 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t10 = stride.exp %t9 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t11 = stride.tanh %t10 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t12 = stride.exp %t11 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t13 = stride.tanh %t12 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t14 = stride.exp %t13 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t15 = stride.tanh %t14 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  %t16 = stride.exp %t15 : !stride.tensor<2048x2048xf32> -> !stride.tensor<2048x2048xf32>
  return %t16 : !stride.tensor<2048x2048xf32>
}

// -----

// A transposed read (innermost stride 64, stride 1 along dim 0) is staged
// through 64x64 tiles, 4 elements per load; the contiguous read is not.
// One block per tile.
// CHECK-LABEL: func.func @tiled_transpose
// CHECK: #stride.schedule<scheme = tiled_transpose, index_bits = 32, vector_width = 4, tile = 64, transpose_dim = 0, staged = [#stride.staged<arg = 0, type = <128x64xf32, strides = [1, 128], offset = 0>, vector_width = 4>], launches = [#stride.launch<grid = 2, block = 256>]>
// SCALAR-LABEL: func.func @tiled_transpose
// SCALAR: #stride.schedule<scheme = tiled_transpose, index_bits = 32, tile = 64, transpose_dim = 0, staged = [#stride.staged<arg = 0, type = <128x64xf32, strides = [1, 128], offset = 0>>]
func.func @tiled_transpose(%x: !stride.tensor<64x128xf32>, %z: !stride.tensor<128x64xf32>)
    -> !stride.tensor<128x64xf32> {
  %t = stride.permute %x dims [1, 0] : !stride.tensor<64x128xf32>
      -> !stride.tensor<128x64xf32, strides = [1, 128], offset = 0>
  %y = stride.add %t, %z : !stride.tensor<128x64xf32, strides = [1, 128], offset = 0>,
      !stride.tensor<128x64xf32> -> !stride.tensor<128x64xf32>
  return %y : !stride.tensor<128x64xf32>
}

// -----

// The innermost dim is reduced: 32 threads per output over 1000 elements,
// 4 at a time (1000 holds whole groups of 4), 8 outputs per block of 256.
// CHECK-LABEL: func.func @reduction_inner(
// CHECK: #stride.schedule<scheme = reduction_inner, index_bits = 32, vector_width = 4, threads = 32, launches = [#stride.launch<grid = 125, block = 256>]>
// SCALAR-LABEL: func.func @reduction_inner
// SCALAR: #stride.schedule<scheme = reduction_inner, index_bits = 32, threads = 32, launches = [#stride.launch<grid = 125, block = 256>]>
func.func @reduction_inner(%a: !stride.tensor<1000x1000xf32>) -> !stride.tensor<1000xf32> {
  %r = stride.sum %a dims [1] : !stride.tensor<1000x1000xf32> -> !stride.tensor<1000xf32>
  return %r : !stride.tensor<1000xf32>
}

// -----

// Rows of 100 elements in groups of 4: 25 loads per row, one per lane of
// a warp in f32; in bf16 (8-byte loads) about 4 per lane, 8 lanes per
// row, 4 rows per warp; rows of 99 elements are read one element per
// load, a warp per row.
// CHECK-LABEL: func.func @reduction_inner_fours(
// CHECK: #stride.schedule<scheme = reduction_inner, index_bits = 32, vector_width = 4, threads = 32, launches = [#stride.launch<grid = 1056, block = 256>]>
// CHECK-LABEL: func.func @reduction_inner_fours_bf16
// CHECK: #stride.schedule<scheme = reduction_inner, index_bits = 32, vector_width = 4, threads = 8, launches = [#stride.launch<grid = 1056, block = 256>]>
// CHECK-LABEL: func.func @reduction_inner_odd
// CHECK: #stride.schedule<scheme = reduction_inner, index_bits = 32, threads = 32, launches = [#stride.launch<grid = 1056, block = 256>]>
func.func @reduction_inner_fours(%a: !stride.tensor<65536x100xf32>) -> !stride.tensor<65536xf32> {
  %r = stride.sum %a dims [1] : !stride.tensor<65536x100xf32> -> !stride.tensor<65536xf32>
  return %r : !stride.tensor<65536xf32>
}
func.func @reduction_inner_fours_bf16(%a: !stride.tensor<65536x100xbf16>) -> !stride.tensor<65536xbf16> {
  %r = stride.sum %a dims [1] : !stride.tensor<65536x100xbf16> -> !stride.tensor<65536xbf16>
  return %r : !stride.tensor<65536xbf16>
}
func.func @reduction_inner_odd(%a: !stride.tensor<65536x99xf32>) -> !stride.tensor<65536xf32> {
  %r = stride.sum %a dims [1] : !stride.tensor<65536x99xf32> -> !stride.tensor<65536xf32>
  return %r : !stride.tensor<65536xf32>
}

// -----

// Few outputs and long rows: a block of 256 threads per output, 4-element
// loads (too few elements to split: 5000, one slice of 4096).
// CHECK-LABEL: func.func @reduction_block
// CHECK: #stride.schedule<scheme = reduction_inner, index_bits = 32, vector_width = 4, threads = 256, launches = [#stride.launch<grid = 4, block = 256>]>
func.func @reduction_block(%a: !stride.tensor<4x5000xf32>) -> !stride.tensor<4xf32> {
  %r = stride.max %a dims [1] : !stride.tensor<4x5000xf32> -> !stride.tensor<4xf32>
  return %r : !stride.tensor<4xf32>
}

// -----

// 256 rows of 65536: a block of 1024 threads per row fills 97% of the
// resident threads (132 x 2048), at least half, so one launch reads the
// rows, 4 elements per load, without a split; the grid one block per row.
// With vectorize=false, one element per load. 120 such rows fill 44%, so
// each row's range is split over blocks (two launches).
// CHECK-LABEL: func.func @reduction_block_rows
// CHECK: #stride.schedule<scheme = reduction_inner, index_bits = 32, vector_width = 4, threads = 1024, launches = [#stride.launch<grid = 256, block = 1024>]>
// SCALAR-LABEL: func.func @reduction_block_rows
// SCALAR: #stride.schedule<scheme = reduction_inner, index_bits = 32, threads = 1024, launches = [#stride.launch<grid = 256, block = 1024>]>
func.func @reduction_block_rows(%a: !stride.tensor<256x65536xf32>) -> !stride.tensor<256xf32> {
  %r = stride.sum %a dims [1] : !stride.tensor<256x65536xf32> -> !stride.tensor<256xf32>
  return %r : !stride.tensor<256xf32>
}
// CHECK-LABEL: func.func @reduction_block_rows_split
// CHECK: #stride.schedule<scheme = reduction_split, index_bits = 32, vector_width = 4, threads = 256, slices = 16,
func.func @reduction_block_rows_split(%a: !stride.tensor<120x65536xf32>) -> !stride.tensor<120xf32> {
  %r = stride.sum %a dims [1] : !stride.tensor<120x65536xf32> -> !stride.tensor<120xf32>
  return %r : !stride.tensor<120xf32>
}

// -----

// A full reduction of 16384 x 4096: one output cannot fill the GPU, so the
// range is split over 2 waves of blocks of 256 threads (2 x 8 per
// multiprocessor: 2112 slices), 4-element loads, a float partial result
// per slice in scratch, and a second launch combines them (more blocks
// than 2 a multiprocessor: kMaxOneLaunchSplitWaves). With 2 multiprocessors
// 32 slices, still more than 2 a multiprocessor.
// CHECK-LABEL: func.func @reduction_split
// CHECK: #stride.schedule<scheme = reduction_split, index_bits = 32, vector_width = 4, threads = 256, slices = 2112, launches = [#stride.launch<grid = 2112, block = 256, phase = 1>, #stride.launch<grid = 1, block = 256, phase = 2>], scratch = [8448]>
// MP2-LABEL: func.func @reduction_split
// MP2: #stride.schedule<scheme = reduction_split, index_bits = 32, vector_width = 4, threads = 256, slices = 32, launches = [#stride.launch<grid = 32, block = 256, phase = 1>, #stride.launch<grid = 1, block = 256, phase = 2>], scratch = [128]>
// SCALAR-LABEL: func.func @reduction_split
// SCALAR: #stride.schedule<scheme = reduction_split, index_bits = 32, threads = 256, slices = 2112,
func.func @reduction_split(%a: !stride.tensor<16384x4096xf32>) -> !stride.tensor<f32> {
  %r = stride.sum %a dims [0, 1] : !stride.tensor<16384x4096xf32> -> !stride.tensor<f32>
  return %r : !stride.tensor<f32>
}

// -----

// Three outputs of 9001 f64 elements each: 2 slices of at least 4096
// elements per output, one element per step (9001 is no multiple of 4), a
// double partial result per slice; 6 blocks, so the last of each output's
// to arrive combines its partials, in one launch (the arrival counters
// are the second scratch buffer, 4 bytes an output).
// CHECK-LABEL: func.func @reduction_split_few
// CHECK: #stride.schedule<scheme = reduction_split, index_bits = 32, threads = 256, slices = 2, launches = [#stride.launch<grid = 6, block = 256>], scratch = [48, 12]>
func.func @reduction_split_few(%a: !stride.tensor<3x9001xf64>) -> !stride.tensor<3xf64> {
  %r = stride.mean %a dims [1] : !stride.tensor<3x9001xf64> -> !stride.tensor<3xf64>
  return %r : !stride.tensor<3xf64>
}

// -----

// An outer dim is reduced: adjacent threads take adjacent outputs, 32
// slices split the 500 reduced elements (few outputs for 132
// multiprocessors; too few rows to split over blocks).
// CHECK-LABEL: func.func @reduction_outer
// CHECK: #stride.schedule<scheme = reduction_outer, index_bits = 32, threads = 1, slices = 32, launches = [#stride.launch<grid = 2, block = 32, block_y = 32>]>
func.func @reduction_outer(%a: !stride.tensor<500x64xf32>) -> !stride.tensor<64xf32> {
  %r = stride.sum %a dims [0] : !stride.tensor<500x64xf32> -> !stride.tensor<64xf32>
  return %r : !stride.tensor<64xf32>
}

// -----

// A bias gradient, the sum over dim 0 of 65536 x 1024: too few column
// tiles to fill 132 multiprocessors, so each tile's rows are split over
// blocks, partial results per output in scratch ([slice][output]), and a
// second launch, a thread per output, combines them. Rows hold whole
// groups of 4, so column groups: a thread per 4 adjacent columns (one
// 4-element load per row), tiles of 128 columns (32 threads side by side
// in a row), 8 rows per block of 256 threads; 8 tiles, so at least 64
// loads per thread: 128 slices of 512 rows (2 waves would be 264),
// partials at [output][slice] and phase 2 a block per output (a tree, as
// for an inner split; column_combine = block). Without vector accesses:
// column tiles of 32 outputs x 32 threads, 17 slices of each tile (2 waves
// of blocks of 1024 threads).
// CHECK-LABEL: func.func @reduction_outer_split
// CHECK: #stride.schedule<scheme = reduction_split, index_bits = 32, vector_width = 4, threads = 8, slices = 128, tile = 128, launches = [#stride.launch<grid = 1024, block = 256, phase = 1>, #stride.launch<grid = 1024, block = 256, phase = 2>], scratch = [524288], column_combine = block>
// SCALAR-LABEL: func.func @reduction_outer_split
// SCALAR: #stride.schedule<scheme = reduction_split, index_bits = 32, threads = 32, slices = 17, tile = 32, launches = [#stride.launch<grid = 544, block = 32, block_y = 32, phase = 1>, #stride.launch<grid = 4, block = 256, phase = 2>], scratch = [69632]>
func.func @reduction_outer_split(%a: !stride.tensor<65536x1024xf32>) -> !stride.tensor<1024xf32> {
  %r = stride.sum %a dims [0] : !stride.tensor<65536x1024xf32> -> !stride.tensor<1024xf32>
  return %r : !stride.tensor<1024xf32>
}

// -----

// Column groups of narrow rows. 8 columns: 2 threads per row side by side
// (one tile of 8 columns), 128 rows per block of 256 threads, 1024 slices
// of 2048 rows (16 loads per thread; 2 waves would be 2112). 100 columns:
// 25 threads per row (one tile of 100), 10 rows per block of 250 threads,
// 1048 slices of 161 rows. 260 columns of a 3-dim input reduced over its
// leading dims: tiles of 128 columns (the third of 4), 8 rows per block;
// 3 tiles, so at least 64 loads per thread: 64 slices of 512 rows, not
// more than 64, so partials at [slice][output] and phase 2 a thread per
// output (column_combine = thread).
// A reduction over a middle dim (dims [1] of 2 x 65536 x 8) does not lead:
// a group of 4 columns is contiguous, but the rows of one output are not
// one range of leading coordinates; the column tiles of 32.
// CHECK-LABEL: func.func @column_groups_8
// CHECK: #stride.schedule<scheme = reduction_split, index_bits = 32, vector_width = 4, threads = 128, slices = 1024, tile = 8, launches = [#stride.launch<grid = 1024, block = 256, phase = 1>, #stride.launch<grid = 8, block = 256, phase = 2>], scratch = [32768], column_combine = block>
// CHECK-LABEL: func.func @column_groups_100
// CHECK: #stride.schedule<scheme = reduction_split, index_bits = 32, vector_width = 4, threads = 10, slices = 1048, tile = 100, launches = [#stride.launch<grid = 1048, block = 250, phase = 1>, #stride.launch<grid = 100, block = 256, phase = 2>], scratch = [419200], column_combine = block>
// CHECK-LABEL: func.func @column_groups_partial_tile
// CHECK: #stride.schedule<scheme = reduction_split, index_bits = 32, vector_width = 4, threads = 8, slices = 64, tile = 128,
// CHECK-SAME: column_combine = thread>
// CHECK-LABEL: func.func @column_groups_not_leading
// CHECK: #stride.schedule<scheme = reduction_split, index_bits = 32, threads = 32, slices = {{[0-9]+}}, tile = 32,
func.func @column_groups_8(%a: !stride.tensor<2097152x8xf32>) -> !stride.tensor<8xf32> {
  %r = stride.sum %a dims [0] : !stride.tensor<2097152x8xf32> -> !stride.tensor<8xf32>
  return %r : !stride.tensor<8xf32>
}
func.func @column_groups_100(%a: !stride.tensor<167772x100xf32>) -> !stride.tensor<100xf32> {
  %r = stride.sum %a dims [0] : !stride.tensor<167772x100xf32> -> !stride.tensor<100xf32>
  return %r : !stride.tensor<100xf32>
}
func.func @column_groups_partial_tile(%a: !stride.tensor<64x512x260xbf16>) -> !stride.tensor<260xbf16> {
  %r = stride.sum %a dims [0, 1] : !stride.tensor<64x512x260xbf16> -> !stride.tensor<260xbf16>
  return %r : !stride.tensor<260xbf16>
}
func.func @column_groups_not_leading(%a: !stride.tensor<2x65536x8xf32>) -> !stride.tensor<2x8xf32> {
  %r = stride.sum %a dims [1] : !stride.tensor<2x65536x8xf32> -> !stride.tensor<2x8xf32>
  return %r : !stride.tensor<2x8xf32>
}

// -----

// Rows of 8 elements: a thread per row, 4 elements per load; without
// vector loads still a thread per row (4M rows fill the GPU). Rows of 9
// (a max pool's 3 x 3 windows) likewise a thread each, where a group of 16
// lanes would leave 7 idle; but only 1024 rows of 9 get 16 lanes each.
// CHECK-LABEL: func.func @reduction_narrow_rows
// CHECK: #stride.schedule<scheme = reduction_inner, index_bits = 32, vector_width = 4, threads = 1, launches = [#stride.launch<grid = 1056, block = 256>]>
// CHECK: #stride.schedule<scheme = reduction_inner, index_bits = 32, threads = 1, launches = [#stride.launch<grid = 1056, block = 256>]>
// CHECK: #stride.schedule<scheme = reduction_inner, index_bits = 32, threads = 16, launches = [#stride.launch<grid = 64, block = 256>]>
// SCALAR-LABEL: func.func @reduction_narrow_rows
// SCALAR: #stride.schedule<scheme = reduction_inner, index_bits = 32, threads = 1, launches = [#stride.launch<grid = 1056, block = 256>]>
func.func @reduction_narrow_rows(%a: !stride.tensor<4194304x8xf32>, %b: !stride.tensor<4194304x9xf32>,
                                 %c: !stride.tensor<1024x9xf32>)
    -> (!stride.tensor<4194304xf32>, !stride.tensor<4194304xf32>, !stride.tensor<1024xf32>) {
  %r = stride.sum %a dims [1] : !stride.tensor<4194304x8xf32> -> !stride.tensor<4194304xf32>
  %m = stride.max %b dims [1] : !stride.tensor<4194304x9xf32> -> !stride.tensor<4194304xf32>
  %n = stride.max %c dims [1] : !stride.tensor<1024x9xf32> -> !stride.tensor<1024xf32>
  return %r, %m, %n : !stride.tensor<4194304xf32>, !stride.tensor<4194304xf32>, !stride.tensor<1024xf32>
}

// -----

// A row of 1000 elements read broadcast back: a warp per row, 32 elements
// per lane in registers, 8 rows per block, in groups of 4 consecutive
// elements (vector width 4: 250 groups, 8 per lane).
// CHECK-LABEL: func.func @row_registers
// CHECK: #stride.schedule<scheme = row_registers, index_bits = 32, vector_width = 4, threads = 32, elements_per_thread = 32, launches = [#stride.launch<grid = 1, block = 256>]>
func.func @row_registers(%a: !stride.tensor<6x1000xf32>) -> !stride.tensor<6x1000xf32> {
  %m = stride.max %a dims [1] keepdim : !stride.tensor<6x1000xf32> -> !stride.tensor<6x1xf32>
  %mb = stride.expand %m : !stride.tensor<6x1xf32> -> !stride.tensor<6x1000xf32, strides = [1, 0]>
  %d = stride.sub %a, %mb : !stride.tensor<6x1000xf32>, !stride.tensor<6x1000xf32, strides = [1, 0]> -> !stride.tensor<6x1000xf32>
  return %d : !stride.tensor<6x1000xf32>
}

// -----

// Rows that give a warp's lanes fewer groups of 4 than there are lanes but
// not a power of two of them (96 elements: 24 groups), or do not divide
// into groups (1002): an element per lane and step, no vector width.
// CHECK-LABEL: func.func @row_registers_scalar
// CHECK: #stride.schedule<scheme = row_registers, index_bits = 32, threads = 32, elements_per_thread = 3, launches
// CHECK: #stride.schedule<scheme = row_registers, index_bits = 32, threads = 32, elements_per_thread = 32, launches
func.func @row_registers_scalar(%a: !stride.tensor<6x96xf32>, %b: !stride.tensor<6x1002xf32>) -> (!stride.tensor<6x96xf32>, !stride.tensor<6x1002xf32>) {
  %m = stride.max %a dims [1] keepdim : !stride.tensor<6x96xf32> -> !stride.tensor<6x1xf32>
  %mb = stride.expand %m : !stride.tensor<6x1xf32> -> !stride.tensor<6x96xf32, strides = [1, 0]>
  %d = stride.sub %a, %mb : !stride.tensor<6x96xf32>, !stride.tensor<6x96xf32, strides = [1, 0]> -> !stride.tensor<6x96xf32>
  %n = stride.max %b dims [1] keepdim : !stride.tensor<6x1002xf32> -> !stride.tensor<6x1xf32>
  %nb = stride.expand %n : !stride.tensor<6x1xf32> -> !stride.tensor<6x1002xf32, strides = [1, 0]>
  %e = stride.sub %b, %nb : !stride.tensor<6x1002xf32>, !stride.tensor<6x1002xf32, strides = [1, 0]> -> !stride.tensor<6x1002xf32>
  return %d, %e : !stride.tensor<6x96xf32>, !stride.tensor<6x1002xf32>
}

// -----

// Rows of 64 and 16 elements, a power of two of groups of 4 (16 and 4):
// that many lanes per row, a group each, so 2 and 8 rows per warp and 16
// and 64 per block of 256 threads.
// CHECK-LABEL: func.func @row_registers_short
// CHECK: #stride.schedule<scheme = row_registers, index_bits = 32, vector_width = 4, threads = 16, elements_per_thread = 4, launches = [#stride.launch<grid = 1, block = 256>]>
// CHECK: #stride.schedule<scheme = row_registers, index_bits = 32, vector_width = 4, threads = 4, elements_per_thread = 4, launches = [#stride.launch<grid = 2, block = 256>]>
func.func @row_registers_short(%a: !stride.tensor<6x64xf32>, %b: !stride.tensor<100x16xf32>) -> (!stride.tensor<6x64xf32>, !stride.tensor<100x16xf32>) {
  %m = stride.max %a dims [1] keepdim : !stride.tensor<6x64xf32> -> !stride.tensor<6x1xf32>
  %mb = stride.expand %m : !stride.tensor<6x1xf32> -> !stride.tensor<6x64xf32, strides = [1, 0]>
  %d = stride.sub %a, %mb : !stride.tensor<6x64xf32>, !stride.tensor<6x64xf32, strides = [1, 0]> -> !stride.tensor<6x64xf32>
  %n = stride.max %b dims [1] keepdim : !stride.tensor<100x16xf32> -> !stride.tensor<100x1xf32>
  %nb = stride.expand %n : !stride.tensor<100x1xf32> -> !stride.tensor<100x16xf32, strides = [1, 0]>
  %e = stride.sub %b, %nb : !stride.tensor<100x16xf32>, !stride.tensor<100x16xf32, strides = [1, 0]> -> !stride.tensor<100x16xf32>
  return %d, %e : !stride.tensor<6x64xf32>, !stride.tensor<100x16xf32>
}

// -----

// The same row in a kernel of 8 ops: 8 x 32 elements per lane would be
// more than kMaxUnrolledRowOps (192) ops for NVRTC to unroll, so a block of
// 64 threads takes each row, 16 elements per thread.
// CHECK-LABEL: func.func @row_many_ops
// CHECK: #stride.schedule<scheme = row_registers, index_bits = 32, vector_width = 4, threads = 64, elements_per_thread = 16, launches = [#stride.launch<grid = 6, block = 64>]>
func.func @row_many_ops(%a: !stride.tensor<6x1000xf32>) -> !stride.tensor<6x1000xf32> {
  %m = stride.max %a dims [1] keepdim : !stride.tensor<6x1000xf32> -> !stride.tensor<6x1xf32>
  %mb = stride.expand %m : !stride.tensor<6x1xf32> -> !stride.tensor<6x1000xf32, strides = [1, 0]>
  %d = stride.sub %a, %mb : !stride.tensor<6x1000xf32>, !stride.tensor<6x1000xf32, strides = [1, 0]> -> !stride.tensor<6x1000xf32>
  %t0 = stride.tanh %d : !stride.tensor<6x1000xf32> -> !stride.tensor<6x1000xf32>
  %t1 = stride.exp %t0 : !stride.tensor<6x1000xf32> -> !stride.tensor<6x1000xf32>
  %t2 = stride.tanh %t1 : !stride.tensor<6x1000xf32> -> !stride.tensor<6x1000xf32>
  %t3 = stride.exp %t2 : !stride.tensor<6x1000xf32> -> !stride.tensor<6x1000xf32>
  %t4 = stride.tanh %t3 : !stride.tensor<6x1000xf32> -> !stride.tensor<6x1000xf32>
  %t5 = stride.exp %t4 : !stride.tensor<6x1000xf32> -> !stride.tensor<6x1000xf32>
  return %t5 : !stride.tensor<6x1000xf32>
}

// -----

// Rows of 40000 elements, more than a block holds in registers (16384,
// RowSplit.h): on sm_90 a thread-block cluster of 5 blocks of 512 threads
// per row, 16 elements per thread in registers, one per step (no vector
// width), the grid whole clusters, registers bounded for 4 blocks per
// multiprocessor (min_blocks: the row is the only input); on sm_80 (no
// clusters) a block of 1024 threads per row, 40 elements per thread,
// re-read in each phase.
// CHECK-LABEL: func.func @row_cluster
// CHECK: #stride.schedule<scheme = row_registers, index_bits = 32, threads = 512, elements_per_thread = 16, cluster_blocks = 5, min_blocks = 4, launches = [#stride.launch<grid = 10, block = 512>]>
// SM80-LABEL: func.func @row_cluster
// SM80: #stride.schedule<scheme = row_reread, index_bits = 32, threads = 1024, elements_per_thread = 40, launches = [#stride.launch<grid = 2, block = 1024>]>
func.func @row_cluster(%a: !stride.tensor<2x40000xf32>) -> !stride.tensor<2x40000xf32> {
  %m = stride.sum %a dims [1] keepdim : !stride.tensor<2x40000xf32> -> !stride.tensor<2x1xf32>
  %mb = stride.expand %m : !stride.tensor<2x1xf32> -> !stride.tensor<2x40000xf32, strides = [1, 0]>
  %d = stride.sub %a, %mb : !stride.tensor<2x40000xf32>, !stride.tensor<2x40000xf32, strides = [1, 0]> -> !stride.tensor<2x40000xf32>
  return %d : !stride.tensor<2x40000xf32>
}

// -----

// LayerNorm's rows of 32768 with few rows (512), with a weight: a kernel
// that reads an input beside the row holds 16384 elements per block
// (1024 x 32 spilled), so a cluster of 4 blocks of 512 threads, 16
// elements each, per row (2048 blocks), registers not bounded (two
// inputs); on 2 multiprocessors (at most 2 x 64 blocks of 512 threads) 32
// clusters take the 512 rows in turn.
// CHECK-LABEL: func.func @row_cluster_few_rows
// CHECK: threads = 512, elements_per_thread = 16, cluster_blocks = 4, launches = [#stride.launch<grid = 2048, block = 512>]
// MP2-LABEL: func.func @row_cluster_few_rows
// MP2: threads = 512, elements_per_thread = 16, cluster_blocks = 4, launches = [#stride.launch<grid = 128, block = 512>]
func.func @row_cluster_few_rows(%a: !stride.tensor<512x32768xf32>, %w: !stride.tensor<32768xf32>) -> !stride.tensor<512x32768xf32> {
  %m = stride.mean %a dims [1] keepdim : !stride.tensor<512x32768xf32> -> !stride.tensor<512x1xf32>
  %mb = stride.expand %m : !stride.tensor<512x1xf32> -> !stride.tensor<512x32768xf32, strides = [1, 0]>
  %d = stride.sub %a, %mb : !stride.tensor<512x32768xf32>, !stride.tensor<512x32768xf32, strides = [1, 0]> -> !stride.tensor<512x32768xf32>
  %q = stride.mul %d, %d : !stride.tensor<512x32768xf32>, !stride.tensor<512x32768xf32> -> !stride.tensor<512x32768xf32>
  %v = stride.mean %q dims [1] keepdim : !stride.tensor<512x32768xf32> -> !stride.tensor<512x1xf32>
  %vb = stride.expand %v : !stride.tensor<512x1xf32> -> !stride.tensor<512x32768xf32, strides = [1, 0]>
  %n = stride.div %d, %vb : !stride.tensor<512x32768xf32>, !stride.tensor<512x32768xf32, strides = [1, 0]> -> !stride.tensor<512x32768xf32>
  %wb = stride.expand %w : !stride.tensor<32768xf32> -> !stride.tensor<512x32768xf32, strides = [0, 1]>
  %y = stride.mul %n, %wb : !stride.tensor<512x32768xf32>, !stride.tensor<512x32768xf32, strides = [0, 1]> -> !stride.tensor<512x32768xf32>
  return %y : !stride.tensor<512x32768xf32>
}

// -----

// bf16 rows of 65536 whose values read by more than one phase (x; x - mean
// is computed again) take 2 bytes an element, 128 KiB a row: on
// sm_90 one block of 1024 threads per row holds them in shared memory
// (row_shared), 64 elements per thread in groups of 4, as many blocks as
// fit at once (one per multiprocessor); on sm_80 re-read; on sm_120,
// whose blocks take at most 99 KiB of shared memory, over a cluster.
// CHECK-LABEL: func.func @row_shared
// CHECK: #stride.schedule<scheme = row_shared, index_bits = 32, vector_width = 4, threads = 1024, elements_per_thread = 64, launches = [#stride.launch<grid = 132, block = 1024, shared = 131072>]>
// MP2-LABEL: func.func @row_shared
// MP2: launches = [#stride.launch<grid = 2, block = 1024, shared = 131072>]
// SM80-LABEL: func.func @row_shared
// SM80: scheme = row_reread
// SM120-LABEL: func.func @row_shared
// SM120: #stride.schedule<scheme = row_registers, index_bits = 32, threads = 512, elements_per_thread = 16, cluster_blocks = 8
func.func @row_shared(%a: !stride.tensor<512x65536xbf16>) -> !stride.tensor<512x65536xbf16> {
  %m = stride.mean %a dims [1] keepdim : !stride.tensor<512x65536xbf16> -> !stride.tensor<512x1xbf16>
  %mb = stride.expand %m : !stride.tensor<512x1xbf16> -> !stride.tensor<512x65536xbf16, strides = [1, 0]>
  %d = stride.sub %a, %mb : !stride.tensor<512x65536xbf16>, !stride.tensor<512x65536xbf16, strides = [1, 0]> -> !stride.tensor<512x65536xbf16>
  %x = stride.max %d dims [1] keepdim : !stride.tensor<512x65536xbf16> -> !stride.tensor<512x1xbf16>
  %xb = stride.expand %x : !stride.tensor<512x1xbf16> -> !stride.tensor<512x65536xbf16, strides = [1, 0]>
  %q = stride.div %d, %xb : !stride.tensor<512x65536xbf16>, !stride.tensor<512x65536xbf16, strides = [1, 0]> -> !stride.tensor<512x65536xbf16>
  return %q : !stride.tensor<512x65536xbf16>
}

// -----

// bf16 rows of 40000 (80,000 bytes held) fit a block on sm_120 too: one
// block per multiprocessor there (100 KiB each), 170 of them; two on sm_90.
// CHECK-LABEL: func.func @row_shared_smaller
// CHECK: scheme = row_shared, {{.*}} launches = [#stride.launch<grid = 264, block = 1024, shared = 80000>]>
// SM120-LABEL: func.func @row_shared_smaller
// SM120: scheme = row_shared, {{.*}} launches = [#stride.launch<grid = 170, block = 1024, shared = 80000>]>
func.func @row_shared_smaller(%a: !stride.tensor<512x40000xbf16>) -> !stride.tensor<512x40000xbf16> {
  %m = stride.mean %a dims [1] keepdim : !stride.tensor<512x40000xbf16> -> !stride.tensor<512x1xbf16>
  %mb = stride.expand %m : !stride.tensor<512x1xbf16> -> !stride.tensor<512x40000xbf16, strides = [1, 0]>
  %d = stride.sub %a, %mb : !stride.tensor<512x40000xbf16>, !stride.tensor<512x40000xbf16, strides = [1, 0]> -> !stride.tensor<512x40000xbf16>
  %x = stride.max %d dims [1] keepdim : !stride.tensor<512x40000xbf16> -> !stride.tensor<512x1xbf16>
  %xb = stride.expand %x : !stride.tensor<512x1xbf16> -> !stride.tensor<512x40000xbf16, strides = [1, 0]>
  %q = stride.div %d, %xb : !stride.tensor<512x40000xbf16>, !stride.tensor<512x40000xbf16, strides = [1, 0]> -> !stride.tensor<512x40000xbf16>
  return %q : !stride.tensor<512x40000xbf16>
}

// -----

// The same rows where the last phase reads both x and exp(x - mean), which
// would take two buffers, 4 bytes an element: a cluster of 8 blocks per
// row, as for f32.
// CHECK-LABEL: func.func @row_shared_two_buffers
// CHECK: #stride.schedule<scheme = row_registers, index_bits = 32, threads = 512, elements_per_thread = 16, cluster_blocks = 8
func.func @row_shared_two_buffers(%a: !stride.tensor<512x65536xbf16>) -> !stride.tensor<512x65536xbf16> {
  %m = stride.mean %a dims [1] keepdim : !stride.tensor<512x65536xbf16> -> !stride.tensor<512x1xbf16>
  %mb = stride.expand %m : !stride.tensor<512x1xbf16> -> !stride.tensor<512x65536xbf16, strides = [1, 0]>
  %d = stride.sub %a, %mb : !stride.tensor<512x65536xbf16>, !stride.tensor<512x65536xbf16, strides = [1, 0]> -> !stride.tensor<512x65536xbf16>
  %e = stride.exp %d : !stride.tensor<512x65536xbf16> -> !stride.tensor<512x65536xbf16>
  %x = stride.max %e dims [1] keepdim : !stride.tensor<512x65536xbf16> -> !stride.tensor<512x1xbf16>
  %xb = stride.expand %x : !stride.tensor<512x1xbf16> -> !stride.tensor<512x65536xbf16, strides = [1, 0]>
  %q = stride.div %e, %xb : !stride.tensor<512x65536xbf16>, !stride.tensor<512x65536xbf16, strides = [1, 0]> -> !stride.tensor<512x65536xbf16>
  %y = stride.add %q, %a : !stride.tensor<512x65536xbf16>, !stride.tensor<512x65536xbf16> -> !stride.tensor<512x65536xbf16>
  return %y : !stride.tensor<512x65536xbf16>
}

// -----

// The same rows in a kernel that reads only the row (softmax): a block of
// 1024 threads holds them, 32 elements each (64 registers, no spill).
// CHECK-LABEL: func.func @row_block_one_input
// CHECK: #stride.schedule<scheme = row_registers, index_bits = 32, vector_width = 4, threads = 1024, elements_per_thread = 32, launches = [#stride.launch<grid = 512, block = 1024>]>
func.func @row_block_one_input(%a: !stride.tensor<512x32768xf32>) -> !stride.tensor<512x32768xf32> {
  %m = stride.max %a dims [1] keepdim : !stride.tensor<512x32768xf32> -> !stride.tensor<512x1xf32>
  %mb = stride.expand %m : !stride.tensor<512x1xf32> -> !stride.tensor<512x32768xf32, strides = [1, 0]>
  %d = stride.sub %a, %mb : !stride.tensor<512x32768xf32>, !stride.tensor<512x32768xf32, strides = [1, 0]> -> !stride.tensor<512x32768xf32>
  %e = stride.exp %d : !stride.tensor<512x32768xf32> -> !stride.tensor<512x32768xf32>
  %s = stride.sum %e dims [1] keepdim : !stride.tensor<512x32768xf32> -> !stride.tensor<512x1xf32>
  %sb = stride.expand %s : !stride.tensor<512x1xf32> -> !stride.tensor<512x32768xf32, strides = [1, 0]>
  %y = stride.div %e, %sb : !stride.tensor<512x32768xf32>, !stride.tensor<512x32768xf32, strides = [1, 0]> -> !stride.tensor<512x32768xf32>
  return %y : !stride.tensor<512x32768xf32>
}

// -----

// Rows of 140000, more than a cluster of 8 blocks of 1024 threads holds
// (131072): a block per row, re-read in each phase.
// CHECK-LABEL: func.func @row_reread
// CHECK: #stride.schedule<scheme = row_reread, index_bits = 32, threads = 1024, elements_per_thread = 137, launches = [#stride.launch<grid = 1, block = 1024>]>
func.func @row_reread(%a: !stride.tensor<1x140000xf32>) -> !stride.tensor<1x140000xf32> {
  %m = stride.max %a dims [1] keepdim : !stride.tensor<1x140000xf32> -> !stride.tensor<1x1xf32>
  %mb = stride.expand %m : !stride.tensor<1x1xf32> -> !stride.tensor<1x140000xf32, strides = [1, 0]>
  %d = stride.sub %a, %mb : !stride.tensor<1x140000xf32>, !stride.tensor<1x140000xf32, strides = [1, 0]> -> !stride.tensor<1x140000xf32>
  return %d : !stride.tensor<1x140000xf32>
}

// -----

// scatter_add: phase 0 copies the input, phase 1 adds the updates; grids of
// up to 8 blocks per multiprocessor (8 * 108 on sm_80).
// CHECK-LABEL: func.func @scatter
// CHECK: #stride.schedule<scheme = scatter, index_bits = 32, launches = [#stride.launch<grid = 1056, block = 256, phase = 0>, #stride.launch<grid = 4, block = 256, phase = 1>]>
// SM80-LABEL: func.func @scatter
// SM80: launches = [#stride.launch<grid = 864, block = 256, phase = 0>, #stride.launch<grid = 4, block = 256, phase = 1>]
func.func @scatter(%x: !stride.tensor<1024x1024xf32>, %i: !stride.tensor<1000x1xi64>,
                   %u: !stride.tensor<1000x1xf32>) -> !stride.tensor<1024x1024xf32> {
  %r = stride.scatter_add %x, %i, %u dim 1 : !stride.tensor<1024x1024xf32>,
      !stride.tensor<1000x1xi64>, !stride.tensor<1000x1xf32> -> !stride.tensor<1024x1024xf32>
  return %r : !stride.tensor<1024x1024xf32>
}

// -----

// index_add into rows of 36 f32 elements: segmented, default mode;
// 4-element units (36 is not a multiple of 8), 9 units per row in a block
// of 32; buckets of 32 positions; 50 positions can make one row longer
// than its bucket (one slot); pages of 16 positions, at most 5 (4 for the
// 50 positions, one more for the long row's last, partial page), each
// walked by a block of its own (slices = 5) ahead of the 20 rows' blocks.
// Scratch: 20 counts, 20 x 32 bucket entries, the pages' hash table (16
// entries of a key and an index), the pages (two cursors, a slot per row,
// a row, number, entry and 16 positions per page: 117 ints; `pages` and
// `hash_entries` on the schedule), one slot's
// partial row of 36 floats, and the progress counters (the page blocks',
// one slot's).
// CHECK-LABEL: func.func @segmented
// CHECK: #stride.schedule<scheme = segmented_index_add, index_bits = 32, vector_width = 4, threads = 32, slices = 5, elements_per_thread = 4, tile = 16, launches = [#stride.launch<grid = 1, block = 256, phase = 1>, #stride.launch<grid = 25, block = 32, phase = 2>], scratch = [80, 2560, 192, 468, 144, 8], bucket = 32, pages = 5, hash_entries = 16>
// SCALAR-LABEL: func.func @segmented
// SCALAR: #stride.schedule<scheme = segmented_index_add, index_bits = 32, threads = 64, slices = 5, elements_per_thread = 1,
func.func @segmented(%x: !stride.tensor<20x36xf32>, %idx: !stride.tensor<50xi64>,
                     %src: !stride.tensor<50x36xf32>) -> !stride.tensor<20x36xf32> {
  %r = stride.index_add %x, %idx, %src dim 0 : !stride.tensor<20x36xf32>,
      !stride.tensor<50xi64>, !stride.tensor<50x36xf32> -> !stride.tensor<20x36xf32>
  return %r : !stride.tensor<20x36xf32>
}

// -----

// index_add into rows of 8 elements: too short for the segmented form.
// CHECK-LABEL: func.func @short_rows
// CHECK: #stride.schedule<scheme = scatter, index_bits = 32, launches = [#stride.launch<grid = 1, block = 256, phase = 0>, #stride.launch<grid = 2, block = 256, phase = 1>]>
func.func @short_rows(%x: !stride.tensor<20x8xf32>, %idx: !stride.tensor<50xi64>,
                      %src: !stride.tensor<50x8xf32>) -> !stride.tensor<20x8xf32> {
  %r = stride.index_add %x, %idx, %src dim 0 : !stride.tensor<20x8xf32>,
      !stride.tensor<50xi64>, !stride.tensor<50x8xf32> -> !stride.tensor<20x8xf32>
  return %r : !stride.tensor<20x8xf32>
}

// -----

// An extent past 2^31 - 2^24 (a broadcast input of 2^31 elements): 64-bit
// index arithmetic.
// CHECK-LABEL: func.func @wide
// CHECK: #stride.schedule<scheme = vectorized, index_bits = 64, vector_width = 4, launches = [#stride.launch<grid = 16896, block = 256>]>
func.func @wide(%a: !stride.tensor<1x1024xf32>) -> !stride.tensor<2097152x1024xi8> {
  %e = stride.expand %a : !stride.tensor<1x1024xf32> -> !stride.tensor<2097152x1024xf32, strides = [0, 1]>
  %r = stride.cast %e : !stride.tensor<2097152x1024xf32, strides = [0, 1]> -> !stride.tensor<2097152x1024xi8>
  return %r : !stride.tensor<2097152x1024xi8>
}

// -----

// No element to compute: no launch.
// CHECK-LABEL: func.func @empty
// CHECK: #stride.schedule<scheme = grid_stride, index_bits = 32, launches = []>
func.func @empty(%a: !stride.tensor<0x4xf32>) -> !stride.tensor<0x4xf32> {
  %r = stride.exp %a : !stride.tensor<0x4xf32> -> !stride.tensor<0x4xf32>
  return %r : !stride.tensor<0x4xf32>
}

// -----

// cumsum (form (e), row_scan) with its prologue fused: rows of 20, a warp
// each, 8 rows per block of 256: 512 blocks for 4096 rows.
// CHECK-LABEL: func.func @scan_warp
// CHECK: stride.kernel "exp_cumsum"
// CHECK-SAME: #stride.schedule<scheme = row_scan, index_bits = 32, threads = 32, launches = [#stride.launch<grid = 512, block = 256>]>
func.func @scan_warp(%a: !stride.tensor<4096x20xf32>) -> !stride.tensor<4096x20xf32> {
  %e = stride.exp %a : !stride.tensor<4096x20xf32> -> !stride.tensor<4096x20xf32>
  %r = stride.cumsum %e dim 1 : !stride.tensor<4096x20xf32> -> !stride.tensor<4096x20xf32>
  return %r : !stride.tensor<4096x20xf32>
}

// -----

// Rows of 3000: a block of 1024 threads per row (chunks of 1024 with a
// carry, the row's 3 held in registers: elements_per_thread); along dim 0
// of 37 x 45: 45 rows of 37, a block of 64 each.
// CHECK-LABEL: func.func @scan_blocks
// CHECK: #stride.schedule<scheme = row_scan, index_bits = 32, threads = 1024, elements_per_thread = 3, launches = [#stride.launch<grid = 64, block = 1024>]>
// CHECK: #stride.schedule<scheme = row_scan, index_bits = 32, threads = 64, launches = [#stride.launch<grid = 45, block = 64>]>
func.func @scan_blocks(%a: !stride.tensor<64x3000xf32>, %b: !stride.tensor<37x45xi64>)
    -> (!stride.tensor<64x3000xf32>, !stride.tensor<37x45xi64>) {
  %r = stride.cumsum %a dim 1 : !stride.tensor<64x3000xf32> -> !stride.tensor<64x3000xf32>
  %s = stride.cumsum %b dim 0 : !stride.tensor<37x45xi64> -> !stride.tensor<37x45xi64>
  return %r, %s : !stride.tensor<64x3000xf32>, !stride.tensor<37x45xi64>
}

// -----

// Skinny products (a batch-1 decode step's bf16 projections,
// python-free-docs/matmul.md "Skinny products"): at 1 row a column per
// block of 4 warps (below kWideSkinnyColumns, `column_warps = 4`: warp w
// takes the 512-byte steps w, w + 4, ... of its weight row), 16-byte loads
// (8 elements), one per column in flight. The 4096 x 4096 one has 4,096
// blocks; the 1024 x 4096 one (8 key/value heads) 1,024, whose 4,096 warps
// need no split of K. A 14336-column product (the MLP's gate) takes 4
// columns a warp, 8 loads of each in flight (kWideSkinnyLoadsPerLane:
// elements_per_thread 64). With a warp a column (skinny-column-warps=1),
// the 4096 x 4096 one has 4,096 warps, 31 per multiprocessor of 132: one
// launch; the 1024 x 4096 one has 1,024 warps: K is split into 2 slices
// (4 KiB of a weight row each), their partial sums in scratch, added by a
// second launch. On 2 multiprocessors its warps fill the GPU unsplit.
// CHECK-LABEL: func.func @skinny_decode
// CHECK: stride.schedule = #stride.schedule<scheme = skinny_matmul, index_bits = 32, vector_width = 8, threads = 128, elements_per_thread = 8, tile = 1, launches = [#stride.launch<grid = 4096, block = 128>], column_warps = 4>
// CHECK: stride.schedule = #stride.schedule<scheme = skinny_matmul, index_bits = 32, vector_width = 8, threads = 128, elements_per_thread = 8, tile = 1, launches = [#stride.launch<grid = 1024, block = 128>], column_warps = 4>
// CHECK: stride.schedule = #stride.schedule<scheme = skinny_matmul, index_bits = 32, vector_width = 8, threads = 128, elements_per_thread = 64, tile = 4, launches = [#stride.launch<grid = 896, block = 128>]>
// WARP-LABEL: func.func @skinny_decode
// WARP: stride.schedule = #stride.schedule<scheme = skinny_matmul, index_bits = 32, vector_width = 8, threads = 128, elements_per_thread = 8, tile = 1, launches = [#stride.launch<grid = 1024, block = 128>]>
// WARP: stride.schedule = #stride.schedule<scheme = skinny_matmul, index_bits = 32, vector_width = 8, threads = 128, slices = 2, elements_per_thread = 8, tile = 1, launches = [#stride.launch<grid = 512, block = 128, phase = 1>, #stride.launch<grid = 8, block = 128, phase = 2>], scratch = [8192]>
// MP2-LABEL: func.func @skinny_decode
// MP2: stride.schedule = #stride.schedule<scheme = skinny_matmul, index_bits = 32, vector_width = 8, threads = 128, elements_per_thread = 8, tile = 1, launches = [#stride.launch<grid = 4096, block = 128>], column_warps = 4>
// MP2: stride.schedule = #stride.schedule<scheme = skinny_matmul, index_bits = 32, vector_width = 8, threads = 128, elements_per_thread = 8, tile = 1, launches = [#stride.launch<grid = 1024, block = 128>], column_warps = 4>
func.func @skinny_decode(%x: !stride.tensor<1x4096xbf16>, %w: !stride.tensor<4096x4096xbf16>,
                         %v: !stride.tensor<1024x4096xbf16>, %g: !stride.tensor<14336x4096xbf16>)
    -> (!stride.tensor<1x4096xbf16>, !stride.tensor<1x1024xbf16>, !stride.tensor<1x14336xbf16>) {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<4096x4096xbf16>
      -> !stride.tensor<4096x4096xbf16, strides = [1, 4096], offset = 0>
  %p = stride.matmul %x, %wt : !stride.tensor<1x4096xbf16>,
      !stride.tensor<4096x4096xbf16, strides = [1, 4096], offset = 0> -> !stride.tensor<1x4096xbf16>
  %vt = stride.permute %v dims [1, 0] : !stride.tensor<1024x4096xbf16>
      -> !stride.tensor<4096x1024xbf16, strides = [1, 4096], offset = 0>
  %q = stride.matmul %x, %vt : !stride.tensor<1x4096xbf16>,
      !stride.tensor<4096x1024xbf16, strides = [1, 4096], offset = 0> -> !stride.tensor<1x1024xbf16>
  %gt = stride.permute %g dims [1, 0] : !stride.tensor<14336x4096xbf16>
      -> !stride.tensor<4096x14336xbf16, strides = [1, 4096], offset = 0>
  %r = stride.matmul %x, %gt : !stride.tensor<1x4096xbf16>,
      !stride.tensor<4096x14336xbf16, strides = [1, 4096], offset = 0> -> !stride.tensor<1x14336xbf16>
  return %p, %q, %r : !stride.tensor<1x4096xbf16>, !stride.tensor<1x1024xbf16>, !stride.tensor<1x14336xbf16>
}

// -----

// Weight rows of 133 f32 elements: no aligned group of 2 or 4, one element
// per load; K = 133 (532 bytes) is too short to split. 3 rows (marked by
// hand: the default policy takes 1 row only): a warp per 2 columns.
// CHECK-LABEL: func.func @skinny_unaligned
// CHECK: stride.schedule = #stride.schedule<scheme = skinny_matmul, index_bits = 32, threads = 128, elements_per_thread = 1, tile = 2, launches = [#stride.launch<grid = 38, block = 128>]>
func.func @skinny_unaligned(%x: !stride.tensor<3x133xf32>, %w: !stride.tensor<300x133xf32>)
    -> !stride.tensor<3x300xf32> {
  %wt = stride.permute %w dims [1, 0] : !stride.tensor<300x133xf32>
      -> !stride.tensor<133x300xf32, strides = [1, 133], offset = 0>
  %p = stride.matmul %x, %wt {stride.skinny_product} : !stride.tensor<3x133xf32>,
      !stride.tensor<133x300xf32, strides = [1, 133], offset = 0> -> !stride.tensor<3x300xf32>
  return %p : !stride.tensor<3x300xf32>
}

// -----

// Split-KV attention (f32 decode steps: the split-KV kernel under every
// decode-attention policy). A key a lane: head dim 128 f32 reads its row 4
// floats a load (vector_width 4), and the warp a value's row 4 floats a
// lane (tile 4); 16 keys' values in flight (16 x 16 bytes, the most that
// kMaxSplitKvValueBytes allows). On sm_90 a unit's slices are one
// thread-block cluster of blocks of 256 threads (8 warps, one block a
// multiprocessor), at most kMaxSplitKvClusterBlocks: 4096 keys over 8
// units in 8 slices, one launch. A key at an odd offset: its row element
// by element (vector_width 1, the default), 256 keys in one slice. bf16
// with 16 query heads per key/value head at head dim 128 (a decode step
// cuDNN also takes, given to the split-KV kernel by
// decode-attention=split-kv): 8 bf16 a key load, 4 a value load, 32 keys'
// values in flight, 2 slices. For sm_80 (108 multiprocessors, blocks of
// 128 threads, 2 a multiprocessor) 26 slices, combined by a second launch
// from scratch. With 2 multiprocessors: 1 slice per unit, one launch.
// CHECK-LABEL: func.func @split_kv
// CHECK: scheme = split_kv_attention, index_bits = 32, vector_width = 4, threads = 256, slices = 8, elements_per_thread = 16, cluster_blocks = 8, min_blocks = 1, tile = 4, launches = [#stride.launch<grid = 64, block = 256>]
// CHECK: scheme = split_kv_attention, index_bits = 32, threads = 256, elements_per_thread = 16, min_blocks = 1, tile = 4, launches = [#stride.launch<grid = 8, block = 256>]
// CHECK: scheme = split_kv_attention, index_bits = 32, vector_width = 8, threads = 256, slices = 2, elements_per_thread = 32, cluster_blocks = 2, min_blocks = 1, tile = 4, launches = [#stride.launch<grid = 16, block = 256>]
// SM80-LABEL: func.func @split_kv
// SM80: scheme = split_kv_attention, index_bits = 32, vector_width = 4, threads = 128, slices = 26, elements_per_thread = 16, min_blocks = 2, tile = 4, launches = [#stride.launch<grid = 208, block = 128, phase = 1>, #stride.launch<grid = 32, block = 128, phase = 2>]
// MP2-LABEL: func.func @split_kv
// MP2: scheme = split_kv_attention, index_bits = 32, vector_width = 4, threads = 256, elements_per_thread = 16, min_blocks = 1, tile = 4, launches = [#stride.launch<grid = 8, block = 256>]
func.func @split_kv(%q: !stride.tensor<1x32x1x128xf32>, %k: !stride.tensor<1x8x4096x128xf32>,
                    %v: !stride.tensor<1x8x4096x128xf32>, %kw: !stride.tensor<1x8x256x129xf32>,
                    %q16: !stride.tensor<1x128x1x128xbf16>, %kb: !stride.tensor<1x8x512x128xbf16>,
                    %vb: !stride.tensor<1x8x512x128xbf16>)
    -> (!stride.tensor<1x32x1x128xf32>, !stride.tensor<1x32x1x128xf32>, !stride.tensor<1x128x1x128xbf16>) {
  %o = stride.attention %q, %k, %v scale 0.08838835
      : !stride.tensor<1x32x1x128xf32>, !stride.tensor<1x8x4096x128xf32>, !stride.tensor<1x8x4096x128xf32>
        -> !stride.tensor<1x32x1x128xf32>
  %ku = stride.slice %kw dim 3 start 1 end 129 step 1 : !stride.tensor<1x8x256x129xf32> -> !stride.tensor<1x8x256x128xf32, strides = [264192, 33024, 129, 1], offset = 1>
  %vs = stride.slice %v dim 2 start 0 end 256 step 1 : !stride.tensor<1x8x4096x128xf32> -> !stride.tensor<1x8x256x128xf32, strides = [4194304, 524288, 128, 1], offset = 0>
  %ou = stride.attention %q, %ku, %vs scale 0.08838835
      : !stride.tensor<1x32x1x128xf32>, !stride.tensor<1x8x256x128xf32, strides = [264192, 33024, 129, 1], offset = 1>,
        !stride.tensor<1x8x256x128xf32, strides = [4194304, 524288, 128, 1], offset = 0> -> !stride.tensor<1x32x1x128xf32>
  %o16 = stride.attention %q16, %kb, %vb scale 0.08838835
      : !stride.tensor<1x128x1x128xbf16>, !stride.tensor<1x8x512x128xbf16>, !stride.tensor<1x8x512x128xbf16>
        -> !stride.tensor<1x128x1x128xbf16>
  return %o, %ou, %o16 : !stride.tensor<1x32x1x128xf32>, !stride.tensor<1x32x1x128xf32>, !stride.tensor<1x128x1x128xbf16>
}

// -----

// A skinny product with a prologue (skinny-prologue: the SwiGLU of a
// merged gate/up product before a down projection, 4096 x 14336 bf16):
// blocks of 1,024 threads, one per multiprocessor (128 of them cover the
// 4,096 columns' warps), each with the 14,336 bf16 rows' elements of its
// slice staged in 28,672 bytes of shared memory.
// PROLOGUE-LABEL: func.func @skinny_prologue
// PROLOGUE: stride.kernel "sigmoid_mul_mul_matmul"
// PROLOGUE-SAME: stride.schedule = #stride.schedule<scheme = skinny_matmul, index_bits = 32, vector_width = 8, threads = 1024, elements_per_thread = 8, tile = 1, launches = [#stride.launch<grid = 128, block = 1024, shared = 28672>]>
func.func @skinny_prologue(%gu: !stride.tensor<1x28672xbf16>, %wd: !stride.tensor<4096x14336xbf16>)
    -> !stride.tensor<1x4096xbf16> {
  %g = stride.slice %gu dim 1 start 0 end 14336 step 1 : !stride.tensor<1x28672xbf16>
      -> !stride.tensor<1x14336xbf16, strides = [28672, 1], offset = 0>
  %u = stride.slice %gu dim 1 start 14336 end 28672 step 1 : !stride.tensor<1x28672xbf16>
      -> !stride.tensor<1x14336xbf16, strides = [28672, 1], offset = 14336>
  %s = stride.sigmoid %g : !stride.tensor<1x14336xbf16, strides = [28672, 1], offset = 0> -> !stride.tensor<1x14336xbf16>
  %si = stride.mul %g, %s : !stride.tensor<1x14336xbf16, strides = [28672, 1], offset = 0>, !stride.tensor<1x14336xbf16> -> !stride.tensor<1x14336xbf16>
  %a = stride.mul %si, %u : !stride.tensor<1x14336xbf16>, !stride.tensor<1x14336xbf16, strides = [28672, 1], offset = 14336> -> !stride.tensor<1x14336xbf16>
  %wdt = stride.permute %wd dims [1, 0] : !stride.tensor<4096x14336xbf16>
      -> !stride.tensor<14336x4096xbf16, strides = [1, 14336], offset = 0>
  %d = stride.matmul %a, %wdt : !stride.tensor<1x14336xbf16>,
      !stride.tensor<14336x4096xbf16, strides = [1, 14336], offset = 0> -> !stride.tensor<1x4096xbf16>
  return %d : !stride.tensor<1x4096xbf16>
}
