//===- CollectiveSteps.cpp - Collectives as the plan's NCCL steps ---------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "CollectiveSteps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace stride::plan {

namespace {

/// A contiguous run of elements: row-major strides from some offset.
bool isContiguous(StridedTensorType type) {
  Layout layout = type.getLayout();
  layout.offset = 0;
  return isRowMajor(layout);
}

/// The elements of `shape` before `dim`: the number of rank blocks NCCL
/// would interleave along `dim`.
int64_t outerElements(ArrayRef<int64_t> shape, int64_t dim) {
  int64_t outer = 1;
  for (int64_t size : shape.take_front(dim))
    outer *= size;
  return outer;
}

LogicalResult checkContiguous(Operation *op, Value tensor, StringRef what) {
  auto type = cast<StridedTensorType>(tensor.getType());
  if (isContiguous(type))
    return success();
  return op->emitOpError()
         << "has " << what << " of type " << type
         << ", which NCCL cannot read or write: a plan's collective takes "
            "row-major contiguous tensors (make the input contiguous with a "
            "copy, a stride.clone with a row-major result, before the "
            "collective)";
}

LogicalResult checkOutermost(Operation *op, Value blocked, int64_t dim) {
  ArrayRef<int64_t> shape =
      cast<StridedTensorType>(blocked.getType()).getShape();
  if (outerElements(shape, dim) <= 1)
    return success();
  return op->emitOpError()
         << "exchanges blocks along dim " << dim << " of shape "
         << formatDims(shape) << ", inside outer dims of "
         << outerElements(shape, dim)
         << " elements; NCCL's ranks' blocks are contiguous, so a plan's "
            "collective gathers or scatters along the outermost dim of "
            "more than one element only (permute that dim to the front "
            "first)";
}

} // namespace

FailureOr<CollectiveStepShape> collectiveStepShape(Operation *collective) {
  Value input = collective->getOperand(0), result = collective->getResult(0);
  if (failed(checkContiguous(collective, input, "an input")) ||
      failed(checkContiguous(collective, result, "a result")))
    return failure();
  auto inputType = cast<StridedTensorType>(input.getType());
  auto resultType = cast<StridedTensorType>(result.getType());
  CollectiveStepShape shape;
  shape.elementType = inputType.getElementType();
  shape.worldSize = *collectiveWorldSize(collective);
  shape.inputOffsetBytes =
      inputType.getLayout().offset * int64_t(dtypeSize(inputType.getDType()));
  LogicalResult checked =
      llvm::TypeSwitch<Operation *, LogicalResult>(collective)
          .Case([&](AllReduceOp op) {
            shape.kind = CollectiveOperation::all_reduce;
            shape.reduction = op.getReduction();
            shape.count = inputType.getNumElements();
            return success();
          })
          .Case([&](AllGatherOp op) {
            shape.kind = CollectiveOperation::all_gather;
            shape.count = inputType.getNumElements();
            return checkOutermost(op, result, op.getDim());
          })
          .Case([&](ReduceScatterOp op) {
            shape.kind = CollectiveOperation::reduce_scatter;
            shape.reduction = op.getReduction();
            shape.count = resultType.getNumElements();
            return checkOutermost(op, input, op.getDim());
          });
  if (failed(checked))
    return failure();
  return shape;
}

} // namespace stride::plan
