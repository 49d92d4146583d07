//===- FoldMasks.cpp - Attention masks folded at compile time -------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The mask's source (before its broadcast) is computed by the reference
// interpreter (Evaluate.h); its values decide (FoldMasks.h).
//
//===----------------------------------------------------------------------===//

#include "stride/Interpreter/FoldMasks.h"

#include "dialects/stride/IR/StrideOps.h"
#include "stride/Interpreter/Evaluate.h"
#include "stride/Interpreter/Interpreter.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace stride {

namespace {

/// What a mask of [..., Sq, Skv] values holds.
enum class MaskKind { Other, AllTrue, Causal };

/// The highest additive mask value that masks a key out exactly: f16's
/// lowest finite value, above every float type's `torch.finfo(dtype).min`.
/// Beside a row's diagonal score (a causal mask leaves key 0 in every row)
/// its exponential is 0 in f32 for any scores whose spread within a row is
/// below 65,000, as -inf's is.
constexpr double kMaskedOut = -65504.0;

/// Classifies a boolean mask (true attends) or an additive one (0 attends,
/// kMaskedOut or less masks out).
MaskKind classify(const HostArray &mask, bool additive) {
  int64_t rank = mask.shape.size();
  if (rank < 2)
    return MaskKind::Other;
  int64_t rows = mask.shape[rank - 2], columns = mask.shape[rank - 1];
  bool allTrue = true, causal = true;
  for (int64_t i = 0, n = mask.numElements(); i < n && (allTrue || causal); ++i) {
    double x = hostArrayElement(mask, i);
    bool attends = additive ? x == 0 : x != 0;
    bool maskedOut = additive ? x <= kMaskedOut : x == 0;
    int64_t column = i % columns, row = i / columns % rows;
    allTrue &= attends;
    causal &= column <= row ? attends : maskedOut;
  }
  return allTrue ? MaskKind::AllTrue : causal ? MaskKind::Causal : MaskKind::Other;
}

/// The mask's source before a broadcast (its values are the same for every
/// index of the broadcast dims), and how many elements it has.
Value sourceOf(Value mask) {
  if (auto expand = mask.getDefiningOp<ExpandOp>())
    return expand.getInput();
  return mask;
}

} // namespace

unsigned foldConstantAttentionMasks(ModuleOp module, int64_t maxElements) {
  llvm::DenseMap<Value, MaskKind> known;
  unsigned folded = 0;
  module.walk([&](Operation *op) {
    auto forward = dyn_cast<AttentionOp>(op);
    auto backward = dyn_cast<AttentionBackwardOp>(op);
    Value mask = forward ? forward.getMask() : backward ? backward.getMask() : Value();
    if (!mask)
      return;
    Type element = cast<StridedTensorType>(mask.getType()).getElementType();
    bool additive = isa<FloatType>(element);
    if (!additive && !element.isInteger(1))
      return;
    Value source = sourceOf(mask);
    auto sourceType = cast<StridedTensorType>(source.getType());
    ArrayRef<int64_t> maskShape = cast<StridedTensorType>(mask.getType()).getShape();
    // The source's last two dims must be the mask's (rows and keys), not
    // broadcast.
    ArrayRef<int64_t> shape = sourceType.getShape();
    // A mask over symbolic sizes is not evaluated: the interpreter runs
    // static shapes only.
    if (sourceType.isSymbolic() ||
        cast<StridedTensorType>(mask.getType()).isSymbolic() ||
        shape.size() < 2 || shape.take_back(2) != maskShape.take_back(2) ||
        sourceType.getNumElements() > maxElements)
      return;
    auto [it, inserted] = known.try_emplace(source, MaskKind::Other);
    if (inserted)
      if (std::optional<HostArray> values = evaluateWithoutInputs(source))
        it->second = classify(*values, additive);
    if (it->second == MaskKind::Other)
      return;
    bool causal = it->second == MaskKind::Causal;
    if (forward) {
      forward.getMaskMutable().clear();
      if (causal)
        forward.setCausal(true);
    } else {
      backward.getMaskMutable().clear();
      if (causal)
        backward.setCausal(true);
    }
    ++folded;
  });
  return folded;
}

} // namespace stride
