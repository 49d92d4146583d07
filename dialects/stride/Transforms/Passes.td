//===- Passes.td - Stride passes ---------------------------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TRANSFORMS_PASSES_TD
#define STRIDE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CheckSymbolicSizes : Pass<"stride-check-symbolic-sizes",
                              "::mlir::func::FuncOp"> {
  let summary = "Refuse symbolic sizes where the backend needs static ones";
  let description = [{
    Stride verifies graphs with symbolic sizes (`!stride.tensor<[batch,
    768], f32>`) and checks their layouts for every value in the symbols'
    ranges; the backend builds pointwise ops (and `full`, `iota`), views,
    gathers (`index_select`, `gather`), concatenations, reductions and
    scans (rows of a symbolic count or length: softmax, layer norm,
    `cumsum`) over them (kernels that take sizes as arguments, plans sized
    at run time: python-free-docs/symbolic-sizes.md), and products over
    symbolic rows and a symbolic leading batch dim with static strides
    (cuBLASLt calls whose descriptors the runtime evaluates per shape), and
    attention over a symbolic batch and token counts with static heads and
    head dims (one cuDNN call whose graph the runtime builds per shape;
    `stride-decompose-attention` refuses such an op cuDNN does not take).
    This pass, the first of the pipeline, refuses anything else over
    symbolic sizes with one located error naming the op, the symbol and
    its range, and what is not built: `as_strided` views of computed
    values, products over a symbolic contraction, column count or
    strides, attention over a symbolic head dim, any other op (scatters,
    convolutions, collectives), a symbol whose range holds 0, a state of
    symbolic sizes. A static graph passes unchanged.

    ```
    error: 'stride.index_add' over the symbolic size 'seq' (8 to 4096,
    multiples of 8) is not built yet: Stride compiles symbolic sizes for
    pointwise ops, views, gathers, concatenations, reductions, scans,
    products over symbolic rows and attention over symbolic batch and
    token counts only (issue 44)
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

def InstantiateSymbols : Pass<"stride-instantiate-symbols",
                              "::mlir::func::FuncOp"> {
  let summary = "Replace symbolic sizes by given values";
  let description = [{
    Instantiates a function of symbolic sizes (python-free-docs/
    symbolic-sizes.md) at given values of its symbols: every type, every
    size expression of an op (a slice's symbolic bound) and the function's
    signature take the values, the instantiated symbols leave
    `stride.symbols` (which is dropped when none is left), and with every
    symbol given the function is static. A value outside the symbol's range
    or not a multiple of its `multiple_of` is refused at the function, with
    the range; so is a name the function does not declare, and a value
    given twice. A function without `stride.symbols` is left as it is.

    `stride-opt --stride-instantiate-symbols="values=rows=7"` on

    ```mlir
    func.func @f(%x: !stride.tensor<[rows, 64], f32>)
        -> !stride.tensor<[rows, 64], f32>
        attributes {stride.symbols = [#stride.symbol<"rows", range = [1, 1024]>]} {
      %y = stride.relu %x : <[rows, 64], f32> -> <[rows, 64], f32>
      return %y : !stride.tensor<[rows, 64], f32>
    }
    ```

    gives

    ```mlir
    func.func @f(%x: !stride.tensor<7x64xf32, strides = [64, 1], offset = 0>)
        -> !stride.tensor<7x64xf32, strides = [64, 1], offset = 0> {
      %y = stride.relu %x : <7x64xf32, strides = [64, 1], offset = 0> -> ...
    ```

    so a static tool (the reference interpreter, a module of one shape)
    can take a graph exported with dynamic shapes. `stridec
    --instantiate-symbols` and `stride-run --instantiate-symbols` run it.
    The function is verified again afterwards (its types are new).
  }];
  let options = [
    ListOption<"values", "values", "std::string",
               "the symbols' values, `name=value` each (batch=7,seq=33)">
  ];
  let dependentDialects = ["::stride::StrideDialect"];
}

def LegalizeLayouts : Pass<"stride-legalize-layouts", "::mlir::func::FuncOp"> {
  let summary = "Reject (or repair) functional results whose layout overlaps";
  let description = [{
    A functional op (pointwise, creation, scatter, gather, reduction, clone)
    writes a fresh buffer, so every logical element of its result needs an
    address of its own. This pass checks each functional result layout with
    the sufficient non-overlap test of `stride/Support/Layout.h` and rejects
    a stride of 0 on a dim of size > 1, two logical indices that share an
    address, and layouts it cannot prove non-overlapping. The error names
    the op, the result, the dim, its size and its stride; a note points at
    the view operand whose layout the result copied.

    View ops are always legal (a zero stride is what `stride.expand` is).
    A function result that is not the result of a functional op (a view of
    part of a buffer, a state) is materialized with a `stride.clone` into a
    row-major buffer. Two kinds are returned as they are: a view that is
    the whole of a functional op's result under another shape (both
    row-major with offset 0, as many elements: a reshape of a product into
    the graph's logits, say), whose buffer the plan returns; and an
    argument, or a view of one, that is no state and that no result writes
    back (`returnedInput`): the module hands the caller's storage back as
    an aliased output, without a copy (python-free-docs/module-format.md).
    A result written back into an argument is always copied.

    With `repair`, each offending result instead gets a dense layout: the
    dim order of the op's first tensor operand where that operand is dense
    and of the same rank, otherwise row-major; views built on a repaired
    value are re-inferred, and a remark reports each repair.

    Before (rejected; with `repair` the result becomes
    `strides = [429, 33, 1]`):

    ```mlir
    %e = stride.expand %u : !stride.tensor<4x1x33xf32>
        -> !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0>
    %r = stride.slice_scatter %e, %z dim 1 start 0 end 6 step 1
        : !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0>,
          !stride.tensor<4x6x33xf32>
        -> !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0>
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
  let options = [
    Option<"repair", "repair", "bool", /*default=*/"false",
           "Give each illegal functional result a dense layout instead of "
           "failing">,
  ];
}

def RecognizeAttention : Pass<"stride-recognize-attention",
                              "::mlir::func::FuncOp"> {
  let summary = "Rewrite attention spelled out as ops (transformers' eager "
                "attention) into stride.attention";
  let description = [{
    Finds `softmax(scale * Q K^T + mask) V` written as ops, as an imported
    eager attention has it, and replaces it with one `stride.attention`, so
    that `stride-attention-library` can run it as one fused call whose
    `Sq x Skv` scores never reach memory. The pattern is rooted at the
    product with the value and reads back:

    - the softmax over the last dim as the importer expands `_softmax`
      (`max`, `sub`, `exp`, `sum`, `div`), optionally between float casts
      (an f32 softmax of bf16 scores, cast back);
    - an additive mask (`stride.add`) that is provably finite (a
      `stride.where` of constants, as transformers builds it, seen through
      broadcasts), or a `stride.where` of the scores with a constant fill
      below `-2^127` (f32's and bf16's lowest value), which becomes the
      additive mask `where(keep, 0, fill)`;
    - a scale: `stride.mul` or `stride.div` by a constant, of the scores or
      of the query before the product;
    - the product of query and key (`stride.matmul`, through the views and
      copies `torch.matmul` adds); the key is the product's rhs before a
      transpose of its last two dims, or that rhs transposed here; a key
      and value repeated over query heads by unsqueeze, expand and reshape
      (LLaMA's `repeat_kv`) are read with their own heads (grouped-query
      attention).

    Every value between the two products must have no other use. A mask
    that could hold `-inf` on a whole row (eagerly a NaN row, in the op a
    zero row), or a fill that does not absorb the scores (f16's lowest,
    `-inf`), is left as ops: the rewrite changes no result beyond rounding
    (python-free-docs/attention.md, "Attention spelled out as ops"). The
    mask stays an operand; the compiler library folds a constant causal
    one into the op's `causal` flag afterwards. Runs first in the default
    pipeline (`recognize-attention=false` turns it off).

    The pass also reads through `repeat_kv` in front of an existing
    `stride.attention` (an imported SDPA call that transformers gave a
    mask, so that it repeated the key and value over the query heads
    itself): the op takes the tensors before the repeat as grouped-query
    attention, and the repeated copy (in a decode step, the whole KV cache
    times the group size) is never made.

    Before (types shortened):

    ```mlir
    %kt = stride.permute %k dims [0, 1, 3, 2] : ... -> <1x2x16x8xf32, ...>
    %s0 = stride.matmul %q, %kt : ... -> <1x2x8x8xf32>
    %s = stride.mul %s0, %c : ...                 // %c: 0.25 broadcast
    %x = stride.add %s, %m : ...                  // %m: where(keep, 0, min)
    %mx = stride.max %x dims [3] keepdim : ...
    ... sub, exp, sum, div: %p
    %o = stride.matmul %p, %v : ... -> <1x2x8x16xf32>
    ```

    After:

    ```mlir
    %o = stride.attention %q, %k, %v mask %m scale 2.500000e-01 : ...
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

def FoldIndexMasks : Pass<"stride-fold-index-masks", "::mlir::func::FuncOp"> {
  let summary = "Boolean attention masks built from index arithmetic become "
                "the causal flag or a valid key count";
  let description = [{
    A model builds its attention mask from `arange`s, a position and
    comparisons. Where the reference interpreter cannot evaluate it at
    compile time (symbolic sizes; a decode step's position, an input), this
    pass reads it from its ops (`dialects/stride/Analysis/IndexForms.h`:
    integer tensors as affine functions of their coordinates and of one
    scalar read at run time, booleans as comparisons of them), for every
    size and every value of the inputs. A boolean mask of `stride.attention`
    or `stride.attention_backward` over `[b, h, i, j]` that is

    - true everywhere (transformers' packed-sequence test of positions
      that are an `arange`, and-ed in) is dropped;
    - `j <= i` (over symbolic query and key counts too) becomes the op's
      `causal` flag;
    - `j + c <= s` over one query row, `s` an integer with one element
      read at run time (a decode step's cache position) and `c` a
      constant, becomes the forward's `kv_length`: `clamp(s - c + 1, 0,
      Skv)` as i32 per batch, computed once for the layers that share the
      position. The split-KV kernel then reads only the valid part of a
      static KV cache; `stride-attention-library` gives a cuDNN call the
      count back as a bias (python-free-docs/attention.md, "Masks read
      from their ops"). Over symbolic sizes the mask stays.

    Any other mask stays. Runs in the default pipeline after
    `stride-recognize-attention`, before the library decides how each
    attention runs.

    ```mlir
    %le = stride.cmp le, %keys, %position : ... -> <1x1x1x4096xi1, ...>
    %m = stride.expand %le : ... -> <1x32x1x4096xi1, strides = [4096, 0, 4096, 1], offset = 0>
    %o = stride.attention %q, %k, %v mask %m scale 0.0883 : ...
    // becomes
    %n = ... clamp(position + 1, 0, 4096) as i32 : <1xi32>
    %o = stride.attention %q, %k, %v kv_length(%n : !stride.tensor<1xi32>) scale 0.0883 : ...
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

def AttentionLibrary : Pass<"stride-attention-library", "::mlir::func::FuncOp"> {
  let summary = "keep the attention ops a library takes fused, in the "
                "layout it reads, and mark the decode steps it does not take "
                "for the split-KV kernel";
  let description = [{
    Chooses, for each `stride.attention` and `stride.attention_backward`,
    whether it runs as one fused library call (`library=cudnn`: cuDNN's
    flash attention, python-free-docs/attention.md) or is left to
    `stride-decompose-attention`, and prepares the ones it keeps:

    - cuDNN takes f16 and bf16, head dims (`D`, `Dv`) that are multiples of
      8 up to 128, and any causal flag, GQA and mask; everything else is
      decomposed (with `library=none`, every op is).
    - An operand whose rows are not contiguous (`stride[3] != 1`), or whose
      strides or offset are not multiples of 16 bytes, is copied into a
      dense tensor first (`stride.clone`); a head view of a fused QKV
      projection is read in place. The backward reads the row statistics
      (the logsumexp) dense from element 0, so other layouts are copied.
    - Results: cuDNN writes an output or gradient through its strides
      where they suit it (as operands above); otherwise, and always for
      the forward's statistics (dense, as PyTorch's CUDA kernels return
      them, while its CPU flash attention returns them heads-innermost),
      the op gets a dense result and a `stride.clone` after it gives the
      other uses the layout the graph declared.
    - The mask becomes cuDNN's additive bias: the mask's broadcast dims
      (stride 0) are sliced to size 1, that small tensor is turned into
      the query's element type (a boolean mask into 0 and `-inf` with
      `stride.where`, a float one copied only where its layout needs it),
      and expanded back, so the bias cuDNN reads broadcasts over batch,
      heads and query rows without a `Sq x Skv` tensor per head in memory
      (for the backward the runtime gives cuDNN the query rows at full
      size with stride 0, as PyTorch does: a rows' dim of size 1 gave
      cuDNN's backward a wrong dQ).
    - Each op kept is marked `stride.keep_fused`; the plan lowers it to a
      `cudnn.sdpa_forward` or `cudnn.sdpa_backward` library call.
    - Over symbolic batch and token counts the same holds for every value
      of the symbols: a stride or offset is a multiple of 16 bytes where
      each coefficient of its expression is, copies and the bias are
      dense over the symbolic sizes, and the split-KV kernel (static
      bounds) is never chosen.

    A forward op that cuDNN does not take (f32, other head dims,
    `library=none`) with few query rows per key/value head (at most 4
    query rows, and at most 16 rows counting the query heads that share a
    key/value head: a decode step), head dims up to 256 and no logsumexp
    result is marked `stride.split_kv` (option `split-kv`, on by default):
    it runs as Stride's split-KV kernel (python-free-docs/attention.md,
    "Decode attention") instead of being decomposed around a copy of the
    key and value per query head. A decode step that both take runs as
    option `decode-attention` says: `library` (cuDNN), `split-kv`, or
    `auto` (the default): the split-KV kernel where the step has at most
    kMaxAutoSplitKvQueryHeads query heads over the batch
    (AttentionLibrary.cpp; 0 since an H200 measured cuDNN faster at
    every batch, so auto gives cuDNN every decode step it takes).

    Runs after `stride-legalize-layouts` and before
    `stride-decompose-attention` in the default pipeline.

    Before:

    ```mlir
    %o = stride.attention %q, %k, %v mask %m scale 0.125
        : !stride.tensor<2x4x64x64xbf16>, ..., !stride.tensor<2x4x64x64xi1,
          strides = [64, 0, 0, 1], offset = 0> -> !stride.tensor<2x4x64x64xbf16>
    ```

    After:

    ```mlir
    %s = stride.slice %m dim 1 start 0 end 1 step 1 : ...
    %s2 = stride.slice %s dim 2 start 0 end 1 step 1 : ... -> <2x1x1x64xi1, ...>
    %bias = stride.where %s2, %zeros, %ninf : ... -> <2x1x1x64xbf16>
    %e = stride.expand %bias : ... -> <2x4x64x64xbf16, strides = [64, 0, 0, 1]>
    %o = stride.attention %q, %k, %v mask %e scale 0.125 {stride.keep_fused} : ...
    ```
  }];
  let options = [
    Option<"library", "library", "std::string", "\"cudnn\"",
           "The library that runs fused attention: cudnn, or none (no "
           "library: decode steps as the split-KV kernel with split-kv, "
           "every other attention op decomposed)">,
    Option<"splitKv", "split-kv", "bool", "true",
           "Run attention ops with few query rows (decode steps) as the "
           "split-KV kernel">,
    Option<"decodeAttention", "decode-attention", "std::string", "\"auto\"",
           "How decode steps that both cuDNN and the split-KV kernel take "
           "run: auto (cuDNN, measured faster at every batch), "
           "split-kv or library (cuDNN)">
  ];
  let dependentDialects = ["::stride::StrideDialect"];
}

def DecomposeAttention : Pass<"stride-decompose-attention",
                              "::mlir::func::FuncOp"> {
  let summary = "Rewrite attention ops into matrix products and a softmax "
                "(the fallback of the fused library call)";
  let description = [{
    `stride.attention` and `stride.attention_backward` are meant to run as
    one fused library call (cuDNN) that never writes the `Sq x Skv` scores
    to memory. Where that call is not taken (f32 and f64, or no GPU library
    chosen), this pass rewrites each op into ops Stride already compiles,
    so that every graph with attention compiles; fusion then groups them
    into kernels around the products.

    - The scores are one batched `stride.matmul` of the query, viewed as
      `[B, Hkv, G, Sq, D]` (`G = Hq / Hkv`), with the key, broadcast over
      the `G` query heads of a group by a `stride.expand` (stride 0) and
      transposed by a `stride.permute`; a `stride.mul` applies `scale`.
    - An additive mask is a `stride.add`; a boolean mask and `causal`
      (`stride.iota` rows and columns, `stride.cmp le`) a `stride.where`
      that writes `-inf`.
    - The softmax is `max`, `sub`, `exp`, `sum`; the exponentials times the
      value (another product) are divided by the sum. A row whose max is
      `-inf` (every key masked) subtracts 0 and divides by 1 instead, so
      its result is 0 and its logsumexp, `max + log(sum)`, is `-inf`.
    - The backward computes `P = exp(S - logsumexp)` (a `-inf` logsumexp
      replaced by `+inf`, so such a row has `P = 0`), `dP = dO V^T`,
      `dS = scale * P * (dP - rowsum(dO * O))`, and `dQ = dS K`,
      `dK = dS^T Q`, `dV = P^T dO`; `dK` and `dV` are summed over the `G`
      query heads of each group (`stride.sum`).
    - f16 and bf16 are computed in f32 (`stride.cast` of the operands, and
      of the results back), f32 in f32, f64 in f64; the f32 logsumexp is
      cast from f64 for f64.

    An op carrying the discardable unit attribute `stride.keep_fused`
    (`StrideDialect::kKeepFusedAttrName`) or `stride.split_kv`
    (`kSplitKvAttrName`) is left alone: stride-attention-library marks an
    op so when it runs as the fused cuDNN call or as the split-KV kernel.
    An op over symbolic sizes that is not kept fused is refused at the op
    (its products would contract over a symbolic key count, which
    cuBLASLt's products over symbolic sizes do not take yet), with a note
    giving its element type and head dims. Runs after
    `stride-legalize-layouts` and before `stride-matmul-layout` and
    `stride-fuse` in the default pipeline.

    Before:

    ```mlir
    %o = stride.attention %q, %k, %v scale 0.5 causal
        : !stride.tensor<1x4x8x16xf32>, !stride.tensor<1x2x8x16xf32>,
          !stride.tensor<1x2x8x16xf32> -> !stride.tensor<1x4x8x16xf32>
    ```

    After (types shortened):

    ```mlir
    %qg = stride.view %q : ... -> <1x2x2x8x16xf32>
    %ku = stride.unsqueeze %k dim 2 : ... -> <1x2x1x8x16xf32>
    %ke = stride.expand %ku : ... -> <1x2x2x8x16xf32, strides = [256, 128, 0, 16, 1]>
    %kt = stride.permute %ke dims [0, 1, 2, 4, 3] : ... -> <1x2x2x16x8xf32, ...>
    %qk = stride.matmul %qg, %kt : ... -> <1x2x2x8x8xf32>
    %s0 = stride.view %qk : ... -> <1x4x8x8xf32>
    %s1 = stride.mul %s0, %scale : ...           // %scale: stride.full 0.5
    %rows = stride.iota dim 0 : <8x8xi64>
    %cols = stride.iota dim 1 : <8x8xi64>
    %seen = stride.cmp le, %cols, %rows : ... -> <8x8xi1>
    %s = stride.where %seen4, %s1, %ninf : ...  // %seen4: %seen expanded
    %m = stride.max %s dims [3] keepdim : ... -> <1x4x8x1xf32>
    ... exp(%s - max), sum, matmul with the expanded value, div
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

// The convolution passes (issue 42).
include "ConvolutionPasses.td"

// Products merged before their layouts are decided.
include "ProductPasses.td"

// stride-matmul-layout (issue 39: padded operand rows and K).
include "MatmulPasses.td"

include "LayoutPasses.td"

def FoldConstants : Pass<"stride-fold-constants", "::mlir::func::FuncOp"> {
  let summary = "Compute ops whose operands are all constants at compile "
                "time";
  let description = [{
    Every functional op of the function's body whose operands are all
    constants, or views of them (`stride.constant`, `stride.full`,
    `stride.iota`, through any chain of views), is computed by the
    reference interpreter and replaced by a `stride.constant` of its
    result type: the same shape, element type and layout (strides and
    offset; the constant's value is in row-major order, its type places
    it). A chain folds op by op, in program order. A result whose elements
    are all equal is a splat. The constants and views that nothing reads
    any more are removed.

    The values are the interpreter's: each op computed in float64 and
    rounded once to its result type. A kernel on the GPU computes a fused
    chain of ops in float32 and rounds at its end, so a folded value can
    differ from the value the unfolded module computed at run time by the
    rounding of the intermediates (as PyTorch's eager ops round each one).

    Left alone:

    - library calls (products, convolutions, attention: their cost at
      compile time grows as a product of sizes) and collectives; kernels
      and every op with a memory effect;
    - an op the interpreter refuses (an index out of range, an integer
      division by zero): the module reports it at run time, as before;
    - an op whose folding would grow the module by more than
      `max-growth-bytes`: the result's bytes, less those of the constants
      that only this op reads (which the fold removes). A `stride.expand`
      of a small constant read by an `add` would otherwise become a
      constant as large as the broadcast, and a weight that another op
      still reads (a tied embedding) would be stored twice. One shape is
      cheaper than it looks: a `stride.cat` whose first piece is such a
      constant, read through views that keep its dense layout (a weight
      padded with zero rows for the library, `stride-matmul-layout`),
      folds into a constant that holds it, the constant's other readers
      read that piece (a `stride.slice` of it) and the constant goes, so
      the module grows by the padding only. GPT-2's tied LM head over
      symbolic tokens is padded so; unfolded, a kernel copied its 77 MB
      weight at every run.

    Runs after the passes that build such chains (the batch norm folded
    into a convolution's weight, the weights copied into channels-last
    for cuDNN, the products' weights padded) and before `stride-fuse`, so
    that no kernel recomputes them at every run.

    Before:

    ```mlir
    %w = stride.constant dense<[1.0, 2.0]> : tensor<2xf32> : !stride.tensor<2xf32>
    %s = stride.constant dense<3.0> : tensor<2xf32> : !stride.tensor<2xf32>
    %p = stride.mul %w, %s : (!stride.tensor<2xf32>, !stride.tensor<2xf32>)
        -> !stride.tensor<2xf32>
    %r = stride.add %x, %p : ...
    ```

    After:

    ```mlir
    %p = stride.constant dense<[3.0, 6.0]> : tensor<2xf32> : !stride.tensor<2xf32>
    %r = stride.add %x, %p : ...
    ```
  }];
  let options = [
    // 64 KiB: a few hundred per-channel vectors, or a small table such as
    // a mask of 256 x 256 booleans, is cheaper stored than computed by a
    // kernel launch at each run, but a broadcast to an activation's size
    // (megabytes) is not.
    Option<"maxGrowthBytes", "max-growth-bytes", "int64_t", "65536",
           "Fold an op only where the module grows by at most this many "
           "bytes (the result's, less the constants only it reads)">
  ];
  let dependentDialects = ["::stride::StrideDialect"];
}

def Fuse : Pass<"stride-fuse", "::mlir::func::FuncOp"> {
  let summary = "Group ops into stride.kernel regions, one GPU kernel each";
  let description = [{
    Forms `stride.kernel` regions so that no intermediate a kernel could
    recompute is written to memory. Ops are visited from last to first and
    each functional op joins the kernel of its consumers when all of them
    are in one kernel and the kernel contract allows it:

    - pointwise ops, `cast`, `clone`, `constant`, mask scatters
      (`slice_scatter`, `select_scatter`) and indirect loads (`gather`,
      `index_select`) fuse into any consumer kernel;
    - a reduction is the root of its kernel: its producers fuse as its
      prologue, and a pointwise consumer fuses as its epilogue when the
      consumer has the reduction's result shape, or (option
      `broadcast-epilogues`) when it reads the result broadcast back over
      the reduction's input shape (softmax's division);
    - `scatter`, `scatter_add` and `index_add` are roots that accumulate;
      their `input`, `index` and source expressions fuse; sibling
      scatters (option `sibling-scatters`: along one dim, into results of
      one shape, with one index, neither reading the other's result, as a
      decoder's key and value cache writes) share one kernel that yields
      each;
    - views never join a kernel: each kernel clones the views it reads, so
      a view of a kernel input is part of that kernel's load expression;
      `full` and `iota` are cloned the same way;
    - a value read by several kernels, or returned, is materialized once as
      a kernel result (an extra result of a consumer kernel when it is
      computed over that kernel's iteration space, a row output of a
      broadcast-reduction consumer when it is one of its rows' reductions
      or per-row ops, stored once per row: LayerNorm's saved mean and
      rstd; else a kernel of its own), except a `cast` that only converts
      (its input's layout, elements no narrower; option `recompute-casts`)
      read by kernels alone: each of them converts the cast's input;
    - per-row ops that only a `return` reads (batch norm's weight and bias
      gradients) join the broadcast-reduction kernel whose rows they read,
      as its row outputs.

    A cost model bounds every kernel, so that a long graph becomes many
    kernels of bounded size and its compile time grows linearly with it: an
    op does not join a kernel that already holds `max-kernel-ops`
    functional ops, or whose estimated registers per thread would exceed
    `max-kernel-registers`. The estimate is the most values live at once
    (per element: computed or loaded, not yet read for the last time, in
    program order) times the elements a thread holds (a row of a form (d)
    kernel: up to 32 in registers; otherwise 1), plus one per reduction of
    a form (d) kernel. An op refused by the bound roots a kernel of its
    own, whose result the other kernel reads from memory.

    Kernels are named after their ops (`slice_scatter_sum`), unique per
    function. Unused views and functional ops are erased first. Every
    kernel formed satisfies the contract of `python-free-docs/fusion.md` (checked).

    Before (the seed's forward graph):

    ```mlir
    %s = stride.slice_scatter %x, %src dim 1 start 0 end 6 step 1
        : !stride.tensor<4x13x33xf32>, !stride.tensor<4x6x33xf32>
        -> !stride.tensor<4x13x33xf32>
    %r = stride.sum %s dims [1]
        : !stride.tensor<4x13x33xf32> -> !stride.tensor<4x33xf32>
    return %r : !stride.tensor<4x33xf32>
    ```

    After (one kernel; the 4x13x33 intermediate is never written):

    ```mlir
    %r = stride.kernel "slice_scatter_sum" ins(%x, %src
        : !stride.tensor<4x13x33xf32>, !stride.tensor<4x6x33xf32>)
        -> (!stride.tensor<4x33xf32>) {
    ^bb0(%a: !stride.tensor<4x13x33xf32>, %b: !stride.tensor<4x6x33xf32>):
      %s = stride.slice_scatter %a, %b dim 1 start 0 end 6 step 1 : ...
      %t = stride.sum %s dims [1] : ...
      stride.yield %t : !stride.tensor<4x33xf32>
    }
    return %r : !stride.tensor<4x33xf32>
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
  let options = [
    Option<"broadcastEpilogues", "broadcast-epilogues", "bool",
           /*default=*/"true",
           "Fuse a pointwise consumer that reads a reduction's result "
           "broadcast back over the reduction's input shape into the "
           "reduction's kernel (contract form (d))">,
    Option<"recomputeCasts", "recompute-casts", "bool", /*default=*/"true",
           "Clone a cast that only converts (its input's layout, elements "
           "no narrower), read by several kernels, into each of them instead "
           "of materializing it">,
    Option<"rowInputOutputs", "row-input-outputs", "bool",
           /*default=*/"true",
           "Yield a pointwise value that a broadcast-reduction kernel reads "
           "as its reductions' input (a residual sum an RMSNorm "
           "normalizes) from that kernel when other kernels read it too, "
           "instead of a kernel of its own">,
    Option<"siblingScatters", "sibling-scatters", "bool",
           /*default=*/"true",
           "Put independent index scatters along one dim, into results of "
           "one shape, with one index (a decoder's key and value cache "
           "writes) into one kernel that yields each">,
    Option<"maxKernelOps", "max-kernel-ops", "unsigned", /*default=*/"64",
           "At most this many functional ops per kernel (views and the "
           "cloned full/iota not counted); 0: no bound">,
    Option<"maxKernelRegisters", "max-kernel-registers", "unsigned",
           /*default=*/"255",
           "At most this many estimated registers per thread per kernel "
           "(255 is what a CUDA thread can address; more spills to local "
           "memory); 0: no bound">,
  ];
}

include "CollectivePasses.td"

def PrintDot : Pass<"stride-print-dot", "::mlir::ModuleOp"> {
  let summary = "Print the graph as Graphviz DOT, one cluster per kernel";
  let description = [{
    Writes the module as a Graphviz `digraph` (`stride::emitDot`, the
    function behind `stridec --emit=dot`): one cluster per function, one
    nested cluster per `stride.kernel` holding its ops, function arguments
    and results as ellipses, and every edge labelled with the shape (and,
    when not row-major, the strides) of the value it carries. The IR is
    left unchanged; run with `-o /dev/null` to see only the DOT.

    ```
    stride-opt --stride-fuse --stride-print-dot -o /dev/null softmax.mlir \
      | dot -Tpng -o softmax.png
    ```
  }];
  let options = [
    Option<"outputFile", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the DOT text ('-': standard output)">,
  ];
}

def VerifyKernels : Pass<"stride-verify-kernels", "::mlir::func::FuncOp"> {
  let summary = "Check every stride.kernel against the kernel contract";
  let description = [{
    The head of the backend pipeline: a backend emits a kernel by its form
    (python-free-docs/fusion.md, "Kernel contract"), so every kernel must have one,
    whether the fusion pass, the outline pass, an importer or a person
    wrote it. The pass classifies each kernel with `classifyKernel`
    (`dialects/stride/Analysis/KernelContract.h`) and reports each
    broken rule as an error at the op that breaks it, with a note at the
    kernel and at the related op. It changes nothing.

    Rejected (a reduction of a reduction: the two reduce different rows):

    ```mlir
    %r = stride.kernel "two_stage" ins(%x : !stride.tensor<4x8xf32>)
        -> (!stride.tensor<f32>) {
    ^bb0(%a: !stride.tensor<4x8xf32>):
      %s = stride.sum %a dims [1] : !stride.tensor<4x8xf32> -> !stride.tensor<4xf32>
      %m = stride.max %s dims [0] : !stride.tensor<4xf32> -> !stride.tensor<f32>
      stride.yield %m : !stride.tensor<f32>
    }
    ```

    ```
    error: 'stride.max' op breaks the contract of kernel "two_stage": reduces
    other rows than another reduction of its kernel; only reductions of one
    input shape over the same dims share a kernel
    note: the kernel
    note: the other reduction ('stride.sum') is here
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

def ProductVariants : Pass<"stride-product-variants", "::mlir::func::FuncOp"> {
  let summary = "Give each product over symbolic rows the skinny product "
                "kernel at one row, selected at run time";
  let description = [{
    A static module runs a product of one row (a decode step, a batch of
    one) as Stride's skinny product kernel, which streams the weight
    faster than cuBLASLt there (python-free-docs/matmul.md, "Skinny
    products"); a product over symbolic rows is a library call at every
    row count. This pass gives such a product a variant: the skinny
    product kernel at one row, a `stride.kernel` with a `when` guard that
    pins the row symbols to 1 and whose body is the product at that value,
    and a `stride.select_variant` that reads it where the guard holds and
    the library call's result elsewhere. The plan runs one of the two
    (python-free-docs/symbolic-sizes.md, "Variants selected at run time").

    A product takes a variant where it is 2-D, its rows (`M`) are a
    product of symbols that all take the value 1 (no coefficient, no
    `multiple_of` above 1), no other size of it names a symbol, no
    `stride.skinny_product` mark is on it already, and at one row it is a
    product the skinny kernel computes (`checkSkinnyProduct`,
    KernelContract.h); under `skinny-products=library` none does.

    ```mlir
    %l = stride.matmul %x, %wt {lhs_layout = ..., rhs_layout = ...}
        : !stride.tensor<[tokens, 768], bf16>, ... -> !stride.tensor<[tokens, 3072], bf16>
    ```

    becomes

    ```mlir
    %k = stride.kernel "matmul_skinny" ins(%x, %wt : ...)
        attributes {when = [#stride.symbol<"tokens", range = [1, 1]>]}
        -> (!stride.tensor<1x3072xbf16>) {
    ^bb0(%a: !stride.tensor<1x768xbf16>, %b: ...):
      %p = stride.matmul %a, %b {stride.skinny_product} : ...
      stride.yield %p : !stride.tensor<1x3072xbf16>
    }
    %l = stride.matmul %x, %wt {lhs_layout = ..., rhs_layout = ...} : ...
    %y = stride.select_variant %k : !stride.tensor<1x3072xbf16>
        when [#stride.symbol<"tokens", range = [1, 1]>] else %l
        : !stride.tensor<[tokens, 3072], bf16>
    ```
  }];
  let options = [
    Option<"skinnyProducts", "skinny-products", "std::string", "\"auto\"",
           "As stride-matmul-layout's: auto and generated give products "
           "over symbolic rows a one-row variant, library none">
  ];
  let dependentDialects = ["::stride::StrideDialect"];
}

def OutlineKernels : Pass<"stride-outline-kernels", "::mlir::func::FuncOp"> {
  let summary = "Wrap each functional op outside a kernel into its own kernel";
  let description = [{
    The CUDA backend emits one `__global__` function per `stride.kernel`.
    This pass gives every functional op that is not yet inside a kernel a
    `stride.kernel` of its own, so an unfused function (`stridec --no-fuse`,
    or anything the fusion pass left over) can be emitted; so, too, each
    `stride.attention` marked `stride.split_kv` (stride-attention-library),
    which runs as the split-KV kernel, and each `stride.matmul` marked
    `stride.skinny_product` (stride-matmul-layout), which runs as the
    skinny product kernel. View ops stay
    where they are: a kernel input that is a view is read through the
    view's layout. Kernels are named after the op and its position,
    e.g. `add_1`.

    Before:

    ```mlir
    %y = stride.add %x, %b : !stride.tensor<4xf32>, !stride.tensor<4xf32>
        -> !stride.tensor<4xf32>
    ```

    After:

    ```mlir
    %y = stride.kernel "add_0" ins(%x, %b : !stride.tensor<4xf32>,
        !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>) {
    ^bb0(%a: !stride.tensor<4xf32>, %c: !stride.tensor<4xf32>):
      %0 = stride.add %a, %c : !stride.tensor<4xf32>, !stride.tensor<4xf32>
          -> !stride.tensor<4xf32>
      stride.yield %0 : !stride.tensor<4xf32>
    }
    ```

    With `skinny-prologue` (off by default: measured slower, see
    python-free-docs/matmul.md), a skinny product whose lhs (its
    few rows, read through views) is the one result of a pointwise kernel
    (form (a)) of as many elements that nothing else reads takes that
    kernel's ops as its prologue: the product's kernel computes the rows
    where it reads them, and the pointwise kernel and its launch are gone
    (a decoder's SwiGLU, `silu(gate) * up`, before its down projection;
    python-free-docs/matmul.md, "Skinny products"). Every block of the
    product evaluates the prologue once at the rows' elements of its slice
    of K, into shared memory, which only few rows allow. The kernel is
    named after its ops, e.g. `sigmoid_mul_mul_matmul`:

    ```mlir
    %s = stride.kernel "sigmoid_mul_mul" ins(%gu : <1x28672xbf16>) -> (<1x14336xbf16>) {...}
    %p = stride.matmul %s, %wt {stride.skinny_product} : ...
    // after:
    %p = stride.kernel "sigmoid_mul_mul_matmul" ins(%gu, %wt : ...) -> (<1x4096xbf16>) {
      ... the slices, sigmoid, mul, mul ...
      %0 = stride.matmul %s, %w {stride.skinny_product} : ...
      stride.yield %0 : ...
    }
    ```
  }];
  let options = [
    Option<"skinnyPrologue", "skinny-prologue", "bool", "false",
           "Compute the rows of a skinny product in its kernel where a "
           "pointwise kernel computes them for it alone (its prologue)">,
  ];
  let dependentDialects = ["::stride::StrideDialect"];
}

def MergeDuplicateKernels : Pass<"stride-merge-duplicate-kernels",
                                  "::mlir::func::FuncOp"> {
  let summary = "Replace a kernel that repeats an earlier one by its results";
  let description = [{
    Two `stride.kernel`s with the same operands, the same result types,
    the same attributes but for their names, and bodies equal op for op
    (locations aside) compute the same values: the later one is erased and
    its uses read the earlier one's results. A launch less each, and the
    kernel-level counterpart of common-subexpression elimination, which the
    pipeline does not run on the graph itself: there, merging two equal
    pointwise chains that feed two kernels would make the chain a value
    that two kernels read, materialized by a kernel of its own (fusion's
    rule 8), where each kernel computed its copy in registers.

    A transformers decoder with a `StaticCache` writes each layer's cache
    at positions computed from the step's `cache_position` input, and
    advances each layer's `cumulative_length` state from it, once per
    layer: two one-element kernels a layer, equal across layers. In a
    batch-1 decode step each launch costs 2-3 us of a step of about 0.6 ms
    on an H200 (bench/NOTES.md section 56); this pass leaves one of each.

    Runs after `stride-outline-kernels`, when every kernel is formed, and
    only over the function's top-level kernels (in program order, so the
    kept kernel is the earlier one and dominates every use).

    ```mlir
    %a = stride.kernel "full_add" ins(%pos : ...) -> (...) { ... }
    %b = stride.kernel "full_add_1" ins(%pos : ...) -> (...) { ... }  // equal body
    return %a, %b
    // becomes
    %a = stride.kernel "full_add" ins(%pos : ...) -> (...) { ... }
    return %a, %a
    ```

    A later kernel's result that the function writes back into a state or
    a mutated input (a result with `stride.writes`) becomes a result of
    its own of the kept kernel, which yields the same value once more: the
    plan writes each such result in place into its state (python-free-
    docs/state.md), where one result shared by several states would be
    written into the first and copied into the others by a `plan.copy`
    at the end of the plan.

    ```mlir
    // with results {stride.writes = "length_0"}, {stride.writes = "length_1"}
    %a:2 = stride.kernel "full_add" ins(%pos : ...) -> (..., ...) {
      ...
      stride.yield %s, %s : ...
    }
    return %a#0, %a#1
    ```
  }];
}

def InlineKernels : Pass<"stride-inline-kernels", "::mlir::func::FuncOp"> {
  let summary = "Dissolve every stride.kernel back into the function";
  let description = [{
    The inverse of kernel formation: the ops of each `stride.kernel` body
    move into the function, reading the kernel's inputs, and the kernel's
    results are replaced by the values it yields. Followed by
    `stride-outline-kernels` this gives every op a kernel of its own, which
    tests use to compare a fused kernel with its unfused equivalent.

    Before:

    ```mlir
    %y = stride.kernel "exp_add" ins(%x, %b : ...) -> (...) {
    ^bb0(%a: ..., %c: ...):
      %e = stride.exp %a : ...
      %s = stride.add %e, %c : ...
      stride.yield %s : ...
    }
    ```

    After:

    ```mlir
    %e = stride.exp %x : ...
    %y = stride.add %e, %b : ...
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

def KeepValues : Pass<"stride-keep-values", "::mlir::func::FuncOp"> {
  let summary = "Make every value a kernel or library call writes a graph "
                "output (for per-value comparison)";
  let description = [{
    For debugging a wrong result (`stridec --keep-values`,
    `stride-run --compare-values`, python-free-docs/debugging.md): every result of a
    `stride.kernel` or `stride.matmul` in the function, in program order,
    becomes an extra function result named `value.K` (K counting from 0), after
    the graph's own results. The kernels are the ones the module runs, so
    a runner writes each of these buffers as `value.K.npy` and the reference
    interpreter, running the same pipeline on the same graph, can name the
    first one that differs. Runs after kernel formation; values that are
    outputs anyway are returned twice.

    Before:

    ```mlir
    %k = stride.kernel "exp_0" ins(%x : ...) -> (!stride.tensor<4xf32>) {...}
    %s = stride.kernel "add_1" ins(%k, %x : ...) -> (!stride.tensor<4xf32>) {...}
    return %s : !stride.tensor<4xf32>
    ```

    After:

    ```mlir
    return %s, %k, %s : !stride.tensor<4xf32>, !stride.tensor<4xf32>,
                        !stride.tensor<4xf32>
    // results: (..., {stride.name = "value.0"}, {stride.name = "value.1"})
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

def TestInjectFault : Pass<"stride-test-inject-fault", "::mlir::func::FuncOp"> {
  let summary = "Test only: miscompile every op of one kind on purpose";
  let description = [{
    A deliberate miscompilation, for testing the debugging tools
    (`stride-reduce`, `stride-run --compare-values`; python-free-docs/debugging.md), never
    for use: every op named by `op` with a floating-point result, inside
    kernels or not, is replaced by its counterpart with the same operands,
    types and location (integer ops, such as index arithmetic, are left
    alone, so that the fault gives wrong values rather than an index out of
    range):
    `add` <-> `sub`, `mul` <-> `div`, `maximum` <-> `minimum`. The module then
    computes something else than the reference interpreter does on the
    original graph. `stridec --test-inject-fault=OP` runs it last in the
    pipeline.

    Before (`op=add`):

    ```mlir
    %y = stride.add %a, %b : ... loc("graph.mlir":3:8)
    ```

    After:

    ```mlir
    %y = stride.sub %a, %b : ... loc("graph.mlir":3:8)
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
  let options = [
    Option<"op", "op", "std::string", /*default=*/"\"\"",
           "The op to miscompile, without the dialect prefix: add, sub, "
           "mul, div, maximum or minimum (floating-point results only)">,
  ];
}

def ShrinkShapes : Pass<"stride-shrink-shapes", "::mlir::func::FuncOp"> {
  let summary = "Shrink the sizes of a graph's dims while the graph still "
                "verifies (for stride-reduce)";
  let description = [{
    For reducing a graph that shows a problem (`stride-reduce`,
    python-free-docs/debugging.md): a graph of 64x128 tensors that fails usually fails
    with 1x1 tensors too, and is easier to read and faster to test.

    Dims that must have one size are tied into classes across the ops of
    the function: the operands and result of a pointwise op dim by dim, a
    reduction's kept dims, a matrix product's batch dims, rows, columns and
    contracted dims, the dims a view keeps from its operand (an `expand`'s
    broadcast dims are free, and a `view` ties the dims it keeps in front
    and behind), the dims of a kernel's inputs and its body's arguments.
    The classes of size > 1 are numbered in program order of their first
    dim (the arguments first, then the ops' results); a class with a dim of
    a `stride.constant` of more than one value is not one of them (its
    values fix its shape).

    A class is resized as a whole: arguments and the results of functional
    ops, kernels and matrix products get a dense layout in the dim order of
    their old one (zero strides kept), views are re-inferred from their
    operands (a `slice` of a whole dim follows the dim), a splat
    `stride.constant` gets the new shape, and the function type follows.
    The resize is kept only when the function still verifies, so the op
    verifiers decide what else pins a size (a `slice`'s bounds, a
    `select`'s index, a `view`'s shape, a `cat`'s sizes); otherwise the
    function is left as it was.

    Options: `class` picks one class (by number; -1, the default: every
    class in turn) and `size` its new size (0, the default: 1 if the graph
    verifies so, otherwise half, rounded up). One class with a size that
    does not verify is an error. `stride-reduce` drives the pass's
    functions one class at a time, keeping a size while its test still
    finds the graph interesting.

    Before (`class=1 size=1`: class 0 is the 4s, class 1 the 8s):

    ```mlir
    func.func @f(%x: !stride.tensor<4x8xf32>, %y: !stride.tensor<8x4xf32>)
        -> !stride.tensor<4x8xf32> {
      %t = stride.permute %y dims [1, 0] : !stride.tensor<8x4xf32>
          -> !stride.tensor<4x8xf32, strides = [1, 4], offset = 0>
      %s = stride.add %x, %t : !stride.tensor<4x8xf32>,
          !stride.tensor<4x8xf32, strides = [1, 4], offset = 0>
          -> !stride.tensor<4x8xf32>
      return %s : !stride.tensor<4x8xf32>
    }
    ```

    After:

    ```mlir
    func.func @f(%x: !stride.tensor<4x1xf32>, %y: !stride.tensor<1x4xf32>)
        -> !stride.tensor<4x1xf32> {
      %t = stride.permute %y dims [1, 0] : !stride.tensor<1x4xf32>
          -> !stride.tensor<4x1xf32, strides = [1, 4], offset = 0>
      %s = stride.add %x, %t : !stride.tensor<4x1xf32>,
          !stride.tensor<4x1xf32, strides = [1, 4], offset = 0>
          -> !stride.tensor<4x1xf32>
      return %s : !stride.tensor<4x1xf32>
    }
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
  let options = [
    Option<"dimClass", "class", "int64_t", /*default=*/"-1",
           "The class of dims to shrink, numbered from 0 in program order "
           "of its first dim; -1: every class in turn">,
    Option<"size", "size", "int64_t", /*default=*/"0",
           "The new size; 0: 1 where the graph verifies so, otherwise half "
           "(rounded up)">,
  ];
}

#endif // STRIDE_TRANSFORMS_PASSES_TD
