//===- RowMajorPointwise.cpp - Row-major pointwise results ----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-row-major-pointwise: a pointwise result packed in a permuted order
// becomes row-major where Stride owns its layout (Passes.td says which
// readers allow it, and why).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "StrideOrders.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace stride {
#define GEN_PASS_DEF_ROWMAJORPOINTWISE
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// The largest rank this pass changes: sequences of tokens ([batch,
/// tokens, features]) and matrices, not images.
constexpr int64_t kMaxRowMajorRank = 3;

/// Readers that read any layout of their operands through the operands'
/// types and whose own decisions do not depend on it yet: pointwise ops,
/// reductions and matrix products (stride-matmul-layout runs later).
bool readsAnyLayout(Operation *user) {
  return user->hasTrait<Elementwise>() || isa<ReductionOpInterface>(user) ||
         isa<MatmulOp>(user);
}

/// Whether `op`'s result is a packed, permuted pointwise result that only
/// such readers read.
bool shouldBeRowMajor(Operation *op) {
  if (!op->hasTrait<Elementwise>() || op->getNumResults() != 1)
    return false;
  auto type = dyn_cast<StridedTensorType>(op->getResult(0).getType());
  // Images (rank 4 and 5) are stride-convolution-layout's: a channels-last
  // order there is the one cuDNN runs, given by the graph or chosen.
  if (!type || type.getRank() > kMaxRowMajorRank || type.getOffset() != 0 ||
      isPackedIn(type, channelsFirst(type.getRank())))
    return false;
  if (!isPackedInSomeOrder(type))
    return false;
  return llvm::all_of(op->getResult(0).getUsers(), readsAnyLayout);
}

struct RowMajorPointwisePass
    : stride::impl::RowMajorPointwiseBase<RowMajorPointwisePass> {
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      if (!shouldBeRowMajor(op))
        return;
      Value result = op->getResult(0);
      auto type = cast<StridedTensorType>(result.getType());
      result.setType(packedIn(type, channelsFirst(type.getRank())));
    });
  }
};

} // namespace
