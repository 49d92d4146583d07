//===- ReuseBuffers.cpp - Temporaries share buffers by liveness -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-reuse-buffers (Passes.td). The host plan is one block of steps, so
// a temporary's lifetime is the interval of step positions from its first
// use to its last; a temporary may take over a buffer whose interval ended
// strictly before its own begins.
//
//===----------------------------------------------------------------------===//

#include "stride/Dialect/Plan/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace stride::plan {
#define GEN_PASS_DEF_REUSEBUFFERS
#include "stride/Dialect/Plan/Transforms/Passes.h.inc"
} // namespace stride::plan

using namespace mlir;

namespace stride::plan {
namespace {

/// A temporary: its alloc and the positions of its first and last use.
struct Lifetime {
  AllocOp alloc;
  unsigned first;
  unsigned last;
};

/// True for an alloc that is no graph output.
bool isTemporary(AllocOp alloc) {
  return llvm::none_of(alloc->getUsers(),
                       [](Operation *user) { return isa<OutputOp>(user); });
}

/// True for a temporary the pass may merge: not zeroed (its contents carry
/// across runs).
bool isShareable(AllocOp alloc) {
  return !alloc.getZeroed() && isTemporary(alloc) && !alloc->use_empty();
}

/// The number of temporaries in `block` and their bytes.
std::pair<int64_t, int64_t> countTemporaries(Block &block) {
  int64_t count = 0, bytes = 0;
  for (auto alloc : block.getOps<AllocOp>())
    if (isTemporary(alloc)) {
      ++count;
      bytes += alloc.getSize();
    }
  return {count, bytes};
}

/// The temporaries of `block` with their lifetimes, by first use.
SmallVector<Lifetime> temporaryLifetimes(Block &block) {
  llvm::DenseMap<Operation *, unsigned> position;
  for (auto [i, op] : llvm::enumerate(block))
    position[&op] = i;
  SmallVector<Lifetime> lifetimes;
  for (auto alloc : block.getOps<AllocOp>()) {
    if (!isShareable(alloc))
      continue;
    Lifetime life{alloc, ~0u, 0};
    for (Operation *user : alloc->getUsers()) {
      unsigned at = position.lookup(block.findAncestorOpInBlock(*user));
      life.first = std::min(life.first, at);
      life.last = std::max(life.last, at);
    }
    lifetimes.push_back(life);
  }
  llvm::sort(lifetimes, [](const Lifetime &a, const Lifetime &b) {
    return a.first < b.first;
  });
  return lifetimes;
}

/// Among the buffers free before `position`, the smallest one that holds
/// `size` bytes, else the largest; null when none is free.
Lifetime *pickFree(MutableArrayRef<Lifetime> pool, unsigned position,
                   int64_t size) {
  Lifetime *best = nullptr;
  for (Lifetime &candidate : pool) {
    if (candidate.last >= position)
      continue;
    if (!best) {
      best = &candidate;
      continue;
    }
    int64_t have = candidate.alloc.getSize(), bestSize = best->alloc.getSize();
    bool fits = have >= size, bestFits = bestSize >= size;
    if ((fits && (!bestFits || have < bestSize)) ||
        (!fits && !bestFits && have > bestSize))
      best = &candidate;
  }
  return best;
}

/// Merges each temporary into a free earlier buffer where there is one.
void shareBuffers(MutableArrayRef<Lifetime> lifetimes) {
  SmallVector<Lifetime> pool;
  for (Lifetime &life : lifetimes) {
    int64_t size = life.alloc.getSize();
    Lifetime *free = pickFree(pool, life.first, size);
    if (!free) {
      pool.push_back(life);
      continue;
    }
    if (static_cast<int64_t>(free->alloc.getSize()) < size)
      free->alloc.setSize(size);
    life.alloc.getBuffer().replaceAllUsesWith(free->alloc.getBuffer());
    life.alloc.erase();
    free->last = life.last;
  }
}

struct ReuseBuffersPass : impl::ReuseBuffersBase<ReuseBuffersPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    Block &block = function.getBody().front();
    auto [temporaries, bytes] = countTemporaries(block);
    SmallVector<Lifetime> lifetimes = temporaryLifetimes(block);
    shareBuffers(lifetimes);
    auto [shared, sharedBytes] = countTemporaries(block);
    Builder b(function.getContext());
    function->setAttr(
        kReuseAttrName,
        b.getDictionaryAttr({
            b.getNamedAttr("temporaries", b.getI64IntegerAttr(temporaries)),
            b.getNamedAttr("bytes", b.getI64IntegerAttr(bytes)),
            b.getNamedAttr("shared_temporaries", b.getI64IntegerAttr(shared)),
            b.getNamedAttr("shared_bytes", b.getI64IntegerAttr(sharedBytes)),
        }));
  }
};

} // namespace
} // namespace stride::plan
