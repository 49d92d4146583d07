//===- ConvolutionPasses.td - The convolution passes ------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The passes over stride.convolution (included by Passes.td, in pipeline
// order): folding per-channel ops into it, the channels-last choice, the
// cuDNN choice and the decomposition (python-free-docs/convolution.md).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_CONVOLUTION_PASSES_TD
#define STRIDE_CONVOLUTION_PASSES_TD

def FoldIntoConvolution : Pass<"stride-fold-into-convolution",
                               "::mlir::func::FuncOp"> {
  let summary = "Fold per-channel multiplies, adds and subtracts of a "
                "convolution's result (an inference batch norm) into its "
                "weight and bias";
  let description = [{
    Rewrite patterns over a `stride.convolution` (not transposed) whose
    result nothing else reads:

    - `stride.mul` of it by a per-channel operand `c` (an operand whose
      layout has stride 0 on every dim but the channels, dim 1: a
      `stride.expand` of `[C, 1..]`) becomes the convolution with the
      weight times `c` (over its dim 0) and the bias times `c`;
    - `stride.add` (either order) and `stride.sub` (the convolution first)
      of a per-channel `c` add `c` to the bias, or subtract it (a bias of
      `c` or `-c` where there was none);
    - a `stride.clone` of the result into another layout (an archive that
      claims channels-last) becomes the convolution writing that layout.

    Together they fold an inference batch norm as the importer spells it,
    `((y - mean) * rsqrt(var + eps)) * weight + bias` over the channels,
    into the convolution `y` before it: the activations are read and
    written once instead of four times. The folded weight is computed from
    the weights at run time (a small kernel). The result changes by the
    rounding of the folded weights, as PyTorch's `fuse_conv_bn_eval`.
    Runs after `stride-legalize-layouts` and before
    `stride-decompose-convolution`.

    Before (types shortened):

    ```mlir
    %y = stride.convolution %x, %w stride [1, 1] padding [1, 1]
        dilation [1, 1] groups 1 : ... -> <1x4x6x6xf32>
    %m = stride.expand %mean4 : <4x1x1xf32> -> <1x4x6x6xf32, strides = [0, 1, 0, 0]>
    %s = stride.expand %invstd4 : <4x1x1xf32> -> <1x4x6x6xf32, strides = [0, 1, 0, 0]>
    %0 = stride.sub %y, %m : ...
    %1 = stride.mul %0, %s : ...
    ```

    After:

    ```mlir
    %c = stride.as_strided %m : ... -> <4xf32, strides = [1], offset = 0>
    %nb = stride.neg %c : ...
    %d = stride.as_strided %s : ... -> <4xf32, strides = [1], offset = 0>
    %ws = stride.mul %w, %dw : ...      // %dw: %d as [4, 1, 1, 1], expanded
    %b = stride.mul %nb, %d : ...
    %1 = stride.convolution %x, %ws bias %b stride [1, 1] padding [1, 1]
        dilation [1, 1] groups 1 : ... -> <1x4x6x6xf32>
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

def ConvolutionLayout : Pass<"stride-convolution-layout",
                             "::mlir::func::FuncOp"> {
  let summary = "Give f16 and bf16 convolutions, and the pointwise ops after "
                "them, channels-last results where Stride owns the layout";
  let description = [{
    cuDNN runs f16 and bf16 convolutions on tensor cores in channels-last
    order (NHWC); a row-major (NCHW) result costs it a conversion on the
    way in and out. Where the graph leaves the layout to Stride, this pass
    chooses channels-last, as a stride order, and keeps it through the
    pointwise ops that follow, so that a chain of convolution, bias or
    folded batch norm, ReLU, residual add and the next convolution reads
    and writes one order:

    - a `stride.convolution` in f16 or bf16 over 2-D or 3-D images whose
      result is row-major from element 0 (as the importer writes it) and
      owned: no `return` reads it and every reader is a functional op or a
      convolution (a view, whose layout is computed from its operand's, or a
      returned value keeps the layout the graph gave it), gets the
      channels-last strides `[H W C, 1, W C, C]` (3-D: `[D H W C, 1, ..]`),
      unless it, or a same-shaped pointwise result computed from it, is
      reduced per channel over its images (over dim 0 and positions,
      keeping dim 1: a batch norm's statistics in training, the sums of
      its backward; an average over positions alone is no such
      reduction): a channel of a channels-last
      tensor is strided by the channel count, so the fused per-channel
      reduction would read each element from its own memory sector, while
      cuDNN converts a row-major convolution for a fraction of that;
    - then each pointwise (`Elementwise`) reader of a channels-last value,
      of the same shape, whose own result is owned in the same sense, gets
      the channels-last strides too, and so on;
    - then each pooling of a channels-last image (a reduction over dims 2
      and up, whose windows are read through views and the `cat`s of
      `full` blocks that pad them from a value packed channels-last) whose
      result is owned gets channels-last strides, and its pointwise
      readers after it: its threads take the outputs channels innermost,
      as their reads lie, and so write neighbouring elements.

    Nothing else changes: a reader of another kind (pooling's padding,
    a reduction) reads the channels-last value through its strides, and
    `stride-convolution-library` copies the input of a convolution whose
    order differs from its result's. Runs after
    `stride-fold-into-convolution` and before `stride-convolution-library`
    when convolutions run through cuDNN.

    Before (types shortened):

    ```mlir
    %c = stride.convolution %x, %w ... -> <8x64x56x56xbf16>
    %r = stride.relu %c : ... -> <8x64x56x56xbf16>
    %d = stride.convolution %r, %w2 ... -> <8x64x56x56xbf16>
    ```

    After:

    ```mlir
    %c = stride.convolution %x, %w ... -> <8x64x56x56xbf16,
        strides = [200704, 1, 3584, 64], offset = 0>
    %r = stride.relu %c : ... -> <8x64x56x56xbf16,
        strides = [200704, 1, 3584, 64], offset = 0>
    %d = stride.convolution %r, %w2 ... -> <8x64x56x56xbf16,
        strides = [200704, 1, 3584, 64], offset = 0>
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

def ConvolutionLibrary : Pass<"stride-convolution-library",
                              "::mlir::func::FuncOp"> {
  let summary = "Keep the convolutions cuDNN takes whole, in layouts it "
                "reads and writes, for a cuDNN call each";
  let description = [{
    Chooses, for each `stride.convolution`, whether it runs as one
    `cudnn.convolution` library call (python-free-docs/convolution.md, "The
    cuDNN step") or is left to `stride-decompose-convolution`, by the
    option `convolutions`:

    - `auto` (the default): cuDNN for every convolution it takes: f16,
      bf16 or f32, 1-D to 3-D, any stride, padding, dilation and groups;
      transposed ones (cuDNN's data gradient of the matching forward) where
      each `output_padding` is below its stride. The others (f64, a
      transposed convolution whose `output_padding` is only below the
      dilation) are decomposed, and so is a pointwise convolution (every
      kernel dim 1, stride 1, no padding, one group, f16 or bf16) whose
      input and result are both packed channels-last: it is one cuBLASLt
      product as it stands, with its bias and a ReLU after it in the
      product's epilogue, faster than cuDNN's engines (ResNet-50's
      1x1 convolutions, bench/NOTES.md section 66).
    - `library`: the same, and a convolution cuDNN does not take is an
      error at the op.
    - `generated`: none; every convolution is decomposed.

    The same policy chooses for each `stride.convolution_weight_gradient`
    (f16, bf16 or f32: one cuDNN weight-gradient call, `wgrad`; f64 is
    decomposed). A kept weight gradient reads its input and output
    gradient and writes its result in one stride order: channels-last for
    f16 and bf16 over 2-D and 3-D images (cuDNN's tensor-core engines),
    otherwise the order its input is packed in; a tensor not packed in
    that order from a 16-byte aligned offset is copied (the result: written
    in that order and copied into the graph's layout after the call). One
    copy of a value serves every call of the function that reads it in
    that layout (the data and weight gradients read the same output
    gradient). A copy into an order other than row-major is a row-major
    `stride.clone` of the value's `stride.permute` into that order,
    permuted back: its kernel iterates in the order it writes, and the
    tiled transpose stages its strided reads.

    For each convolution kept:

    - an operand (input, weight) that is not packed in row-major (NCHW) or
      channels-last (NHWC) order from a 16-byte aligned offset is copied
      into a dense tensor first (`stride.clone`); the result likewise gets
      a dense row-major layout and a `stride.clone` after it gives the
      other uses the layout the graph declared;
    - the bias stays on the op (added in cuDNN's graph) for a forward f16
      or bf16 convolution of one group with a channels-last result and
      input and output channels that are multiples of 8, the case cuDNN's
      runtime-fusion engines take; elsewhere it becomes a `stride.add` of
      its broadcast after the op, which `stride-fuse` fuses with what
      follows;
    - in that same case, with option `epilogues` (the default), the
      pointwise ops after it that cuDNN's runtime-fusion engines compute
      in the same graph become the op's epilogue: a `stride.add` of the
      result (its only reader) and a tensor of the result's layout, packed
      channels-last and aligned (a residual, as in ResNet's blocks; where
      it is computed after the op, the op moves down to the add), then a
      `stride.relu` of that (its only reader); each must keep the result's
      type. cuDNN then reads the residual and writes the relu's result, in
      one call. An epilogue written on an op that cuDNN does not fuse this
      way becomes a `stride.add` and a `stride.relu` after it;
    - the op is marked `stride.keep_fused`, which
      `stride-decompose-convolution` leaves alone and the plan lowers to a
      `cudnn.convolution` call.

    Runs after `stride-fold-into-convolution` (a folded batch norm is in
    the weight and bias) and before `stride-decompose-convolution`.

    Before:

    ```mlir
    %y = stride.convolution %x, %w bias %b stride [1, 1] padding [1, 1]
        dilation [1, 1] groups 1 : !stride.tensor<1x4x8x8xf32>,
          !stride.tensor<6x4x3x3xf32>, !stride.tensor<6xf32>
          -> !stride.tensor<1x6x8x8xf32>
    ```

    After (f32: the bias is added after the call):

    ```mlir
    %c = stride.convolution %x, %w stride [1, 1] padding [1, 1]
        dilation [1, 1] groups 1 {stride.keep_fused} : ...
          -> !stride.tensor<1x6x8x8xf32>
    %v = stride.view %b : !stride.tensor<6xf32> -> !stride.tensor<1x6x1x1xf32>
    %e = stride.expand %v : ... -> !stride.tensor<1x6x8x8xf32,
          strides = [0, 1, 0, 0], offset = 0>
    %y = stride.add %c, %e : ...
    ```
  }];
  let options = [
    Option<"convolutions", "convolutions", "std::string", "\"auto\"",
           "Which convolutions run as cuDNN calls: auto (those cuDNN takes; "
           "the others decomposed), library (all; one cuDNN does not take "
           "is an error) or generated (none: every convolution decomposed)">,
    Option<"epilogues", "epilogues", "bool", "true",
           "Fold a residual add and a relu after a convolution into its "
           "cuDNN call where cuDNN's runtime-fusion engines take them">
  ];
  let dependentDialects = ["::stride::StrideDialect"];
}

def DecomposeConvolution : Pass<"stride-decompose-convolution",
                                "::mlir::func::FuncOp"> {
  let summary = "Rewrite convolutions into a strided view of their windows "
                "and a matrix product per group";
  let description = [{
    Every `stride.convolution` becomes ops Stride already compiles, so that
    every graph with convolutions compiles and runs (the products through
    cuBLASLt). With `G` groups, `D` spatial dims and the result
    `[N, C_out, Y..]`:

    - the input is padded with zeros (`stride.cat` of `stride.full`, one
      spatial dim at a time);
    - its windows are one `stride.as_strided` view of the padded input
      (the window dims step by the dilation, the output dims by the
      stride: overlapping where the stride is below the kernel), copied
      into a dense matrix only where no view flattens them (a 1x1 kernel of
      stride 1 is a view);
    - one batched `stride.matmul` with the weight `[C_out, C/G, K..]`
      viewed as `[G, C_out / G, C/G * K]`, in the op's element type
      (accumulated in f32, f64 for f64), oriented by the result's layout:
      for a row-major (channels-first) result, the weight broadcast over
      the batch (`stride.expand`, stride 0) times the windows
      `[N, G, C/G * K, P]` (P the result's positions), whose product
      `[N, G, C_out / G, P]` is the result, no copy; for a channels-last
      result (channel stride 1), the windows `[G, N * P, C/G * K]` times
      the transposed weight, whose product `[N * P, C_out]` is NHWC for one
      group (permuted, a copy only where `G > 1`);
    - the bias (`stride.expand` of `[C_out, 1..]`) added by a `stride.add`,
      or a `stride.clone` where the product's layout is not the op's.

    A `stride.convolution_weight_gradient` that
    `stride-convolution-library` did not keep is first rewritten as a
    forward convolution with the batch as channels: the input viewed
    `[C/G, G N, X..]` (a copy, since the permutation is no view of a
    packed input) convolved in `G` groups by the output's gradient viewed
    `[C_out, N, Y..]`, with stride and dilation swapped, its result
    `[C/G, C_out, K'..]` (`K' >= K`) sliced to the kernel and permuted to
    `[C_out, C/G, K..]`; that convolution is decomposed as above.

    A transposed convolution is first rewritten as one of stride 1 over its
    input with `S - 1` zeros inserted between elements (`stride.full` and
    `stride.slice_scatter` with step `S`), padded by `L (K - 1) - P` (plus
    `output_padding` at the end; a negative pad is a `stride.slice`), with
    the weight's channel dims swapped within each group and its kernel
    reversed (`stride.index_select` with a constant index).

    The windows' copy costs `K` times the input's memory (as cuDNN's
    "implicit GEMM" does not); python-free-docs/convolution.md says which
    convolutions this fallback runs. Runs after `stride-legalize-layouts`
    and before `stride-matmul-layout` and `stride-fuse`.

    Before:

    ```mlir
    %y = stride.convolution %x, %w stride [2] padding [1] dilation [1] groups 1
        : !stride.tensor<1x1x5xf32>, !stride.tensor<1x1x2xf32>
        -> !stride.tensor<1x1x3xf32>
    ```

    After (types shortened):

    ```mlir
    %z = stride.full 0.0 : <1x1x1xf32>
    %p = stride.cat %z, %x, %z dim 2 : ... -> <1x1x7xf32>
    %wv = stride.view %w : ... -> <1x1x2xf32>
    %win = stride.as_strided %p : ... -> <1x1x1x2x3xf32, strides = [0, 0, 0, 1, 2], offset = 0>
    %col = stride.clone %win : ... -> <1x1x1x2x3xf32>
    %cv = stride.view %col : ... -> <1x1x2x3xf32>
    %wu = stride.unsqueeze %wv dim 0 : ... -> <1x1x1x2xf32>
    %m = stride.matmul %wu, %cv : ... -> <1x1x1x3xf32>
    %y = stride.view %m : ... -> <1x1x3xf32>
    ```
  }];
  let dependentDialects = ["::stride::StrideDialect"];
}

#endif // STRIDE_CONVOLUTION_PASSES_TD
