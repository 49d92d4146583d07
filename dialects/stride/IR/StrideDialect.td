//===- StrideDialect.td - The stride dialect ---------------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECT_TD
#define STRIDE_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Stride_Dialect : Dialect {
  let name = "stride";
  let cppNamespace = "::stride";
  let summary = "Tensor graphs whose every value carries an explicit strided layout";
  let description = [{
    The `stride` dialect describes tensor graphs in the style of PyTorch's
    aten ops, with one difference that matters: every tensor value has an
    explicit layout (strides in elements and a storage offset), printed
    always. View ops alias their operand and compute their result layout from
    it; functional ops write a fresh buffer, whose layout the layout
    legalization pass checks to be non-overlapping. Broadcasting is never
    implicit: it is an explicit `stride.expand`, a zero-stride view.

    The dialect defines one argument and result attribute: `stride.name`, a
    non-empty string on an argument or result of the graph's function that
    names that input or output (for the module's signature and the tools'
    `--input NAME=FILE` and output files). Unnamed inputs and outputs are
    `argN` and `resultN`.

    ```mlir
    func.func @f(%x: !stride.tensor<4xf32> {stride.name = "x"})
        -> (!stride.tensor<4xf32> {stride.name = "y"})
    ```

    On the graph's function, `stride.absent_outputs` (a strictly increasing
    `array<i64>`) lists the positions, among the program's outputs, of those
    that are `None`: a backward graph's gradients of inputs that need none.
    The function returns the other outputs, in order; position `p` counts
    the results and the absent outputs before it, so each is below the
    number of results plus the number of absent outputs. The module's
    signature records them (`Signature.absent_outputs`).

    ```mlir
    // The program returns (None, g, None).
    func.func @backward(%t: !stride.tensor<4xf32>) -> !stride.tensor<4xf32>
        attributes {stride.absent_outputs = array<i64: 0, 2>}
    ```
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The argument and result attribute that names a graph input or output.
    static constexpr ::llvm::StringLiteral kNameAttrName = "stride.name";
    /// The graph function's attribute that lists the positions of its
    /// absent (None) outputs.
    static constexpr ::llvm::StringLiteral kAbsentOutputsAttrName =
        "stride.absent_outputs";
    /// The discardable unit attribute on a stride.attention or
    /// stride.attention_backward that the fused library call runs:
    /// stride-decompose-attention leaves such an op alone.
    static constexpr ::llvm::StringLiteral kKeepFusedAttrName =
        "stride.keep_fused";
  }];
}

class Stride_Op<string mnemonic, list<Trait> traits = []>
    : Op<Stride_Dialect, mnemonic, traits>;

#endif // STRIDE_DIALECT_TD
