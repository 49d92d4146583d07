//===- StrideCollectiveOps.cpp - Verifiers of the collectives -------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The shape rules of stride.all_reduce, stride.all_gather and
// stride.reduce_scatter (StrideCollectiveOps.td), once, for the verifiers,
// the importer and the tensor-parallel pass (collectiveResultShape).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/StrideOps.h"

#include "stride/Support/Layout.h"

using namespace mlir;
using namespace stride;

std::optional<int64_t> stride::collectiveWorldSize(Operation *op) {
  if (auto reduce = dyn_cast<AllReduceOp>(op))
    return reduce.getWorldSize();
  if (auto gather = dyn_cast<AllGatherOp>(op))
    return gather.getWorldSize();
  if (auto scatter = dyn_cast<ReduceScatterOp>(op))
    return scatter.getWorldSize();
  return std::nullopt;
}

SmallVector<int64_t> stride::collectiveResultShape(Operation *op,
                                                   ArrayRef<int64_t> input) {
  SmallVector<int64_t> shape(input);
  if (auto gather = dyn_cast<AllGatherOp>(op))
    shape[gather.getDim()] *= gather.getWorldSize();
  if (auto scatter = dyn_cast<ReduceScatterOp>(op))
    shape[scatter.getDim()] /= scatter.getWorldSize();
  return shape;
}

namespace {

StridedTensorType tensorOf(Value v) {
  return cast<StridedTensorType>(v.getType());
}

/// What every collective shares: one element type, `avg` only on floats.
LogicalResult verifyElements(Operation *op, Value input, Value result,
                             std::optional<CollectiveReduction> reduction) {
  Type element = tensorOf(input).getElementType();
  if (tensorOf(result).getElementType() != element)
    return op->emitOpError()
           << "result element type " << tensorOf(result).getElementType()
           << " differs from the input's " << element
           << " (a collective moves elements without converting them)";
  if (reduction == CollectiveReduction::avg && !isa<FloatType>(element))
    return op->emitOpError()
           << "avg of " << element
           << " elements: avg needs a floating-point element type (sum, "
              "then divide after a stride.cast)";
  return success();
}

/// `dim` is a dim of the input; for a scatter, its size is a multiple of
/// the world size.
LogicalResult verifySplitDim(Operation *op, Value input, int64_t dim,
                             int64_t worldSize, bool divides) {
  ArrayRef<int64_t> shape = tensorOf(input).getShape();
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
    return op->emitOpError() << "dim " << dim << " is out of range [0, "
                             << shape.size() << ") of the input";
  if (divides && shape[dim] % worldSize != 0)
    return op->emitOpError()
           << "input dim " << dim << " has size " << shape[dim]
           << ", which the world size " << worldSize
           << " does not divide: each rank receives an equal part";
  return success();
}

LogicalResult verifyResultShape(Operation *op, Value input, Value result,
                                StringRef rule) {
  SmallVector<int64_t> expected =
      collectiveResultShape(op, tensorOf(input).getShape());
  ArrayRef<int64_t> actual = tensorOf(result).getShape();
  if (actual == ArrayRef<int64_t>(expected))
    return success();
  return op->emitOpError() << "result has shape " << formatDims(actual)
                           << ", expected " << formatDims(expected) << " ("
                           << rule << ")";
}

} // namespace

LogicalResult AllReduceOp::verify() {
  if (failed(verifyElements(*this, getInput(), getResult(), getReduction())))
    return failure();
  return verifyResultShape(*this, getInput(), getResult(),
                           "the input's shape");
}

LogicalResult AllGatherOp::verify() {
  if (failed(verifyElements(*this, getInput(), getResult(), std::nullopt)) ||
      failed(verifySplitDim(*this, getInput(), getDim(), getWorldSize(),
                            /*divides=*/false)))
    return failure();
  return verifyResultShape(*this, getInput(), getResult(),
                           "the input's, with dim times the world size");
}

LogicalResult ReduceScatterOp::verify() {
  if (failed(verifyElements(*this, getInput(), getResult(), getReduction())) ||
      failed(verifySplitDim(*this, getInput(), getDim(), getWorldSize(),
                            /*divides=*/true)))
    return failure();
  return verifyResultShape(*this, getInput(), getResult(),
                           "the input's, with dim divided by the world size");
}
