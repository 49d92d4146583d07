//===- Ops.cpp - The op table: aten targets to stride ops -----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// One builder per aten overload. Omitted arguments take the overload's
// default (torch writes only the arguments that differ from it). PyTorch's
// implicit broadcasting and type promotion become stride.expand and
// stride.cast; scalars become rank-0 stride.full. The last op of a node's
// output gets the type the file gives that output.
//
// The builders are in one file per op group: PointwiseOps.cpp (pointwise
// ops, copies and creation), ViewOps.cpp (views, cat), IndexOps.cpp
// (scatters and gathers), ReductionOps.cpp (reductions, scans),
// MatmulOps.cpp (matrix products), ExpansionOps.cpp (softmax, layer
// norm) and AttentionOps.cpp (scaled dot-product attention); this file
// assembles their table and looks targets up in it.
//
//===----------------------------------------------------------------------===//

#include "OpTable.h"
#include "stride/Import/Torch/Importer.h"

namespace stride::torch {

namespace {

const OpTable &table() {
  static const OpTable ops = [] {
    OpTable ops;
    addPointwiseOps(ops);
    addViewOps(ops);
    addIndexOps(ops);
    addReductionOps(ops);
    addMatmulOps(ops);
    addExpansionOps(ops);
    addAttentionOps(ops);
    addConvNetOps(ops);
    addConvolutionOps(ops);
    addEmbeddingBagOps(ops);
    addActivationOps(ops);
    addSortOps(ops);
    addNormOps(ops);
    addUpsampleOps(ops);
    addCollectiveOps(ops);
    addScatterReduceOps(ops);
    addPoolingOps(ops);
    addDistanceOps(ops);
    addGridSampleOps(ops);
    addSymIntOps(ops);
    return ops;
  }();
  return ops;
}

/// "torch.ops.aten.add.Tensor" -> "aten.add.Tensor".
llvm::StringRef shortTarget(llvm::StringRef target) {
  target.consume_front("torch.ops.");
  return target;
}

} // namespace

const OpBuilderFn *lookupOp(llvm::StringRef target) {
  static std::map<std::string, OpBuilderFn, std::less<>> wrapped = [] {
    std::map<std::string, OpBuilderFn, std::less<>> m;
    for (const auto &[name, fn] : table())
      m.emplace(name, fn);
    return m;
  }();
  auto it = wrapped.find(shortTarget(target));
  return it == wrapped.end() ? nullptr : &it->second;
}

bool acceptsAbsentOutputs(llvm::StringRef target) {
  // convolution_backward leaves out the gradients its output_mask does not
  // ask for; the size queries' one output is a SymInt.
  llvm::StringRef op = shortTarget(target);
  return attentionTakesAbsentOutputs(op) || isSymbolicScalarOp(op) ||
         op == "aten.convolution_backward.default";
}

bool hasNoOutputs(llvm::StringRef target) {
  llvm::StringRef op = shortTarget(target);
  return op == "aten._assert_tensor_metadata.default" || isSymbolicCheck(op);
}

std::vector<std::string> importedTargets() {
  std::vector<std::string> names;
  // Python's operators (operator.mul on SymInts) are named by their
  // module, "_operator.mul"; the others are torch.ops.
  for (const auto &entry : table())
    names.push_back(llvm::StringRef(entry.first).starts_with("_operator.")
                        ? entry.first
                        : "torch.ops." + entry.first);
  return names;
}

} // namespace stride::torch
