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
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
}

class Stride_Op<string mnemonic, list<Trait> traits = []>
    : Op<Stride_Dialect, mnemonic, traits>;

#endif // STRIDE_DIALECT_TD
