//===- OverlapCollectives.cpp - Collectives beside the other steps --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-overlap-collectives (Passes.td). The plan's collectives move to the
// invocation's collective stream; events order the two streams only where a
// step and a collective touch the same bytes: the collective waits for the
// last earlier step that writes its input or touches its output, and the
// first later step that touches its output or writes its input (a later
// tenant of its arena bytes included) waits for it. The runtime only
// enqueues what the plan says.
//
//===----------------------------------------------------------------------===//

#include "dialects/plan/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace stride::plan {
#define GEN_PASS_DEF_OVERLAPCOLLECTIVES
#include "dialects/plan/Transforms/Passes.h.inc"
} // namespace stride::plan

using namespace mlir;

namespace stride::plan {
namespace {

/// A buffer's bytes in the arena, [begin, end); nullopt for a buffer of
/// its own (an input, a constant, a state, a zeroed or unplaced alloc),
/// which shares bytes with no other buffer.
std::optional<std::pair<int64_t, int64_t>> arenaBytes(Value buffer) {
  auto alloc = buffer.getDefiningOp<AllocOp>();
  if (!alloc || !alloc.getArenaOffset())
    return std::nullopt;
  int64_t begin = *alloc.getArenaOffset();
  return std::make_pair(begin, begin + alloc.getSize());
}

/// Whether two buffers share bytes: the same buffer, or overlapping bytes
/// of the arena (stride-reuse-buffers gave them to steps of disjoint
/// lifetimes).
bool sharesBytes(Value a, Value b) {
  if (a == b)
    return true;
  auto x = arenaBytes(a), y = arenaBytes(b);
  return x && y && x->first < y->second && y->first < x->second;
}

bool sharesBytesWithAny(Value buffer, ArrayRef<Value> others) {
  return llvm::any_of(others,
                      [&](Value other) { return sharesBytes(buffer, other); });
}

/// The buffers a step reads and those it writes.
struct Accesses {
  SmallVector<Value> reads;
  SmallVector<Value> writes;
};

/// A dispatch reads its kernel's inputs and writes its results and
/// scratch; a library call may read and write any of its buffers (the
/// plan does not say which a routine writes).
Accesses accessesOf(Operation *step, SymbolTableCollection &symbols) {
  Accesses a;
  if (auto dispatch = dyn_cast<DispatchOp>(step)) {
    KernelOp kernel = dispatch.lookupKernel(symbols);
    unsigned inputs = kernel ? kernel.getBodyBlock().getNumArguments() : 0;
    for (auto [i, buffer] : llvm::enumerate(dispatch.getBuffers()))
      (i < inputs ? a.reads : a.writes).push_back(buffer);
  } else if (auto collective = dyn_cast<CollectiveOp>(step)) {
    a.reads.push_back(collective.getInput());
    a.writes.push_back(collective.getOutput());
  } else if (auto copy = dyn_cast<CopyOp>(step)) {
    a.reads.push_back(copy.getSource());
    a.writes.push_back(copy.getTarget());
  } else if (auto fill = dyn_cast<FillOp>(step)) {
    a.writes.push_back(fill.getBuffer());
  } else if (auto call = dyn_cast<LibraryCallOp>(step)) {
    a.reads.append(call.getBuffers().begin(), call.getBuffers().end());
    a.writes.append(call.getBuffers().begin(), call.getBuffers().end());
  }
  return a;
}

/// Whether `step` and `collective` may not run at the same time: one writes
/// bytes the other reads or writes.
bool conflicts(const Accesses &step, CollectiveOp collective) {
  Value input = collective.getInput(), output = collective.getOutput();
  return sharesBytesWithAny(output, step.reads) ||
         sharesBytesWithAny(output, step.writes) ||
         sharesBytesWithAny(input, step.writes);
}

bool isStep(Operation &op) {
  return isa<DispatchOp, LibraryCallOp, CollectiveOp, FillOp, CopyOp>(op);
}

/// A collective on the collective stream whose completion the invocation's
/// stream has not waited for yet.
struct Pending {
  CollectiveOp collective;
  Value completion;
};

/// Places the fork and join events of one function's plan.
class StreamPlanner {
public:
  explicit StreamPlanner(Block &block) : block(block) {
    for (Operation &op : block)
      if (isStep(op))
        steps.push_back(&op);
  }

  void run() {
    for (auto [position, step] : llvm::enumerate(steps)) {
      if (auto collective = dyn_cast<CollectiveOp>(step))
        moveToCollectiveStream(collective, position);
      else
        joinBefore(step);
    }
    if (!pending.empty())
      waitOnMainStream(pending.back().completion, block.getTerminator());
  }

private:
  Block &block;
  /// The plan's steps in order, before any event was added.
  SmallVector<Operation *> steps;
  SymbolTableCollection symbols;
  /// The position (in `steps`) of the last step of the invocation's stream
  /// that the collective stream has waited for; -1: only for the plan's
  /// start; nullopt: for nothing yet (it has not forked).
  std::optional<int64_t> forkedAfter;
  SmallVector<Pending> pending;

  /// The position of the last step of the invocation's stream before
  /// `position` that conflicts with `collective`; -1 when none does.
  int64_t lastConflictBefore(CollectiveOp collective, size_t position) {
    for (int64_t i = int64_t(position) - 1; i >= 0; --i)
      if (!isa<CollectiveOp>(steps[i]) &&
          conflicts(accessesOf(steps[i], symbols), collective))
        return i;
    return -1;
  }

  void moveToCollectiveStream(CollectiveOp collective, size_t position) {
    int64_t after = lastConflictBefore(collective, position);
    if (!forkedAfter || after > *forkedAfter) {
      Value fork = recordAfterStep(after);
      OpBuilder b(collective);
      WaitEventOp::create(b, collective.getLoc(), fork,
                          /*collectiveStream=*/true);
      forkedAfter = after;
    }
    collective.setCollectiveStream(true);
    OpBuilder b(collective->getContext());
    b.setInsertionPointAfter(collective);
    Value completion = RecordEventOp::create(b, collective.getLoc(),
                                             /*collectiveStream=*/true);
    pending.push_back({collective, completion});
  }

  /// An event recorded on the invocation's stream right after step
  /// `position` (-1: at the plan's start, before its first step).
  Value recordAfterStep(int64_t position) {
    OpBuilder b(block.getParentOp()->getContext());
    if (position < 0)
      b.setInsertionPoint(steps.front());
    else
      b.setInsertionPointAfter(steps[position]);
    Location loc = position < 0 ? steps.front()->getLoc()
                                : steps[position]->getLoc();
    return RecordEventOp::create(b, loc, /*collectiveStream=*/false);
  }

  /// Before `step` (of the invocation's stream), a wait for the latest
  /// pending collective it conflicts with; that one and those before it
  /// are then complete.
  void joinBefore(Operation *step) {
    Accesses accesses = accessesOf(step, symbols);
    for (size_t i = pending.size(); i-- > 0;) {
      if (!conflicts(accesses, pending[i].collective))
        continue;
      waitOnMainStream(pending[i].completion, step);
      pending.erase(pending.begin(), pending.begin() + i + 1);
      return;
    }
  }

  void waitOnMainStream(Value completion, Operation *before) {
    OpBuilder b(before);
    WaitEventOp::create(b, before->getLoc(), completion,
                        /*collectiveStream=*/false);
  }
};

struct OverlapCollectivesPass
    : impl::OverlapCollectivesBase<OverlapCollectivesPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    Block &block = function.getBody().front();
    if (block.getOps<CollectiveOp>().empty())
      return;
    StreamPlanner(block).run();
  }
};

} // namespace
} // namespace stride::plan
