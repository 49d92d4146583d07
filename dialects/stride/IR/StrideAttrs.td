//===- StrideAttrs.td - Attributes of the stride dialect ---*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Kernel schedules: how the CUDA backend runs each stride.kernel. The
// stride-schedule-kernels pass (include/stride/Target/CUDA/Passes.td) decides
// them and records one on every kernel as its `stride.schedule` attribute;
// the printers of lib/Target/CUDA read it and decide nothing themselves.
// Symbolic sizes: the symbols a function declares and the expressions the
// tensor type holds.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_ATTRS_TD
#define STRIDE_ATTRS_TD

include "StrideDialect.td"
include "StrideTypes.td"
include "mlir/IR/EnumAttr.td"

def Stride_KernelScheme : I32EnumAttr<"KernelScheme",
    "how a kernel's threads walk its iteration space", [
  I32EnumAttrCase<"GridStride", 0, "grid_stride">,
  I32EnumAttrCase<"Vectorized", 1, "vectorized">,
  I32EnumAttrCase<"TiledTranspose", 2, "tiled_transpose">,
  I32EnumAttrCase<"ReductionInner", 3, "reduction_inner">,
  I32EnumAttrCase<"ReductionOuter", 4, "reduction_outer">,
  I32EnumAttrCase<"RowRegisters", 5, "row_registers">,
  I32EnumAttrCase<"RowReread", 6, "row_reread">,
  I32EnumAttrCase<"Scatter", 7, "scatter">,
  I32EnumAttrCase<"SegmentedIndexAdd", 8, "segmented_index_add">,
  I32EnumAttrCase<"ReductionSplit", 9, "reduction_split">,
  I32EnumAttrCase<"RowScan", 10, "row_scan">,
  I32EnumAttrCase<"RowShared", 11, "row_shared">,
  I32EnumAttrCase<"SplitKvAttention", 12, "split_kv_attention">,
  I32EnumAttrCase<"SkinnyMatmul", 13, "skinny_matmul">,
  I32EnumAttrCase<"SortedIndexAdd", 14, "sorted_index_add">,
  I32EnumAttrCase<"LaunchGroup", 15, "launch_group">,
  I32EnumAttrCase<"StagedKvAttention", 16, "staged_kv_attention">,
  I32EnumAttrCase<"StagedKvMmaAttention", 17, "staged_kv_mma_attention">]> {
  let cppNamespace = "::stride";
  let genSpecializedAttr = 0;
}

def Stride_IndexAnalysis : I32EnumAttr<"IndexAnalysis",
    "where a default-mode segmented index_add gets the index analysis of its "
    "rows (counts, buckets, pages) and whether it clears the counts", [
  I32EnumAttrCase<"Own", 0, "own">,
  I32EnumAttrCase<"First", 1, "first">,
  I32EnumAttrCase<"Reused", 2, "reused">,
  I32EnumAttrCase<"Last", 3, "last">]> {
  let cppNamespace = "::stride";
  let genSpecializedAttr = 0;
}

def Stride_ColumnCombine : I32EnumAttr<"ColumnCombine",
    "how phase 2 of a reduction_split in column groups combines each "
    "output's partial results", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"Thread", 1, "thread">,
  I32EnumAttrCase<"Block", 2, "block">]> {
  let cppNamespace = "::stride";
  let genSpecializedAttr = 0;
}

class Stride_Attr<string name, string attrMnemonic>
    : AttrDef<Stride_Dialect, name> {
  let mnemonic = attrMnemonic;
  let assemblyFormat = "`<` struct(params) `>`";
}

def Stride_LaunchAttr : Stride_Attr<"Launch", "launch"> {
  let summary = "one launch of a kernel: grid, block, shared memory, phase";
  let description = [{
    The launch configuration of one launch of a kernel's `__global__`
    function: `grid` blocks (along x) of `block` x `block_y` threads, with
    `shared` bytes of dynamic shared memory; `phase` is the value of the
    trailing `int phase` argument of multi-phase kernels (index scatters).

    Over symbolic sizes (python-free-docs/symbolic-sizes.md) `grid` is the
    grid at the symbols' largest values and `elements` the work the grid
    covers, `per_block` of it per block: the grid at run time is
    `min(ceil(elements / per_block), grid)`, at least 1 (the kernel's loops
    over the sizes then run no iteration).

    ```mlir
    #stride.launch<grid = 2112, block = 256>
    #stride.launch<grid = 256, block = 256, elements = #stride.size<rows*64>, per_block = 256>
    #stride.launch<grid = 132, block = 32, block_y = 8>
    #stride.launch<grid = 64, block = 256, phase = 1>
    ```
  }];
  let parameters = (ins
    "int64_t":$grid,
    "int64_t":$block,
    DefaultValuedParameter<"int64_t", "1">:$block_y,
    DefaultValuedParameter<"int64_t", "0">:$shared,
    DefaultValuedParameter<"int64_t", "-1", "the phase argument, -1: none">:$phase,
    OptionalParameter<"SizeExprAttr", "the work the grid covers at run time">:$elements,
    DefaultValuedParameter<"int64_t", "1", "the work one block covers">:$per_block
  );
}

def Stride_StagedLoadAttr : Stride_Attr<"StagedLoad", "staged"> {
  let summary = "an input the tiled transpose scheme stages through shared memory";
  let description = [{
    Kernel input `arg`, read through `type` (a view of it, or the input
    itself) at the kernel's own coordinates, is staged through a
    shared-memory tile: loaded with unit stride along the schedule's
    `transpose_dim`, `vector_width` elements per load.

    ```mlir
    #stride.staged<arg = 0, type = !stride.tensor<64x64xf32, strides = [1, 64], offset = 0>, vector_width = 4>
    ```
  }];
  let parameters = (ins
    "unsigned":$arg,
    "StridedTensorType":$type,
    DefaultValuedParameter<"int64_t", "1">:$vector_width
  );
}

def Stride_KernelScheduleAttr : Stride_Attr<"KernelSchedule", "schedule"> {
  let summary = "how the CUDA backend runs a stride.kernel";
  let description = [{
    Recorded on each `stride.kernel` (as its `stride.schedule` attribute) by
    `stride-schedule-kernels`; python-free-docs/cuda-backend.md describes each scheme.

    - `scheme`: `grid_stride`, `vectorized` (pointwise, `vector_width`
      consecutive elements per thread and step), `tiled_transpose`
      (pointwise, `tile` x `tile` tiles of dims (`transpose_dim`, innermost)
      with the `staged` inputs through shared memory), `reduction_inner` /
      `reduction_outer` (`threads` per output element; `slices` threads
      split an outer reduction's range), `reduction_split` (each output's
      range split over `slices` blocks of `threads` threads, `vector_width`
      consecutive elements per thread and step, partial results in
      `scratch`, combined by a second launch; an inner one of at most 2
      blocks per multiprocessor has one launch, in which the last block
      of each output to arrive (an arrival counter per output, the last
      `scratch` buffer) combines the output's partials; an outer one,
      `tile` > 0:
      column tiles of `tile` outputs, `threads` threads per output, or with
      `vector_width` 4 column groups, a thread per 4 adjacent columns and
      `threads` rows per block), `row_registers` / `row_reread`
      (broadcast reductions: `threads` of a block per row, fewer than 32:
      several rows per warp, `elements_per_thread`
      held in registers or re-read, in groups of `vector_width` consecutive
      elements; `cluster_blocks` > 1: a row split over
      a thread-block cluster of that many blocks, sm_90), `row_shared`
      (broadcast reductions: a block of `threads` per row,
      `elements_per_thread` in groups of `vector_width`, holding the values
      later phases read back in its dynamic shared memory, the launch's
      `shared` bytes), `scatter`, `segmented_index_add`
      (deterministic: the source positions counted per row in `slices`
      columns, sorted by row, and reduced in chunks of `tile` sorted
      positions; default: a row's first `bucket` positions kept in its
      bucket, the later positions of a row in its pages of `tile`
      positions, each summed and added atomically, `slices` blocks
      walking the pages; `threads` per chunk or row,
      `vector_width` and `elements_per_thread` per unit of a row),
      `sorted_index_add` (an index_add marked `sorted_index`: a block of
      `threads` per row finds the row's run of positions by binary search
      and adds it, one launch, no scratch; its `slices` groups of threads
      each take every `slices`-th position of the run, their partial rows
      added in group order; `vector_width` and `elements_per_thread` per
      unit of a row), `row_scan` (a scan: `threads` per row, a warp or a whole
      block, scanning chunks of `threads` elements; `elements_per_thread`
      > 1: the row's that many chunks loaded into registers before the
      first is scanned), `split_kv_attention`
      (an attention op with few query rows: each key/value head's query
      rows and one of `slices` slices of the keys per block of `threads`
      threads; a warp step of 32 keys, a key a lane, its whole row read
      `vector_width` elements per load; a value's row read by the warp,
      `tile` consecutive dims a lane and load, `elements_per_thread` keys'
      values in flight; keys no row attends skipped unread; with `slices`
      > 1 each slice's partial softmax state in `scratch`, combined by a
      second launch), `staged_kv_attention` (an attention op of few
      query rows with a kv_length, 2-byte keys and values whose rows are
      16-byte aligned: `slices` blocks of `threads` threads per key/value
      head's query rows share its valid keys equally at run time; each
      block copies its keys' and values' rows through its dynamic shared
      memory (the launch's `shared` bytes) in chunks of at most `tile`
      keys, `vector_width` elements per asynchronous copy,
      `elements_per_thread` chunks in flight, with an online softmax
      across its chunks; each block's partial state goes to the first
      `scratch` buffer and the last of a unit's blocks to arrive (a
      counter per unit in the second) combines them, one launch),
      `staged_kv_mma_attention` (the same, each chunk's scores and
      weighted values on the tensor cores: mma.m16n8k16 with the unit's
      query rows as A and the key and value rows as B by ldmatrix, the
      value rows padded by 8 elements in shared memory),
      `skinny_matmul` (a matrix
      product of few rows against a weight contiguous along `K`: a warp
      per `tile` adjacent output columns, its lanes streaming the weight's
      rows and the activations `vector_width` elements per load, sums
      across the warp by shuffles; `column_warps` > 1: the block's
      `column_warps` warps share its one column group, warp `w` taking
      the 512-byte steps `w`, `w + column_warps`, ... of each weight row,
      their sums added in warp order through shared memory; `K` split
      over `slices` blocks, each slice's partial sums in `scratch`, added
      in slice order by a second launch), `launch_group` (independent small kernels as one launch,
      stride-group-launches: the kernel's body holds the member kernels,
      each with its own schedule; its one launch has their grids one after
      another, `threads` a block);
    - `column_warps`: (`skinny_matmul`) the warps of a block that share
      a column group: 1, a warp a group, or all of the block's;
    - `output_order`: (`reduction_inner` with a thread per output) the
      order in which consecutive threads take the output elements: the
      kept dims outermost first, as the kernel's largest input of the
      outputs' rank (else its first result) is laid out in memory (a max
      pool over a channels-last image: channels innermost, so that the
      threads of a warp read neighbouring elements); absent: row-major;
    - `min_blocks`: blocks of the kernel that its registers must let one
      multiprocessor hold (`__launch_bounds__`'s second argument); 0: no
      bound, the compiler's choice;
    - `index_bits`: 32 or 64-bit index arithmetic;
    - `launches`: the launches, in order (`#stride.launch`); none when the
      kernel has no element to compute;
    - `scratch`: bytes of each scratch buffer the kernel needs;
    - `deterministic`: the kernel's float results do not depend on the
      order in which threads run (stridec --deterministic);
    - `column_combine`: (`reduction_split` in column groups) how phase 2
      combines each output's partials: `block` (more than 64 slices), a
      block per output with a tree, the partials at [output][slice];
      `thread`, a thread per output in a serial loop, at [slice][output];
      `none` for every other schedule;
    - `bucket`: (default-mode `segmented_index_add`) the source positions
      a row holds in its bucket; a row with more is a long row;
    - `pages`, `hash_entries`: (default-mode `segmented_index_add` where a
      row can outgrow its bucket) the most pages of `tile` positions the
      long rows fill, and the entries of the pages' hash table (a power of
      two at least twice `pages`); 0 where no row can;
    - `index_analysis`: (default-mode `segmented_index_add`) `own`: the
      kernel ranks its index (phase 1) and clears the counts when it ends;
      several index_adds over one index share their first two or four
      scratch buffers (counts, buckets, and, where a row can outgrow its
      bucket, the pages' hash table and the pages;
      `stride-share-index-analysis`): the `first`
      ranks and keeps the counts, a `reused` one runs no phase 1 and keeps
      them, the `last` runs no phase 1 and clears them.

    ```mlir
    #stride.schedule<scheme = vectorized, index_bits = 32, vector_width = 4,
                     launches = [#stride.launch<grid = 1024, block = 256>]>
    ```
  }];
  let parameters = (ins
    EnumParameter<Stride_KernelScheme>:$scheme,
    "unsigned":$index_bits,
    DefaultValuedParameter<"int64_t", "1">:$vector_width,
    DefaultValuedParameter<"int64_t", "0">:$threads,
    DefaultValuedParameter<"int64_t", "1">:$slices,
    DefaultValuedParameter<"int64_t", "0">:$elements_per_thread,
    DefaultValuedParameter<"int64_t", "1">:$cluster_blocks,
    DefaultValuedParameter<"int64_t", "0">:$min_blocks,
    DefaultValuedParameter<"int64_t", "0">:$tile,
    DefaultValuedParameter<"int64_t", "-1">:$transpose_dim,
    OptionalParameter<"::mlir::ArrayAttr">:$staged,
    "::mlir::ArrayAttr":$launches,
    OptionalParameter<"::mlir::DenseI64ArrayAttr">:$scratch,
    DefaultValuedParameter<"bool", "false">:$deterministic,
    DefaultValuedParameter<"::stride::ColumnCombine",
                           "::stride::ColumnCombine::None">:$column_combine,
    DefaultValuedParameter<"int64_t", "0">:$bucket,
    DefaultValuedParameter<"int64_t", "0">:$pages,
    DefaultValuedParameter<"int64_t", "0">:$hash_entries,
    DefaultValuedParameter<"::stride::IndexAnalysis",
                           "::stride::IndexAnalysis::Own">:$index_analysis,
    OptionalParameter<"::mlir::DenseI64ArrayAttr">:$output_order,
    DefaultValuedParameter<"int64_t", "1">:$column_warps
  );
  let extraClassDeclaration = [{
    /// The name of the discardable attribute that holds a kernel's schedule.
    static constexpr ::llvm::StringLiteral kAttrName = "stride.schedule";

    /// The leading scratch buffers that hold a default-mode
    /// `segmented_index_add`'s index analysis, which
    /// stride-share-index-analysis shares between kernels: counts and
    /// buckets, and, where a row can outgrow its bucket, the pages' hash
    /// table and the pages; the partial sums and progress counters after
    /// them are the kernel's own. 0 for every other schedule.
    unsigned getIndexAnalysisBuffers() const {
      if (getScheme() != ::stride::KernelScheme::SegmentedIndexAdd ||
          getDeterministic() || !getScratch())
        return 0;
      return std::min<unsigned>(4, getScratch().size());
    }
  }];
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

def Stride_MatmulOperandAttr : Stride_Attr<"MatmulOperand", "matmul_operand"> {
  let summary = "how the library call of a stride.matmul reads one operand";
  let description = [{
    Recorded on a `stride.matmul` (as `lhs_layout` and `rhs_layout`) by
    `stride-matmul-layout`: the operand `[B..., R, C]` is read in place,
    row-major (`transposed = false`: element `(r, c)` at `r * ld + c`) or
    column-major (`transposed = true`: at `r + c * ld`), from the operand's
    offset, one matrix every `batch_stride` elements (0: a broadcast batch).
    The rule is `matmulOperandLayout` (stride/Support/MatmulLayout.h); the
    op's verifier checks that a recorded layout is the one the operand's
    type gives.

    ```mlir
    #stride.matmul_operand<transposed = true, ld = 8, batch_stride = 0>
    ```
  }];
  let parameters = (ins "bool":$transposed, "int64_t":$ld,
                        "int64_t":$batch_stride);
}

//===----------------------------------------------------------------------===//
// Symbolic sizes (python-free-docs/symbolic-sizes.md)
//===----------------------------------------------------------------------===//

def Stride_SymbolAttr : AttrDef<Stride_Dialect, "Symbol"> {
  let mnemonic = "symbol";
  let summary = "a named size that takes every value of a range";
  let description = [{
    One symbol of a function's symbolic sizes (`batch`, `seq`): the values
    `min <= v <= max` that are multiples of `multiple_of` (1 when not
    written). A function declares the symbols its types name, once, in its
    `stride.symbols` attribute:

    ```mlir
    func.func @f(%x: !stride.tensor<[batch, 768], f32>)
        attributes {stride.symbols = [
          #stride.symbol<"batch", range = [1, 1024]>,
          #stride.symbol<"seq", range = [8, 4096], multiple_of = 8>]}
    ```

    The name is an identifier; `0 <= min <= max`, `multiple_of >= 1`, and
    the range holds at least one multiple.
  }];
  let parameters = (ins
    "::mlir::StringAttr":$name,
    "int64_t":$min,
    "int64_t":$max,
    DefaultValuedParameter<"int64_t", "1">:$multipleOf
  );
  let assemblyFormat = [{
    `<` $name `,` `range` `=` `[` $min `,` $max `]`
    (`,` `multiple_of` `=` $multipleOf^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    ::stride::SizeSymbol getSizeSymbol() const;
  }];
}

def Stride_SizeExprAttr : AttrDef<Stride_Dialect, "SizeExpr"> {
  let mnemonic = "size";
  let summary = "a size, stride or offset as a polynomial of symbols";
  let description = [{
    The sum over terms of `coefficient * product of symbols`, in the
    canonical form of `stride::SizeExpr` (`stride/Support/SizeExpr.h`):
    like terms combined, no zero coefficient, terms ordered. Term `i` has
    `coefficients[i]` and the next `degrees[i]` names of `factors` (sorted;
    a symbol repeats once per power). Printed as the expression:

    ```mlir
    #stride.size<batch*seq*768 + 768>
    ```

    The tensor type holds these for a symbolic layout; the expressions are
    parsed and printed there without the `#stride.size<>` around them.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$coefficients,
    ArrayRefParameter<"int64_t">:$degrees,
    ArrayRefParameter<"::mlir::StringAttr">:$factors
  );
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    static SizeExprAttr get(::mlir::MLIRContext *context,
                            const ::stride::SizeExpr &expr);
    ::stride::SizeExpr getValue() const;
  }];
}

#endif // STRIDE_ATTRS_TD
