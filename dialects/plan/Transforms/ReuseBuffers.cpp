//===- ReuseBuffers.cpp - Temporaries share buffers by liveness -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-reuse-buffers (Passes.td). The host plan is one block of steps, so
// a buffer's lifetime is the interval of step positions from its first use
// to its last (to the end of the plan for a graph output). Every buffer that
// is not zeroed gets an offset in one arena: the largest first, each at the
// lowest offset where it meets no buffer already placed whose lifetime
// overlaps its own (greedy by size, as TensorFlow Lite's arena planner and
// XLA's heap simulator do). Buffers of disjoint lifetimes may then share
// bytes whatever their sizes, and a graph output may take the bytes of
// temporaries that died before it was written.
//
//===----------------------------------------------------------------------===//

#include "dialects/plan/Transforms/Passes.h"

#include "stride/Support/BufferLimits.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace stride::plan {
#define GEN_PASS_DEF_REUSEBUFFERS
#include "dialects/plan/Transforms/Passes.h.inc"
} // namespace stride::plan

using namespace mlir;

namespace stride::plan {
namespace {

/// A buffer the arena holds: its alloc, its bytes in the arena, its
/// lifetime in step positions, and the offset the planner gives it.
struct Lifetime {
  AllocOp alloc;
  int64_t bytes;
  unsigned first;
  unsigned last;
  int64_t offset = 0;

  bool overlaps(const Lifetime &other) const {
    return first <= other.last && other.first <= last;
  }
};

/// True for an alloc that is a graph output.
bool isOutput(AllocOp alloc) {
  return llvm::any_of(alloc->getUsers(),
                      [](Operation *user) { return isa<OutputOp>(user); });
}

/// True for a buffer the arena holds: used, and not zeroed (a zeroed
/// buffer's zeros carry across runs).
bool inArena(AllocOp alloc) {
  return !alloc.getZeroed() && !alloc->use_empty();
}

/// The number of temporaries (allocs that are no graph output) in `block`
/// and their bytes.
std::pair<int64_t, int64_t> countTemporaries(Block &block) {
  int64_t count = 0, bytes = 0;
  for (auto alloc : block.getOps<AllocOp>())
    if (!isOutput(alloc)) {
      ++count;
      bytes += alloc.getSize();
    }
  return {count, bytes};
}

int64_t alignToArena(int64_t bytes) {
  return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

/// The step positions of a block's ops; a graph output's use counts as the
/// end of the plan.
class Positions {
public:
  explicit Positions(Block &block) : block(block) {
    for (auto [i, op] : llvm::enumerate(block))
      position[&op] = i;
    end = position.lookup(block.getTerminator());
  }

  unsigned of(Operation *user) const {
    return isa<OutputOp>(user)
               ? end
               : position.lookup(block.findAncestorOpInBlock(*user));
  }

  /// The first step after `collective` that uses its output (the end of
  /// the plan for a graph output); the collective's own position when none
  /// does.
  unsigned firstReaderOfOutput(CollectiveOp collective) const {
    unsigned at = of(collective);
    std::optional<unsigned> first;
    for (Operation *user : collective.getOutput().getUsers())
      if (user != collective.getOperation() && of(user) > at)
        first = std::min(first.value_or(end), of(user));
    return first.value_or(at);
  }

private:
  Block &block;
  llvm::DenseMap<Operation *, unsigned> position;
  unsigned end = 0;
};

/// The buffers of `block` the arena holds, with their lifetimes; a graph
/// output lives to the end of the plan. With `collectiveLifetimes`, a
/// collective's input lives on to the first reader of its output, since
/// the collective may still read it on the collective stream until then.
SmallVector<Lifetime> arenaLifetimes(Block &block, bool collectiveLifetimes) {
  Positions positions(block);
  SmallVector<Lifetime> lifetimes;
  for (auto alloc : block.getOps<AllocOp>()) {
    if (!inArena(alloc))
      continue;
    Lifetime life{alloc, alignToArena(alloc.getSize()), ~0u, 0};
    for (Operation *user : alloc->getUsers()) {
      unsigned at = positions.of(user);
      life.first = std::min(life.first, at);
      life.last = std::max(life.last, at);
      auto collective = dyn_cast<CollectiveOp>(user);
      if (collectiveLifetimes && collective &&
          collective.getInput() == alloc.getResult())
        life.last =
            std::max(life.last, positions.firstReaderOfOutput(collective));
    }
    lifetimes.push_back(life);
  }
  return lifetimes;
}

/// The lowest offset at which `life` meets none of `placed` whose lifetime
/// overlaps its own.
int64_t lowestFreeOffset(const Lifetime &life, ArrayRef<Lifetime *> placed) {
  SmallVector<const Lifetime *> conflicts;
  for (const Lifetime *other : placed)
    if (other->overlaps(life))
      conflicts.push_back(other);
  llvm::sort(conflicts, [](const Lifetime *a, const Lifetime *b) {
    return a->offset < b->offset;
  });
  int64_t offset = 0;
  for (const Lifetime *other : conflicts) {
    if (offset + life.bytes <= other->offset)
      break;
    offset = std::max(offset, other->offset + other->bytes);
  }
  return offset;
}

/// Gives each buffer its offset, the largest first (ties: the earlier
/// first); returns the arena's bytes.
int64_t placeInArena(MutableArrayRef<Lifetime> lifetimes) {
  SmallVector<Lifetime *> order;
  for (Lifetime &life : lifetimes)
    order.push_back(&life);
  llvm::stable_sort(order, [](const Lifetime *a, const Lifetime *b) {
    return a->bytes != b->bytes ? a->bytes > b->bytes : a->first < b->first;
  });
  SmallVector<Lifetime *> placed;
  int64_t arenaBytes = 0;
  for (Lifetime *life : order) {
    life->offset = lowestFreeOffset(*life, placed);
    placed.push_back(life);
    arenaBytes = std::max(arenaBytes, life->offset + static_cast<int64_t>(
                                          life->alloc.getSize()));
  }
  return arenaBytes;
}

struct ReuseBuffersPass : impl::ReuseBuffersBase<ReuseBuffersPass> {
  using ReuseBuffersBase::ReuseBuffersBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    Block &block = function.getBody().front();
    auto [temporaries, bytes] = countTemporaries(block);
    SmallVector<Lifetime> lifetimes =
        arenaLifetimes(block, collectiveLifetimes);
    int64_t arenaBytes = placeInArena(lifetimes);
    Builder b(function.getContext());
    int64_t outputs = 0, outputBytes = 0;
    for (Lifetime &life : lifetimes) {
      life.alloc.setArenaOffsetAttr(b.getI64IntegerAttr(life.offset));
      if (isOutput(life.alloc)) {
        ++outputs;
        outputBytes += life.alloc.getSize();
      }
    }
    function->setAttr(
        kReuseAttrName,
        b.getDictionaryAttr({
            b.getNamedAttr("temporaries", b.getI64IntegerAttr(temporaries)),
            b.getNamedAttr("bytes", b.getI64IntegerAttr(bytes)),
            b.getNamedAttr("outputs", b.getI64IntegerAttr(outputs)),
            b.getNamedAttr("output_bytes", b.getI64IntegerAttr(outputBytes)),
            b.getNamedAttr("arena_bytes", b.getI64IntegerAttr(arenaBytes)),
        }));
  }
};

} // namespace
} // namespace stride::plan
