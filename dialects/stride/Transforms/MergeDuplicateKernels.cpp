//===- MergeDuplicateKernels.cpp - One launch for kernels that agree ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-merge-duplicate-kernels (Passes.td): a stride.kernel that reads the
// same values as an earlier one and computes the same thing from them (its
// body equal op for op) is replaced by the earlier kernel's results. A
// transformers decoder with a static cache computes each layer's cache
// position from the step's `cache_position` input in each layer: the same
// two one-element kernels once per layer.
//
// A duplicate's result that the function writes back into a state or a
// mutated input (a result with `stride.writes`) becomes a result of its own
// of the earlier kernel, yielding the same value again: each layer's state
// is then written in place by the one launch, where a shared result would
// be written into one state and copied into the others at the end of the
// plan (python-free-docs/state.md).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/MapVector.h"

namespace stride {
#define GEN_PASS_DEF_MERGEDUPLICATEKERNELS
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// What two duplicates share outside their bodies: operands, result types
/// and the number of ops in the body (a cheap first filter).
llvm::hash_code outerHash(KernelOp kernel) {
  llvm::hash_code hash = llvm::hash_combine_range(kernel.getInputs().begin(),
                                                  kernel.getInputs().end());
  hash = llvm::hash_combine(hash, llvm::hash_combine_range(
                                      kernel->getResultTypes().begin(),
                                      kernel->getResultTypes().end()));
  return llvm::hash_combine(hash, kernel.getBodyBlock().getOperations().size());
}

/// Whether `later` computes what `earlier` computes: the same operands and
/// result types, the same attributes but for the name (a schedule or a
/// library marking would be among them), and bodies equal op for op up to
/// locations, block arguments matched by position.
bool isDuplicate(KernelOp earlier, KernelOp later) {
  return earlier.getInputs() == later.getInputs() &&
         earlier->getResultTypes() == later->getResultTypes() &&
         earlier->getDiscardableAttrDictionary() ==
             later->getDiscardableAttrDictionary() &&
         OperationEquivalence::isRegionEquivalentTo(
             &earlier.getBody(), &later.getBody(),
             OperationEquivalence::IgnoreLocations);
}

/// Whether `use` is a function result written back into an argument (a
/// state or a mutated input).
bool isWriteBack(OpOperand &use) {
  auto ret = dyn_cast<func::ReturnOp>(use.getOwner());
  if (!ret)
    return false;
  auto func = ret->getParentOfType<func::FuncOp>();
  return func.getResultAttr(use.getOperandNumber(),
                            StrideDialect::kWritesAttrName) != nullptr;
}

/// `kernel` rebuilt with one more result per entry of `extra`, each
/// yielding again the value its result number yields. The old kernel's
/// results are replaced by the new one's first ones, and it is erased.
KernelOp addRepeatedResults(KernelOp kernel, ArrayRef<unsigned> extra) {
  OpBuilder builder(kernel);
  SmallVector<Type> types(kernel->getResultTypes());
  Operation *yield = kernel.getBodyBlock().getTerminator();
  SmallVector<Value> yielded(yield->getOperands());
  for (unsigned result : extra) {
    types.push_back(kernel->getResult(result).getType());
    yielded.push_back(yield->getOperand(result));
  }
  auto wider = KernelOp::create(builder, kernel.getLoc(), types,
                                kernel.getSymName(), kernel.getInputs());
  wider->setDiscardableAttrs(kernel->getDiscardableAttrDictionary());
  wider.getBody().takeBody(kernel.getBody());
  yield->setOperands(yielded);
  kernel->replaceAllUsesWith(
      wider->getResults().take_front(kernel->getNumResults()));
  kernel->erase();
  return wider;
}

struct MergeDuplicateKernelsPass
    : stride::impl::MergeDuplicateKernelsBase<MergeDuplicateKernelsPass> {
  void runOnOperation() override {
    // Kernels only at the function's top level, in program order: a kernel
    // reads values defined before it, so the earlier of two duplicates
    // dominates every use of the later one.
    llvm::DenseMap<unsigned, SmallVector<KernelOp>> seen;
    SmallVector<KernelOp> merged;
    // Per earlier kernel, the later duplicates' write-backs: (the result
    // number they repeat, the use to give the repeated result to).
    llvm::MapVector<Operation *, SmallVector<std::pair<unsigned, OpOperand *>>>
        writeBacks;
    for (Block &block : getOperation().getBody())
      for (auto kernel : block.getOps<KernelOp>()) {
        SmallVector<KernelOp> &bucket =
            seen[static_cast<unsigned>(outerHash(kernel))];
        auto earlier = llvm::find_if(
            bucket, [&](KernelOp other) { return isDuplicate(other, kernel); });
        if (earlier == bucket.end()) {
          bucket.push_back(kernel);
          continue;
        }
        for (OpResult result : kernel->getResults())
          for (OpOperand &use : result.getUses())
            if (isWriteBack(use))
              writeBacks[*earlier].push_back(
                  {result.getResultNumber(), &use});
        kernel->replaceAllUsesWith(*earlier);
        merged.push_back(kernel);
      }
    for (auto &[earlier, uses] : writeBacks) {
      SmallVector<unsigned> extra;
      for (auto [result, use] : uses)
        extra.push_back(result);
      KernelOp wider = addRepeatedResults(cast<KernelOp>(earlier), extra);
      unsigned next = wider->getNumResults() - uses.size();
      for (auto [result, use] : uses)
        use->set(wider->getResult(next++));
    }
    for (KernelOp kernel : merged)
      kernel->erase();
  }
};

} // namespace
