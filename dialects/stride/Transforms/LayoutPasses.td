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
