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

    Two more describe state and mutation (python-free-docs/state.md):
    `stride.state`, on an argument, makes it a state buffer that persists
    across runs, initialized with the attribute's elements (an elements
    attribute of the argument's shape and element type, in row-major
    order); `stride.writes = "NAME"`, on a result, writes the result's
    value back into the storage of the argument named `NAME` (a state, or
    a user input that the graph mutates) when the run ends. The result
    has the argument's type, and no two results write one argument.

    ```mlir
    func.func @step(%cache: !stride.tensor<2x8xf32>
                        {stride.name = "cache", stride.state = dense<0.0> : tensor<2x8xf32>},
                    %pos: !stride.tensor<1xi64> {stride.name = "pos"})
        -> (!stride.tensor<2x8xf32> {stride.name = "new_cache", stride.writes = "cache"})
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
    /// The argument attribute that makes an input the graph's state: a
    /// buffer that persists across runs, initialized with the attribute's
    /// elements (row-major, the argument's shape and element type).
    static constexpr ::llvm::StringLiteral kStateAttrName = "stride.state";
    /// The result attribute that names the argument (by its stride.name)
    /// whose storage the result's value is written back into when the run
    /// ends: a state update, or a mutated input.
    static constexpr ::llvm::StringLiteral kWritesAttrName = "stride.writes";
    /// The discardable unit attribute on a stride.attention or
    /// stride.attention_backward that the fused library call runs:
    /// stride-decompose-attention leaves such an op alone.
    static constexpr ::llvm::StringLiteral kKeepFusedAttrName =
        "stride.keep_fused";
    /// The discardable unit attribute on a stride.attention that runs as
    /// Stride's split-KV kernel (few query rows against many keys, a
    /// decode step): stride-decompose-attention leaves it alone and
    /// stride-outline-kernels gives it a kernel of its own.
    static constexpr ::llvm::StringLiteral kSplitKvAttrName =
        "stride.split_kv";
    /// The discardable unit attribute on a stride.attention marked
    /// stride.split_kv that runs as the staged decode attention where it
    /// takes the op (stagedDecodeTakes), whatever the target's default:
    /// the variant stride-attention-library makes beside a cuDNN call.
    static constexpr ::llvm::StringLiteral kStagedKvAttrName =
        "stride.staged_kv";
    /// The discardable unit attribute on a stride.matmul that runs as
    /// Stride's skinny product kernel (a few rows of activations against a
    /// weight streamed once, a decode step's linear layers; marked by
    /// stride-matmul-layout): stride-outline-kernels gives it a kernel of
    /// its own instead of the plan a cuBLASLt call.
    static constexpr ::llvm::StringLiteral kSkinnyProductAttrName =
        "stride.skinny_product";
    /// The function attribute that declares the symbols its symbolic sizes
    /// name, each with its range: an array of #stride.symbol
    /// (python-free-docs/symbolic-sizes.md).
    static constexpr ::llvm::StringLiteral kSymbolsAttrName =
        "stride.symbols";
    /// The argument attribute that binds a declared symbol to the value of
    /// the argument, one i32 or i64 (a decode step's position), not to a
    /// size: no type names such a symbol, and only the guards of variants
    /// (stride.select_variant) read it, so that its value chooses how a
    /// value is computed, never what it is
    /// (python-free-docs/symbolic-sizes.md, "Symbols bound from a value").
    static constexpr ::llvm::StringLiteral kBindsAttrName = "stride.binds";
  }];
}

/// Every symbol the op's operand and result types name is declared by the
/// enclosing function's `stride.symbols` (a static op checks nothing).
/// First among the traits, so that the other verifiers see declared
/// symbols only.
def Stride_DeclaredSymbols : NativeOpTrait<"DeclaredSymbols"> {
  let cppNamespace = "::stride";
}

class Stride_Op<string mnemonic, list<Trait> traits = []>
    : Op<Stride_Dialect, mnemonic, [Stride_DeclaredSymbols] # traits>;

#endif // STRIDE_DIALECT_TD
