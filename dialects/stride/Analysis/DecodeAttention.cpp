//===- DecodeAttention.cpp - Which decode steps a staged kernel takes -----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Analysis/DecodeAttention.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;

namespace stride {

bool readsRowVectorsOf(StridedTensorType type, int64_t width) {
  ArrayRef<int64_t> shape = type.getShape(), strides = type.getStrides();
  if (shape[3] % width != 0 || (shape[3] > 1 && strides[3] != 1))
    return false;
  for (int64_t d = 0; d < 3; ++d)
    if (shape[d] > 1 && strides[d] % width != 0)
      return false;
  return type.getOffset() % width == 0;
}

bool stagedDecodeTakes(AttentionOp op) {
  if (llvm::any_of(op->getOperandTypes(), [](Type t) {
        return cast<StridedTensorType>(t).isSymbolic();
      }))
    return false;
  if (!op.getKvLength() || op.getMask() || op.getCausal() || op.getLogsumexp())
    return false;
  StridedTensorType key = op.getKey().getType(),
                    value = op.getValue().getType();
  Type element = key.getElementType();
  if (!(element.isF16() || element.isBF16()))
    return false;
  ArrayRef<int64_t> query = op.getQuery().getType().getShape();
  int64_t headDim = query[3], valueDim = value.getShape()[3];
  int64_t units = query[0] * key.getShape()[1] * query[2];
  int64_t rows = query[1] / key.getShape()[1];
  return headDim % 8 == 0 && valueDim % 8 == 0 &&
         headDim <= kMaxStagedKvHeadDim && valueDim <= kMaxStagedKvHeadDim &&
         units <= kMaxStagedKvUnits &&
         rows * valueDim <= kMaxStagedKvRowElements &&
         readsRowVectorsOf(key, 8) && readsRowVectorsOf(value, 8);
}

/// The value of `full`, an integer.
static std::optional<int64_t> integerFull(Value v) {
  auto full = v.getDefiningOp<FullOp>();
  if (!full)
    return std::nullopt;
  double value = full.getValue().convertToDouble();
  return value == std::trunc(value) ? std::optional<int64_t>(int64_t(value))
                                    : std::nullopt;
}

std::optional<ValidLengthInput> validLengthInput(AttentionOp op) {
  Value v = op.getKvLength();
  int64_t offset = 0;
  while (v) {
    if (auto argument = dyn_cast<BlockArgument>(v)) {
      auto type = cast<StridedTensorType>(argument.getType());
      Type element = type.getElementType();
      if (!isa<func::FuncOp>(argument.getOwner()->getParentOp()) ||
          type.isSymbolic() || type.getNumElements() != 1 ||
          !(element.isSignlessInteger(32) || element.isSignlessInteger(64)))
        return std::nullopt;
      return ValidLengthInput{argument.getArgNumber(), offset};
    }
    Operation *def = v.getDefiningOp();
    if (isa_and_nonnull<ViewOpInterface, CastOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    if (!isa_and_nonnull<AddOp, MaximumOp, MinimumOp>(def))
      return std::nullopt;
    // A clamp keeps the count's order; only an addition moves it.
    Value lhs = def->getOperand(0), rhs = def->getOperand(1);
    std::optional<int64_t> constant = integerFull(rhs);
    if (!constant) {
      constant = integerFull(lhs);
      std::swap(lhs, rhs);
    }
    if (!constant)
      return std::nullopt;
    if (isa<AddOp>(def))
      offset += *constant;
    v = lhs;
  }
  return std::nullopt;
}

} // namespace stride
