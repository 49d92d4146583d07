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
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"

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

struct MergeDuplicateKernelsPass
    : stride::impl::MergeDuplicateKernelsBase<MergeDuplicateKernelsPass> {
  void runOnOperation() override {
    // Kernels only at the function's top level, in program order: a kernel
    // reads values defined before it, so the earlier of two duplicates
    // dominates every use of the later one.
    llvm::DenseMap<unsigned, SmallVector<KernelOp>> seen;
    SmallVector<KernelOp> merged;
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
        kernel->replaceAllUsesWith(*earlier);
        merged.push_back(kernel);
      }
    for (KernelOp kernel : merged)
      kernel->erase();
  }
};

} // namespace
