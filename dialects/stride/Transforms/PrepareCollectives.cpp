//===- PrepareCollectives.cpp - Collectives as NCCL exchanges them --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-prepare-collectives (Passes.td): each collective's input becomes
// row-major contiguous with the exchanged dim outermost, so that the plan's
// collective step (dialects/plan/Transforms/CollectiveSteps.h) is one NCCL
// call.
//
//===----------------------------------------------------------------------===//

#include "OpsBefore.h"
#include "StrideOrders.h"
#include "dialects/stride/Transforms/Passes.h"

#include "llvm/ADT/TypeSwitch.h"

namespace stride {
#define GEN_PASS_DEF_PREPARECOLLECTIVES
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

bool isContiguous(Value v) { return isRowMajor(typeOf(v).getLayout()); }

/// The dim a collective exchanges blocks along; 0 for an all_reduce.
int64_t exchangedDim(Operation *op) {
  return llvm::TypeSwitch<Operation *, int64_t>(op)
      .Case([](AllGatherOp g) { return int64_t(g.getDim()); })
      .Case([](ReduceScatterOp s) { return int64_t(s.getDim()); })
      .Default([](Operation *) { return int64_t(0); });
}

/// Whether NCCL runs `op` as it is: row-major input and result, and no
/// dim of more than one element outside the exchanged dim.
bool isReady(Operation *op, int64_t dim) {
  int64_t outer = 1;
  for (int64_t size : typeOf(op->getOperand(0)).getShape().take_front(dim))
    outer *= size;
  return outer == 1 && isContiguous(op->getOperand(0)) &&
         isContiguous(op->getResult(0));
}

/// [dim, 0, .., dim - 1, dim + 1, ..]: `dim` first, the others in order.
Dims dimFirst(int64_t rank, int64_t dim) {
  Dims order{dim};
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      order.push_back(d);
  return order;
}

/// The same collective along dim 0 of `input` (contiguous), with a
/// contiguous result.
Value collectiveAlongDim0(OpBuilder &b, Operation *op, Value input) {
  Dims shape = shapeOf(input);
  Type element = typeOf(input).getElementType();
  int64_t worldSize = *collectiveWorldSize(op);
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](AllReduceOp r) -> Value {
        return AllReduceOp::create(
            b, op->getLoc(), StridedTensorType::getContiguous(shape, element),
            input, r.getReduction(), worldSize);
      })
      .Case([&](AllGatherOp) -> Value {
        shape[0] *= worldSize;
        return AllGatherOp::create(
            b, op->getLoc(), StridedTensorType::getContiguous(shape, element),
            input, 0, worldSize);
      })
      .Case([&](ReduceScatterOp s) -> Value {
        shape[0] /= worldSize;
        return ReduceScatterOp::create(
            b, op->getLoc(), StridedTensorType::getContiguous(shape, element),
            input, s.getReduction(), 0, worldSize);
      });
}

void prepare(Operation *op) {
  int64_t dim = exchangedDim(op);
  if (isReady(op, dim))
    return;
  Value input = op->getOperand(0);
  Type element = typeOf(input).getElementType();
  OpsBefore ops(op, element);
  Dims order = dimFirst(typeOf(input).getRank(), dim);
  Value permuted = dim == 0 ? input : ops.permute(input, order);
  Value copied = ops.into(permuted, ops.dense(shapeOf(permuted), element));
  OpBuilder b(op);
  Value exchanged = collectiveAlongDim0(b, op, copied);
  Value back = dim == 0 ? exchanged
                        : ops.permute(exchanged, inversePermutation(order));
  Value result = ops.into(back, typeOf(op->getResult(0)));
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

struct PrepareCollectivesPass
    : public stride::impl::PrepareCollectivesBase<PrepareCollectivesPass> {
  void runOnOperation() override {
    SmallVector<Operation *> collectives;
    getOperation().walk([&](Operation *op) {
      if (collectiveWorldSize(op))
        collectives.push_back(op);
    });
    for (Operation *op : collectives)
      prepare(op);
  }
};

} // namespace
