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

// The attention passes (issue 39).
include "AttentionPasses.td"

// The convolution passes (issue 42).
include "ConvolutionPasses.td"

// Products merged before their layouts are decided.
include "ProductPasses.td"

// stride-matmul-layout (issue 39: padded operand rows and K).
include "MatmulPasses.td"

include "LayoutPasses.td"

def AccumulateIntoScatters : Pass<"stride-accumulate-into-scatters",
                                  "::mlir::func::FuncOp"> {
  let summary = "An add of an accumulating scatter into zeros becomes the "
                "scatter into the add's other operand";
  let description = [{
    `stride.add %x, %s` where `%s = stride.index_add %zeros, %index, %src`
    (or `stride.scatter_add`), `%zeros` is a `stride.full 0.0` and the add
    is the only reader of `%s`, becomes `stride.index_add %x, %index,
    %src` with the add's result type: the scatter accumulates into `%x`
    instead of into zeros that are then added to `%x`. Either operand of
    the add may be the scatter.

    AOTAutograd's backward of a model whose embedding and LM head share
    their weight (GPT-2) sums the two gradients so: the LM head's product,
    plus `embedding_dense_backward`'s `index_put(zeros, [tokens], grad,
    accumulate=True)`. Three tensors of the vocabulary's size (154 MB each
    in f32 at GPT-2's 50,257 x 768) become two, the product and the
    result, and a pass over them (the add) goes away.

    The value is the sum of the same terms, in another order: each
    element is `x + s_1 + s_2 + ...` in the order the scatter's kernel
    adds them instead of `x + (0 + s_1 + s_2 + ...)`; in floating point
    the two may differ in the last bits, as a scatter's own order does
    (python-free-docs/determinism.md). An element no index reaches is `x`
    itself, where the add gave `x + 0` (`-0.0` became `+0.0`).

    ```mlir
    %z = stride.full 0.0 : !stride.tensor<100x16xf32>
    %s = stride.index_add %z, %idx, %g dim 0 : !stride.tensor<100x16xf32>,
        !stride.tensor<8xi64>, !stride.tensor<8x16xf32>
        -> !stride.tensor<100x16xf32>
    %r = stride.add %p, %s : !stride.tensor<100x16xf32>,
        !stride.tensor<100x16xf32> -> !stride.tensor<100x16xf32>
    // becomes
    %r = stride.index_add %p, %idx, %g dim 0 : !stride.tensor<100x16xf32>,
        !stride.tensor<8xi64>, !stride.tensor<8x16xf32>
        -> !stride.tensor<100x16xf32>
    ```
  }];
}

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

    With `skinny-row-prologue` (off by default: measured slower, see
    python-free-docs/matmul.md), a skinny product whose
    lhs is a result of a broadcast-reduction kernel (form (d), one that
    stores nothing once per row) that nothing else reads takes that
    kernel's ops as its prologue where the kernel contract takes them
    (form (g), `checkSkinnyRowPrologue`: reductions of the lhs's rows read
    broadcast back): a decoder's RMSNorm before its Q/K/V, gate/up and LM
    head products. Every block of the product reduces the rows (all of K)
    and evaluates the prologue at its slice into shared memory. The
    broadcast-reduction kernel's other results (the residual sum it also
    yields) become the merged kernel's last results, stored by the
    product's first block; where one of them is read before the product,
    the two kernels stay apart. The kernel is named after its ops, e.g.
    `constant_add_mul_mean_full_matmul`.

    With `skinny-epilogue` (on by default), a skinny product whose result
    (through views) only a pointwise kernel of one result reads takes that
    kernel's ops as its epilogue, where the kernel contract takes them
    (form (g), `checkSkinnyEpilogue`: elementwise ops of one shape reading
    the product's result as blocks of consecutive columns of each row): a
    warp sums its columns at each column offset the epilogue reads and
    evaluates the epilogue from those sums, so the product's result is
    never stored and the pointwise kernel and its launch are gone (a
    decoder's SwiGLU after its merged gate and up projections reads
    columns `e` and `e + 14336`). The merged kernel stands where the
    pointwise kernel stood and is named after its ops, e.g.
    `matmul_sigmoid_mul_mul`:

    ```mlir
    %gu = stride.matmul %x, %wt {stride.skinny_product} : ... -> <1x28672xbf16>
    %s = stride.kernel "sigmoid_mul_mul" ins(%gu : <1x28672xbf16>) -> (<1x1x14336xbf16>) {...}
    // after:
    %s = stride.kernel "matmul_sigmoid_mul_mul" ins(%x, %wt : ...) -> (<1x1x14336xbf16>) {
      %0 = stride.matmul %a, %w {stride.skinny_product} : ...
      ... the slices, sigmoid, mul, mul ...
      stride.yield %5 : ...
    }
    ```
  }];
  let options = [
    Option<"skinnyPrologue", "skinny-prologue", "bool", "false",
           "Compute the rows of a skinny product in its kernel where a "
           "pointwise kernel computes them for it alone (its prologue)">,
    Option<"skinnyRowPrologue", "skinny-row-prologue", "bool", "false",
           "Compute the broadcast-reduction kernel (an RMSNorm) whose "
           "result a skinny product alone reads in the product's kernel (its "
           "prologue, each block reducing the rows), where the kernel "
           "contract takes it">,
    Option<"skinnyEpilogue", "skinny-epilogue", "bool", "true",
           "Compute the pointwise kernel that alone reads a skinny "
           "product's result in the product's kernel (its epilogue), where "
           "the kernel contract takes it">,
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
