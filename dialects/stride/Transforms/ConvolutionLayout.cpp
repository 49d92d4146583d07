//===- ConvolutionLayout.cpp - Channels-last where Stride owns it ---------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-convolution-layout: f16 and bf16 convolutions write channels-last
// (the order cuDNN's tensor-core engines run), and the pointwise ops after
// them keep that order, wherever Stride owns the layout of the values
// (Passes.td says which; python-free-docs/convolution.md, "Layouts", why).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "StrideOrders.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace stride {
#define GEN_PASS_DEF_CONVOLUTIONLAYOUT
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// Whether Stride may choose `value`'s layout: a fresh buffer of 2-D or
/// 3-D images in f16 or bf16, row-major from element 0 as the importer
/// writes it, that the graph neither returns nor views: every reader is a
/// functional op, a convolution or a weight gradient, which read any
/// layout through their operands' types.
bool layoutIsOwned(Value value) {
  Operation *def = value.getDefiningOp();
  auto type = dyn_cast<StridedTensorType>(value.getType());
  if (!def || !type || !(isFunctional(def) || isa<ConvolutionOp>(def)))
    return false;
  Type element = type.getElementType();
  if (!(element.isF16() || element.isBF16()) || type.getRank() < 4 ||
      type.getOffset() != 0 || !isPackedIn(type, channelsFirst(type.getRank())))
    return false;
  return llvm::all_of(value.getUsers(), [](Operation *user) {
    return isFunctional(user) ||
           isa<ConvolutionOp, ConvolutionWeightGradientOp>(user);
  });
}

/// Whether `reader` reduces its operand per channel (dim 1) over its
/// images (dim 0 and positions): a batch norm's statistics or its
/// backward's sums. A pooling over positions alone (ResNet's closing
/// average) reads channels-last well: its threads take neighbouring
/// channels.
bool reducesPerChannel(Operation *reader) {
  auto reduction = dyn_cast<ReductionOpInterface>(reader);
  if (!reduction)
    return false;
  SmallVector<int64_t> dims = reduction.getReducedDims();
  return llvm::is_contained(dims, 0) && !llvm::is_contained(dims, 1) &&
         llvm::any_of(dims, [](int64_t d) { return d >= 2; });
}

/// The results of `value`'s pointwise (`Elementwise`) readers that have
/// its shape: the values a layout chosen for `value` carries on to.
SmallVector<Value> samePointwiseResults(Value value) {
  SmallVector<Value> results;
  auto shape = cast<StridedTensorType>(value.getType()).getShape();
  for (Operation *user : value.getUsers()) {
    if (!user->hasTrait<Elementwise>() || user->getNumResults() != 1)
      continue;
    auto type = dyn_cast<StridedTensorType>(user->getResult(0).getType());
    if (type && type.getShape() == shape)
      results.push_back(user->getResult(0));
  }
  return results;
}

/// Whether `value`, or a same-shaped pointwise result computed from it, is
/// reduced per channel. Such a value stays row-major: a channel of a
/// channels-last tensor is strided by the channel count, and the fused
/// reduction (a block per channel, bench/NOTES.md section 65) would read
/// every element from its own memory sector; cuDNN converts the
/// convolution's layout for a fraction of that.
bool reducedPerChannel(Value value) {
  SmallVector<Value> worklist = {value};
  llvm::SmallPtrSet<Value, 8> seen = {value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (llvm::any_of(v.getUsers(), reducesPerChannel))
      return true;
    for (Value result : samePointwiseResults(v))
      if (seen.insert(result).second)
        worklist.push_back(result);
  }
  return false;
}

/// What a pooling's windows read: `value` through views and through the
/// cats that pad it (their one operand that no `full` defines).
Value windowSource(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto view = dyn_cast<ViewOpInterface>(def)) {
      value = view.getSource();
      continue;
    }
    auto cat = dyn_cast<CatOp>(def);
    if (!cat)
      break;
    SmallVector<Value> padded;
    for (Value input : cat.getInputs())
      if (!input.getDefiningOp<FullOp>())
        padded.push_back(input);
    if (padded.size() != 1)
      break;
    value = padded.front();
  }
  return value;
}

/// Whether `op` pools a channels-last image: a reduction that keeps the
/// images and channels (dims 0 and 1) of windows read from a value packed
/// channels-last. Its result then goes channels-last too, so that the
/// threads, which take its outputs in the order of their reads (channels
/// innermost), write neighbouring elements, and the convolution after it
/// reads it in place (ResNet's max pool, bench/NOTES.md section 66).
bool poolsChannelsLast(ReductionOpInterface op) {
  SmallVector<int64_t> dims = op.getReducedDims();
  if (llvm::any_of(dims, [](int64_t d) { return d < 2; }))
    return false;
  auto source =
      dyn_cast<StridedTensorType>(windowSource(op.getInput()).getType());
  return source && source.getRank() >= 4 &&
         isPackedIn(source, channelsLast(source.getRank())) &&
         !isPackedIn(source, channelsFirst(source.getRank()));
}

/// Gives `value` the channels-last layout; false if it had it already.
bool makeChannelsLast(Value value) {
  auto type = cast<StridedTensorType>(value.getType());
  StridedTensorType wanted = packedIn(type, channelsLast(type.getRank()));
  if (type == wanted)
    return false;
  value.setType(wanted);
  return true;
}

struct ConvolutionLayoutPass
    : stride::impl::ConvolutionLayoutBase<ConvolutionLayoutPass> {
  void runOnOperation() override {
    SmallVector<Value> worklist;
    getOperation().walk([&](ConvolutionOp op) {
      if (layoutIsOwned(op.getResult()) && !reducedPerChannel(op.getResult()) &&
          makeChannelsLast(op.getResult()))
        worklist.push_back(op.getResult());
    });
    carryToPointwiseResults(worklist);
    // Poolings of those values, after them, and their pointwise readers.
    getOperation().walk([&](ReductionOpInterface op) {
      Value result = op->getResult(0);
      if (layoutIsOwned(result) && poolsChannelsLast(op) &&
          !reducedPerChannel(result) && makeChannelsLast(result))
        worklist.push_back(result);
    });
    carryToPointwiseResults(worklist);
  }

  /// Pointwise readers of a channels-last value write channels-last too (a
  /// residual add, a ReLU, a batch norm's remains), so the next convolution
  /// reads it in place.
  static void carryToPointwiseResults(SmallVector<Value> &worklist) {
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (Value result : samePointwiseResults(value))
        if (layoutIsOwned(result) && makeChannelsLast(result))
          worklist.push_back(result);
    }
  }
};

} // namespace
