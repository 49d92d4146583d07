//===- LayoutPasses.td - Layouts Stride chooses ------------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The passes that change where a functional result's bytes go, where the
// graph leaves that to Stride (included by Passes.td, in pipeline order;
// python-free-docs/layouts.md, "Layouts Stride chooses"; the channels-last
// choice for convolutions is in ConvolutionPasses.td).
//
//===----------------------------------------------------------------------===//

def RowMajorPointwise : Pass<"stride-row-major-pointwise",
                             "::mlir::func::FuncOp"> {
  let summary = "Give pointwise results whose layout Stride owns the "
                "row-major layout";
  let description = [{
    An archive gives every value the strides PyTorch's eager ops chose:
    a pointwise op's result takes the order of its first operand, so a
    value that starts as a permuted view (Whisper's encoder permutes its
    convolutions' `[batch, channels, frames]` result to `[batch, frames,
    channels]`) passes its order on to every residual add after it, and
    each add and layer norm reads one operand across its rows. Where the
    layout is Stride's to choose, this pass makes such results row-major:

    - the op is pointwise (`Elementwise`, `stride.clone` among them) and
      its result, of rank 3 at most, is packed (no gaps, no overlap) from
      element 0 in an order that is not row-major (images, of rank 4 and
      5, are left to `stride-convolution-layout`: a channels-last order
      there is the one cuDNN runs, whether the graph gave it or that pass
      chose it);
    - no `return` reads the result (the graph's outputs keep the layouts
      it gives them), and every reader is a pointwise op, a reduction or
      a `stride.matmul`, which read any layout through their operands'
      types; a view (whose layout is computed from its operand's),
      attention, a convolution (stride-convolution-layout chooses its
      orders), a collective or an in-place write keeps the value as it
      is.

    The change is only where the bytes go: the op computes the same
    elements. Runs after `stride-decompose-attention` (which may add
    pointwise ops and reads attention's layouts as the library pass
    accepted them) and before `stride-convolution-layout`, which makes a
    row-major convolution channels-last where it owns it.

    Before (types shortened):

    ```mlir
    %h = stride.clone %p : <8x1500x512xbf16, strides = [768000, 1, 1500]>
        -> <8x1500x512xbf16, strides = [768000, 1, 1500]>
    %r = stride.add %h, %o : ... -> <8x1500x512xbf16, strides = [768000, 1, 1500]>
    ```

    After: both results `strides = [768000, 512, 1]`; the clone is the one
    transposing copy.
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

def PointwiseMemoryOrder : Pass<"stride-pointwise-memory-order",
                                "::mlir::func::FuncOp"> {
  let summary = "Compute each pointwise result packed in a permuted order "
                "in that order: over the permuted shape, row-major";
  let description = [{
    A kernel iterates over the logical shape of its outputs, innermost dim
    fastest. A pointwise result packed in another order (a channels-last
    image, `[N, C, H, W]` with strides `[H W C, 1, W C, C]`) was then
    written a channel count apart from thread to thread, or staged as a
    transpose that it is not (0.22 ms per residual add and ReLU of
    ResNet-50's `[64, 256, 56, 56]` on an H200, where reading and writing
    its 307 MB takes 0.08: bench/NOTES.md section 66). This pass computes
    such a result in its memory order instead: the op reads its operands
    through a `stride.permute` into that order and writes a row-major
    result of the permuted shape, and a `stride.permute` back gives its
    readers exactly the type they read before. Pointwise ops commute with
    permutes, so the elements are the same; the views fuse into the
    kernels (`stride-fuse`), whose loops then run along memory.

    It takes every op of the function's body (not of a hand-written
    kernel's) with the `Elementwise` trait and one result of rank 2 or
    more and static sizes, packed from element 0 in an order that is
    not row-major, whose operands have its shape, and that no `return`
    reads (the graph's outputs stay fresh buffers). Runs after the
    convolution and matmul layout passes (which decide layouts on the
    values as the graph has them) and before `stride-fold-constants` and
    `stride-fuse`.

    Before (types shortened; `cl` is channels-last):

    ```mlir
    %s = stride.add %c, %r : <2x8x4x4, cl>, <2x8x4x4, cl> -> <2x8x4x4, cl>
    ```

    After:

    ```mlir
    %pc = stride.permute %c dims [0, 2, 3, 1] : ... -> <2x4x4x8>
    %pr = stride.permute %r dims [0, 2, 3, 1] : ... -> <2x4x4x8>
    %a = stride.add %pc, %pr : <2x4x4x8>, <2x4x4x8> -> <2x4x4x8>
    %s = stride.permute %a dims [0, 3, 1, 2] : <2x4x4x8> -> <2x8x4x4, cl>
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}
