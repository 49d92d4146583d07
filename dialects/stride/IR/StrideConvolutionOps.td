//===- StrideConvolutionOps.td - Convolution --------------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Convolution (issue 42): library-call ops like stride.matmul (included by
// StrideOps.td), the convolution and its weight's gradient. The semantics, its decomposition and what is refused are
// in python-free-docs/convolution.md.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_CONVOLUTION_OPS_TD
#define STRIDE_CONVOLUTION_OPS_TD

def Stride_ConvolutionOp : Stride_Op<"convolution", [Pure, Stride_LibraryCall,
                                                   AttrSizedOperandSegments]> {
  let summary = "1-D to 3-D convolution, grouped or transposed "
                "(`aten.convolution`), optionally with a bias";
  let description = [{
    PyTorch's `aten.convolution(input, weight, bias, stride, padding,
    dilation, transposed, output_padding, groups)` over `D = 1, 2, 3`
    spatial dims. `input` is `[N, C_in, X_1 .. X_D]`. With `G = groups`:

    - not transposed, `weight` is `[C_out, C_in / G, K_1 .. K_D]` and the
      result `[N, C_out, Y_1 .. Y_D]` with
      `Y_d = (X_d + 2 P_d - L_d (K_d - 1) - 1) / S_d + 1` (floor), where
      `S`, `P`, `L` are `stride`, `padding` and `dilation`:

      ```
      result[n, o, y..] = bias[o] + sum_{c < C_in / G, k..}
          input[n, g * C_in / G + c, y_d * S_d - P_d + k_d * L_d ..]
          * weight[o, c, k..]          (g = o / (C_out / G); 0 outside)
      ```

    - `transposed` (the gradient of the above with respect to its input),
      `weight` is `[C_in, C_out / G, K_1 .. K_D]` and
      `Y_d = (X_d - 1) S_d - 2 P_d + L_d (K_d - 1) + output_padding_d + 1`;
      each input element `input[n, g * C_in / G + c, x..]` adds
      `input * weight[g * C_in / G + c, o % (C_out / G), k..]` to
      `result[n, o, x_d * S_d - P_d + k_d * L_d ..]` where that is inside
      the result (`o` in group `g`). `output_padding` (only with
      `transposed`, each below `S_d` or `L_d`) adds rows at the end.

    `G` divides `C_in` and `C_out` (depthwise: `G = C_in`); `S`, `L` and
    `G` are at least 1, `P` and `output_padding` at least 0, and each
    result size at least 1. `bias` (optional) is `[C_out]`. The element
    types are `f16`, `bf16`, `f32` or `f64`, the same for every operand and
    the result. The operands may have any layout (channels-last is a stride
    order); the result is a fresh buffer.

    An epilogue (what cuDNN's runtime-fusion engines compute in the same
    call, python-free-docs/convolution.md; `stride-convolution-library`
    forms it): `residual` (optional, not with `transposed`) is a tensor of
    the result's shape added to it after the bias (ResNet's skip
    connection), and `relu` replaces each element by `max(0, element)`
    last. The reference interpreter sums in f64 and rounds each result
    element once, bias, residual and relu included.

    `stride-decompose-convolution` rewrites the op into a strided view of
    the windows, a copy and a `stride.matmul` (python-free-docs/convolution.md).

    ```mlir
    %y = stride.convolution %x, %w bias %b stride [2, 2] padding [1, 1]
        dilation [1, 1] groups 2
        : !stride.tensor<1x4x8x8xf32>, !stride.tensor<6x2x3x3xf32>,
          !stride.tensor<6xf32> -> !stride.tensor<1x6x4x4xf32>
    %t = stride.convolution %x, %wt stride [2] padding [0] dilation [1]
        groups 1 transposed output_padding [1]
        : !stride.tensor<1x4x5xf32>, !stride.tensor<4x3x2xf32>
          -> !stride.tensor<1x3x11xf32>
    %e = stride.convolution %x, %w2 bias %b2 residual %r : !stride.tensor<1x8x8x8xf32>
        stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 relu
        : !stride.tensor<1x4x8x8xf32>, !stride.tensor<8x4x3x3xf32>,
          !stride.tensor<8xf32> -> !stride.tensor<1x8x8x8xf32>
    ```
  }];
  let arguments = (ins Stride_FloatTensor:$input, Stride_FloatTensor:$weight,
                       Optional<Stride_FloatTensor>:$bias,
                       Optional<Stride_FloatTensor>:$residual,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups,
                       UnitAttr:$transposed,
                       OptionalAttr<DenseI64ArrayAttr>:$output_padding,
                       UnitAttr:$relu);
  let results = (outs Stride_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^)?
    (`residual` $residual^ `:` type($residual))? `stride` $stride
    `padding` $padding `dilation` $dilation `groups` $groups
    (`transposed` $transposed^)? (`output_padding` $output_padding^)?
    (`relu` $relu^)? attr-dict `:` type($input) `,`
    type($weight) (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The parameters as one ConvolutionGeometry (Convolution.h).
    ConvolutionGeometry getGeometry();
  }];
}

def Stride_ConvolutionWeightGradientOp
    : Stride_Op<"convolution_weight_gradient", [Pure, Stride_LibraryCall]> {
  let summary = "the gradient of a convolution (not transposed) with respect "
                "to its weight (`aten.convolution_backward`'s second output)";
  let description = [{
    The weight's gradient of `stride.convolution` (not transposed, no
    bias: its gradient is a sum), from the forward's `input`
    `[N, C_in, X_1 .. X_D]` and the gradient of its result, `grad_output`
    `[N, C_out, Y_1 .. Y_D]`, with the forward's `stride`, `padding`,
    `dilation` and `groups` (`G`). The result has the forward weight's
    shape `[C_out, C_in / G, K_1 .. K_D]` (the kernel sizes are the
    result type's); with `S`, `P`, `L` the stride, padding and dilation:

    ```
    result[o, c, k..] = sum_{n, y..} grad_output[n, o, y..]
        * input[n, g * C_in / G + c, y_d * S_d - P_d + k_d * L_d ..]
                                      (g = o / (C_out / G); 0 outside)
    ```

    The shape rules are the forward's: `grad_output`'s shape is the one
    `stride.convolution` gives `input` and a weight of the result's shape
    (the verifier calls the same rule). The element types are `f16`,
    `bf16`, `f32` or `f64`, the same for every operand and the result;
    the operands may have any layout, the result is a fresh buffer. The
    reference interpreter sums in f64 and rounds each element once.

    `stride-convolution-library` keeps it as one cuDNN weight-gradient
    call (`cudnn.convolution` of kind `wgrad`);
    `stride-decompose-convolution` rewrites the others (f64, or
    `convolutions=generated`) into a forward convolution over the input
    viewed with the batch as channels (python-free-docs/convolution.md).

    ```mlir
    %dw = stride.convolution_weight_gradient %x, %dy stride [2, 1]
        padding [1, 1] dilation [1, 2] groups 2
        : !stride.tensor<2x4x8x6xf32>, !stride.tensor<2x6x4x3xf32>
          -> !stride.tensor<6x2x3x3xf32>
    ```
  }];
  let arguments = (ins Stride_FloatTensor:$input,
                       Stride_FloatTensor:$grad_output,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs Stride_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $grad_output `stride` $stride `padding` $padding
    `dilation` $dilation `groups` $groups attr-dict `:` type($input) `,`
    type($grad_output) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The forward convolution's parameters (its weight the result's
    /// shape) as one ConvolutionGeometry (Convolution.h).
    ConvolutionGeometry getGeometry();
  }];
}

#endif // STRIDE_CONVOLUTION_OPS_TD
