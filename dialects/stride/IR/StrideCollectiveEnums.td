//===- StrideCollectiveEnums.td - What a collective does ---*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The enums of collectives, shared by the stride dialect's collective ops
// (StrideCollectiveOps.td) and the plan's collective step (PlanOps.td). Their
// C++ is generated once, with the stride dialect's enums (StrideEnums.h.inc).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_COLLECTIVE_ENUMS_TD
#define STRIDE_COLLECTIVE_ENUMS_TD

include "mlir/IR/EnumAttr.td"

def Stride_CollectiveReduction : I32EnumAttr<"CollectiveReduction",
    "how a collective combines the ranks' elements", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"avg", 1>,
    I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>]> {
  let cppNamespace = "::stride";
}

def Stride_CollectiveOperation : I32EnumAttr<"CollectiveOperation",
    "which collective a plan step runs", [
    I32EnumAttrCase<"all_reduce", 0>, I32EnumAttrCase<"all_gather", 1>,
    I32EnumAttrCase<"reduce_scatter", 2>]> {
  let cppNamespace = "::stride";
}

#endif // STRIDE_COLLECTIVE_ENUMS_TD
