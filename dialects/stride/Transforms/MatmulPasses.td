//===- MatmulPasses.td - How products read and write ------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-matmul-layout: how each matrix product's library call reads its
// operands and writes its result (included by Passes.td, in pipeline
// order; python-free-docs/matmul.md, "Operand layouts").
//
//===----------------------------------------------------------------------===//

def MatmulLayout : Pass<"stride-matmul-layout", "::mlir::func::FuncOp"> {
  let summary = "Decide how the library call of each stride.matmul reads "
                "its operands";
  let description = [{
    For each operand of each `stride.matmul`, decides whether the library
    (cuBLASLt) reads it in place: a `[B..., R, C]` operand whose columns
    (row-major) or rows (column-major: a transposed operand) are
    contiguous, with a leading dimension, and whose batch dims collapse
    into one batch stride (0 for a batch broadcast with `stride.expand`).
    The rule is `matmulOperandLayout` (stride/Support/MatmulLayout.h). The
    decision is recorded on the op as `lhs_layout` / `rhs_layout`
    (`#stride.matmul_operand`). An operand that cannot be read in place
    (neither stride 1, a broadcast row, batch dims that do not collapse) is
    first copied into a dense row-major temporary by a `stride.clone`,
    which fusion turns into a kernel (with the operand's producers fused
    into it). Runs after `stride-legalize-layouts` (which may repair
    layouts) and before `stride-fuse`.

    It also decides where an f16/bf16 product whose rows are not a
    multiple of 16 bytes is written: in row classes (`row_classes` on the
    op, `matmulRowClasses`: a 2-D product of at least 256 rows per class
    with a row-major lhs and a transposed weight, both aligned), straight
    into the graph's dense result; otherwise a 2-D weight is padded with
    zero columns and the product's rows to 16 bytes, and a copy gives the
    graph its layout (python-free-docs/matmul.md, "Row classes" and "Padded columns").
    A `row_classes` already on an op stands.

    Before:

    ```mlir
    %t = stride.permute %w dims [1, 0] : !stride.tensor<16x8xf32>
        -> !stride.tensor<8x16xf32, strides = [1, 8], offset = 0>
    %p = stride.matmul %x, %t : !stride.tensor<4x8xf32>,
        !stride.tensor<8x16xf32, strides = [1, 8], offset = 0>
        -> !stride.tensor<4x16xf32>
    ```

    After (the transposed weight is read in place):

    ```mlir
    %p = stride.matmul %x, %t {
        lhs_layout = #stride.matmul_operand<transposed = false, ld = 8, batch_stride = 0>,
        rhs_layout = #stride.matmul_operand<transposed = true, ld = 8, batch_stride = 0>}
        : ...
    ```

    The result is written where the library writes fast: rows of
    consecutive elements at a leading dimension rounded up to 16 bytes for
    f16 and bf16 (`alignedResultLd`: cuBLASLt's fast Hopper kernels need
    aligned rows), matrices one after the other. Where the weight (`rhs`)
    is 2-D and there is no bias, `N` itself is padded: the weight gets zero
    columns up to the aligned count (`stride.cat` with a `stride.full 0`),
    and a `stride.slice` of the product drops them (cuBLASLt keeps slow
    kernels while `n` is unaligned: a bf16 product of 50,257 columns,
    GPT-2's logits, ran 6.9x slower). When the written layout is not the
    graph's layout of the product (an unaligned f16/bf16 row), a
    `stride.clone` copies it into the graph's, which fusion merges into a
    pointwise reader where there is one (and epilogue folding looks
    through the copy of an unpadded product).

    With option `pad-operand-rows` (on by default: it took 0.67 ms off the
    5.40 ms backward of GPT-2's bf16 training step on an H200,
    bench/NOTES.md section 54), an f16/bf16 operand whose rows in memory are not a
    multiple of 16 bytes (GPT-2's 50,257 logits per token, read by the LM
    head's backward products) is copied once into rows padded to 16 bytes,
    which the fusion pass merges into its pointwise producer; every product
    reading it (also through a transposing `stride.permute`) reads the
    copy.

    With option `pad-contraction` too (on by default; nothing without
    `pad-operand-rows`), a 2-D product whose contraction dim `K` is such a
    row (an lhs read row-major, an rhs read through a transposing permute:
    GPT-2's `dX = dlogits W`, `K` = 50,257) runs over `K` padded to 16
    bytes with zeros, which add exact zeros to every sum (cuBLASLt keeps
    its slow kernels while `k` is unaligned, as for `n`). The aligned copy
    becomes a slice view of the rows concatenated with zero columns
    (`stride.cat` with a `stride.full 0`, fused into the producer as the
    copy was), the product reads the whole concatenation, and the other
    operand gets `K`'s zero rows (or columns, for an lhs) the same way.
    Only where the padded operand has at least 256 rows (its dim that is
    not `K`), so that the product's arithmetic hides the other operand's
    padded copy (python-free-docs/matmul.md, "Padded K"):

    ```mlir
    %z = stride.full 0.000000e+00 : <4096x7xbf16, strides = [7, 1], offset = 0>
    %c = stride.cat %g, %z dim 1 : ... -> <4096x50264xbf16, strides = [50264, 1], offset = 0>
    %s = stride.slice %c dim 1 start 0 end 50257 step 1 : ...
        -> <4096x50257xbf16, strides = [50264, 1], offset = 0>
    %wz = stride.full 0.000000e+00 : <7x768xbf16, strides = [768, 1], offset = 0>
    %wc = stride.cat %w, %wz dim 0 : ... -> <50264x768xbf16, strides = [768, 1], offset = 0>
    %dx = stride.matmul %c, %wc ... -> <4096x768xbf16>
    ```

    Other readers of the rows (`dW` through a permute of `%s`) read the
    slice, as without the option.

    First, under the policy of option `skinny-products`, it marks the
    products that run as Stride's skinny product kernel instead of a
    cuBLASLt call with the unit attribute `stride.skinny_product`, and
    leaves their operands and result as they are (the kernel reads any
    row stride and writes the graph's layout): 2-D f16, bf16 or f32
    products with a weight (`rhs`) and activations (`lhs`) whose `K`
    elements are consecutive (`checkSkinnyProduct`, KernelContract.h), no
    epilogue but `relu`, and few rows. `auto` (the default) marks those of
    1 row: there the kernel streamed every weight of a batch-1 decode step
    of a LLaMA-8B-class layer on an H200 at 3.3 to 4.3 TB/s, level with or
    faster than cuBLASLt, and at 8 rows it was 1.6 to 2 times slower
    (python-free-docs/matmul.md, "Skinny products"); `generated`
    marks those of up to 32 rows (to measure both); `library` marks none.
    `stride-outline-kernels` gives a marked product a kernel of its own. A
    mark already on an op stands.

    ```mlir
    %p = stride.matmul %x, %t {stride.skinny_product} : !stride.tensor<1x4096xbf16>,
        !stride.tensor<4096x14336xbf16, strides = [1, 4096], offset = 0>
        -> !stride.tensor<1x14336xbf16>
    ```
  }];
  let options = [
    Option<"skinnyProducts", "skinny-products", "std::string", "\"auto\"",
           "Which products of few rows run as the skinny product kernel "
           "instead of cuBLASLt: auto (1 row), generated (up to 32) "
           "or library (none)">,
    Option<"padOperandRows", "pad-operand-rows", "bool", "true",
           "Copy f16/bf16 operands whose rows are not a multiple of 16 "
           "bytes into aligned rows (one copy for every product reading "
           "them, fused into the producer)">,
    Option<"padContraction", "pad-contraction", "bool", "true",
           "With pad-operand-rows: pad an unaligned K read from such rows "
           "with zeros (the copy's pad columns zero-filled, the other "
           "operand given zero rows) where the padded operand has at "
           "least 256 rows">
  ];
  let dependentDialects = ["::stride::StrideDialect"];
}
