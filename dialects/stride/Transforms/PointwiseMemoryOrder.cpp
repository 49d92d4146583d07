//===- PointwiseMemoryOrder.cpp - Pointwise results in memory order -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-pointwise-memory-order: a pointwise result packed in a permuted
// order (a channels-last image) is computed over its permuted shape,
// row-major, between permutes, so that its kernel's loops run along memory
// (Passes.td says which ops, and why).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "OpsBefore.h"
#include "StrideOrders.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace stride {
#define GEN_PASS_DEF_POINTWISEMEMORYORDER
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// `type`'s shape permuted by `order`, dense row-major from element 0.
StridedTensorType rowMajorOf(StridedTensorType type, ArrayRef<int64_t> order) {
  SmallVector<int64_t> shape;
  for (int64_t d : order)
    shape.push_back(type.getShape()[d]);
  return StridedTensorType::getContiguous(shape, type.getElementType());
}

/// The order, outermost first, in which `op`'s result is packed, where it
/// is a pointwise result this pass computes in that order; else nothing.
std::optional<SmallVector<int64_t>> permutedOrder(Operation *op) {
  // Ops of the function itself: a hand-written kernel's body is its
  // author's.
  if (!op->hasTrait<Elementwise>() || op->getNumResults() != 1 ||
      !isa<func::FuncOp>(op->getParentOp()))
    return std::nullopt;
  auto type = dyn_cast<StridedTensorType>(op->getResult(0).getType());
  if (!type || type.isSymbolic() || type.getRank() < 2 ||
      type.getOffset() != 0 || isPackedIn(type, channelsFirst(type.getRank())))
    return std::nullopt;
  // A graph output stays the fresh buffer of a kernel (stride-legalize-layouts
  // made it one), not a view of one.
  if (llvm::any_of(op->getResult(0).getUsers(),
                   [](Operation *user) { return isa<func::ReturnOp>(user); }))
    return std::nullopt;
  if (llvm::any_of(op->getOperandTypes(), [&](Type operand) {
        auto t = dyn_cast<StridedTensorType>(operand);
        return !t || t.isSymbolic() || t.getShape() != type.getShape();
      }))
    return std::nullopt;
  SmallVector<int64_t> order = llvm::to_vector(dimOrderByStride(type.getStrides()));
  if (!isPackedIn(type, order))
    return std::nullopt;
  // The permute back must give the readers exactly the type they read
  // (a dim of size 1 may carry any stride, which a permute does not keep).
  ViewResult back = inferPermute(rowMajorOf(type, order).getLayout(),
                                 inversePermutation(order));
  if (!back || *back.layout != type.getLayout())
    return std::nullopt;
  return order;
}

/// `op` computed over its result's permuted shape (`order`), row-major,
/// from permutes of its operands, with a permute back in its place.
void computeInOrder(Operation *op, ArrayRef<int64_t> order) {
  auto type = cast<StridedTensorType>(op->getResult(0).getType());
  OpsBefore ops(op, type.getElementType());
  for (OpOperand &operand : op->getOpOperands())
    operand.set(ops.permute(operand.get(), order));
  Value result = op->getResult(0);
  result.setType(rowMajorOf(type, order));
  OpBuilder b(op->getContext());
  b.setInsertionPointAfter(op);
  OpsBefore after(b, op->getLoc(), type.getElementType());
  Value back = after.permute(result, inversePermutation(order));
  assert(back.getType() == type && "the permute back restores the layout");
  result.replaceAllUsesExcept(back, back.getDefiningOp());
}

struct PointwiseMemoryOrderPass
    : stride::impl::PointwiseMemoryOrderBase<PointwiseMemoryOrderPass> {
  void runOnOperation() override {
    SmallVector<std::pair<Operation *, SmallVector<int64_t>>> work;
    getOperation().walk([&](Operation *op) {
      if (std::optional<SmallVector<int64_t>> order = permutedOrder(op))
        work.push_back({op, *order});
    });
    for (auto &[op, order] : work)
      computeInOrder(op, order);
  }
};

} // namespace
