//===- AccumulateIntoScatters.cpp - x + scatter_add(0, ...) as one scatter -===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-accumulate-into-scatters (Passes.td): `add(x, index_add(full 0,
// index, src))` becomes `index_add(x, index, src)`, and likewise for
// `scatter_add`: the scatter accumulates into `x` instead of into a tensor
// of zeros that is then added to `x`. A tied embedding's gradient (the LM
// head's product plus the embedding's index_add of the token gradients)
// is so one tensor instead of three of the vocabulary's size.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "dialects/stride/IR/Graph.h"

#include "mlir/IR/Builders.h"

namespace stride {
#define GEN_PASS_DEF_ACCUMULATEINTOSCATTERS
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// `value`'s defining op when it is an accumulating index scatter
/// (`index_add`, `scatter_add`) into a `stride.full` of zeros that nothing
/// else reads; null otherwise.
IndexScatterOpInterface scatterIntoZeros(Value value) {
  auto scatter = value.getDefiningOp<IndexScatterOpInterface>();
  if (!scatter || !scatter.isAccumulating() || !value.hasOneUse())
    return nullptr;
  auto zeros = scatter->getOperand(0).getDefiningOp<FullOp>();
  if (!zeros || zeros.getValue().convertToDouble() != 0.0)
    return nullptr;
  return scatter;
}

/// Rewrites `add` when one operand is a scatter into zeros: the scatter,
/// cloned with the other operand as its input and the add's result type,
/// replaces the add.
void accumulateInto(AddOp add) {
  for (auto [scattered, other] : {std::pair{add.getLhs(), add.getRhs()},
                                  std::pair{add.getRhs(), add.getLhs()}}) {
    IndexScatterOpInterface scatter = scatterIntoZeros(scattered);
    if (!scatter)
      continue;
    OpBuilder builder(add);
    Operation *accumulated = builder.clone(*scatter);
    accumulated->setOperand(0, other);
    accumulated->getResult(0).setType(add.getResult().getType());
    Operation *zeros = scatter->getOperand(0).getDefiningOp();
    add.getResult().replaceAllUsesWith(accumulated->getResult(0));
    add.erase();
    scatter->erase();
    if (zeros->use_empty())
      zeros->erase();
    return;
  }
}

struct AccumulateIntoScattersPass
    : stride::impl::AccumulateIntoScattersBase<AccumulateIntoScattersPass> {
  void runOnOperation() override {
    SmallVector<AddOp> adds;
    getOperation().walk([&](AddOp add) { adds.push_back(add); });
    for (AddOp add : adds)
      accumulateInto(add);
  }
};

} // namespace
