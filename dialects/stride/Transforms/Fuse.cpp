//===- Fuse.cpp - Group ops into stride.kernel regions --------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Greedy producer-into-consumer fusion. The ops of a function are visited
// from last to first; each functional op joins the group (future kernel) of
// its consumers when all of them are in one group and the kernel contract
// (stride/Transforms/KernelContract.h) allows it, becomes an extra output of
// one of its consumer groups when it must be materialized anyway and lives
// in that group's iteration space, and otherwise roots a group of its own.
// Views never join a group: each kernel clones the views it reads, so a view
// of a kernel input becomes part of that kernel's load expression. `full` and
// `iota` are cloned the same way. A cost model bounds each kernel (ops, an
// estimate of registers per thread), so kernels, and the time to compile
// them, stay bounded in a long graph. Before grouping, a bias add and an
// activation after a matrix product are folded into its library call
// (MatmulEpilogues.h). The rules and their reasons are in python-free-docs/fusion.md.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Analysis/KernelContract.h"
#include "dialects/stride/Analysis/RowSplit.h"
#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/Transforms/MatmulEpilogues.h"
#include "dialects/stride/Transforms/Passes.h"
#include "stride/Support/Layout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <memory>
#include <optional>

namespace stride {
#define GEN_PASS_DEF_FUSE
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

namespace {

/// How many times the groups are formed with row outputs before they are
/// formed without (Fuser::run): each time refuses the ones that did not
/// hold, so one more formation almost always settles it.
constexpr int kMaxRowOutputAttempts = 3;

enum class GroupKind { Pointwise, Reduction, IndexScatter, Scan };

/// A future kernel: its functional ops, its root and its outputs.
struct Group {
  GroupKind kind = GroupKind::Pointwise;
  /// Form (d): the reduction's result is broadcast into an epilogue over
  /// the reduction's input shape.
  bool broadcast = false;
  /// The reduction, index scatter or scan; for a pointwise group, `output`.
  Operation *root = nullptr;
  /// The op that started the group: the last one, whose result is read
  /// outside the group.
  Operation *output = nullptr;
  /// Further ops whose results are read outside the group (materialized
  /// values that share the output's iteration space).
  SmallVector<Operation *> extraOutputs;
  /// Form (d): values computed once per row that are read outside the
  /// group too (LayerNorm's mean and rstd, which a training graph returns
  /// for the backward), stored once per row. Joined while the group may
  /// still become form (d); rowOutputsHold checks them once it is formed.
  SmallVector<Operation *> rowOutputs;
  llvm::SetVector<Operation *> members;
};

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<StridedTensorType>(value.getType()).getShape();
}

bool isGroupable(Operation *op) { return isFunctional(op); }

/// A cast that only converts: its result has its input's layout and
/// elements at least as wide. Each kernel that reads it can read its input
/// instead and convert in registers, moving no more bytes than a kernel
/// that writes the cast once and kernels that read it back. A cast that
/// also changes the layout is a transpose as well, which its readers would
/// then do on every read (python-free-docs/fusion.md, rule 8).
bool isRecomputableCast(Operation *op) {
  auto castOp = dyn_cast<CastOp>(op);
  if (!castOp)
    return false;
  auto input = cast<StridedTensorType>(castOp.getInput().getType());
  auto result = cast<StridedTensorType>(castOp.getResult().getType());
  return !input.isSymbolic() && !result.isSymbolic() &&
         sameAddressing(input.getLayout(), result.getLayout()) &&
         input.getElementType().getIntOrFloatBitWidth() <=
             result.getElementType().getIntOrFloatBitWidth();
}

/// The elements of one row of a reduction: the product of its reduced dims;
/// nullopt where one is symbolic (the backend re-reads such a row, holding
/// none of it in registers: python-free-docs/symbolic-sizes.md).
std::optional<int64_t> rowLength(ReductionOpInterface reduction) {
  ArrayRef<int64_t> shape = shapeOf(reduction.getInput());
  int64_t length = 1;
  for (int64_t d : reduction.getReducedDims()) {
    if (ShapedType::isDynamic(shape[d]))
      return std::nullopt;
    length *= shape[d];
  }
  return length;
}

class Fuser {
public:
  Fuser(func::FuncOp func, const FuseOptions &options)
      : func(func), options(options) {}

  LogicalResult run();

private:
  void eraseDeadOps(Block &block);
  void formGroups(Block &block);
  bool tryFuse(Operation *op, Group *group);
  bool tryFuseAsOutput(Operation *op, Group *group);
  /// A pointwise value of a broadcast-reduction group's iteration shape
  /// that the group reads at its own elements or as a reduction's input
  /// (the residual sum an RMSNorm normalizes, also read by the next
  /// residual add) joins the group as an extra output (option
  /// `row-input-outputs`).
  bool tryFuseAsRowInput(Operation *op, Group *group);
  /// Joins `op`, read outside `group` too, as a value `group` computes once
  /// per row and also stores (a reduction of its rows, or a per-row op).
  bool tryFuseAsRowOutput(Operation *op, Group *group);
  /// Whether every row output of `group` is one: the group is form (d),
  /// and each is a reduction of its rows or a per-row op that depends on
  /// one.
  bool rowOutputsHold(const Group &group);
  /// Refuses the row outputs of the groups where they do not hold
  /// (noRowOutput); true when there were any, and the groups must be
  /// formed again.
  bool refuseBrokenRowOutputs();
  /// The group of per-row ops that `group` is, read by no other kernel
  /// (returned: batch norm's weight and bias gradients), whose operands
  /// come from one broadcast-reduction group, or null.
  Group *rowGroupOfReturned(Group &group);
  /// Joins each such group to the broadcast-reduction group it reads, its
  /// output a row output there.
  void joinReturnedRowOps();
  bool tryPromote(ReductionOpInterface reduction, Group *group, bool asOutput);
  /// Joins a reduction of the same rows to a broadcast-reduction group whose
  /// epilogue reads it broadcast back (softmax's `max` joins `sum`).
  bool tryJoinRows(ReductionOpInterface reduction, Group *group);
  bool createsCycle(Operation *op, Group *group);
  /// The groups a walk over the graph of groups reaches from the ops
  /// `work`: downstream to the readers of each op's result, or upstream to
  /// the ops it reads. Reaching one member of a group continues from all
  /// of its members, since a kernel writes its results only after it has
  /// read all of its inputs. Stops once it reaches `target`, if set.
  llvm::SmallPtrSet<Group *, 16> reachedGroups(SmallVector<Operation *> work,
                                               bool upstream,
                                               Group *target = nullptr);
  /// The groups that read a result of `group`, or whose results it reads,
  /// directly or through other groups and ops.
  llvm::SmallPtrSet<Group *, 16> linkedGroups(Group *group);
  /// Joins sibling index-scatter groups (areSiblingScatters) that neither
  /// read the other's results into one group that yields each scatter
  /// (option `sibling-scatters`): a decoder's key and value cache writes.
  void mergeSiblingScatters();
  /// Whether `group` and `other`, both index-scatter groups, may be one
  /// kernel: their roots are siblings and the kernel stays within bounds.
  bool areSiblingGroups(Group &group, Group &other);
  /// Would `group` with `op` added stay within the cost model's bounds?
  /// `rowReduction`: the reduction whose rows the kernel would hold (form
  /// (d)), or null.
  bool withinBounds(Operation *op, Group *group, Operation *rowReduction);
  /// Registers per thread that a kernel of `ops` needs, estimated as the
  /// most values live at once, times the elements a thread holds.
  int64_t estimateRegisters(ArrayRef<Operation *> ops, Operation *rowReduction);
  Group *newGroup(Operation *op);
  void add(Operation *op, Group *group) {
    group->members.insert(op);
    groupOf[op] = group;
  }
  FailureOr<KernelOp> buildKernel(Group &group, Operation *insertBefore,
                                  KernelNameTable &names,
                                  DenseMap<Value, Value> &replacements);

  func::FuncOp func;
  const FuseOptions &options;
  std::vector<std::unique_ptr<Group>> groups;
  DenseMap<Operation *, Group *> groupOf;
  /// Ops that joined a group as a row output that did not hold: formed
  /// again, they do not try (refuseBrokenRowOutputs).
  llvm::SmallPtrSet<Operation *, 8> noRowOutput;
  /// After kMaxRowOutputAttempts formations, no op tries.
  bool rowOutputsOff = false;
  DenseMap<Operation *, unsigned> position;
  /// Casts that no group holds: each kernel that reads one clones it, as
  /// it clones views and leaves (isRecomputableCast).
  llvm::SmallPtrSet<Operation *, 16> recomputed;
};

/// Puts the ops of `block` (but its terminator) in an order where every
/// value is defined before it is read, keeping the order they have as far
/// as that allows: an op that reads a value defined after it moves to just
/// after the op that makes the last of its operands ready, not to the end
/// (mlir::sortTopologically schedules such an op in a later sweep, after
/// every op the first sweep could schedule). Fails on a cycle.
LogicalResult sortStably(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  llvm::DenseSet<Operation *> inBlock(ops.begin(), ops.end());
  llvm::DenseSet<Operation *> placed;
  // The ops of the block an op reads, itself or in its regions, each once.
  auto producers = [&](Operation *op) {
    llvm::SetVector<Operation *> found;
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && def != op && inBlock.contains(def))
          found.insert(def);
    });
    return found.takeVector();
  };
  DenseMap<Operation *, SmallVector<Operation *>> waiting; // producer -> ops
  DenseMap<Operation *, unsigned> missing;
  Operation *terminator = block.getTerminator();
  // Places `op`, then every op it makes ready, in the order they become
  // ready (a worklist, not recursion: a chain may be long).
  auto place = [&](Operation *op) {
    SmallVector<Operation *> ready = {op};
    for (size_t i = 0; i < ready.size(); ++i) {
      ready[i]->moveBefore(terminator);
      placed.insert(ready[i]);
      for (Operation *reader : waiting.lookup(ready[i]))
        if (--missing[reader] == 0)
          ready.push_back(reader);
    }
  };
  for (Operation *op : ops) {
    unsigned unplaced = 0;
    for (Operation *producer : producers(op))
      if (!placed.contains(producer)) {
        waiting[producer].push_back(op);
        ++unplaced;
      }
    if (unplaced == 0)
      place(op);
    else
      missing[op] = unplaced;
  }
  return success(placed.size() == ops.size());
}

void Fuser::eraseDeadOps(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if ((isa<ViewOpInterface>(op) || isGroupable(op)) && op->use_empty())
      op->erase();
}

Group *Fuser::newGroup(Operation *op) {
  groups.push_back(std::make_unique<Group>());
  Group *group = groups.back().get();
  group->kind = isa<ReductionOpInterface>(op)      ? GroupKind::Reduction
                : isa<IndexScatterOpInterface>(op) ? GroupKind::IndexScatter
                : isScanOp(op)                     ? GroupKind::Scan
                                                   : GroupKind::Pointwise;
  group->root = group->output = op;
  add(op, group);
  return group;
}

bool Fuser::withinBounds(Operation *op, Group *group,
                         Operation *rowReduction) {
  if (options.maxKernelOps != 0 &&
      group->members.size() + 1 > options.maxKernelOps)
    return false;
  if (options.maxKernelRegisters == 0)
    return true;
  SmallVector<Operation *> ops(group->members.begin(), group->members.end());
  ops.push_back(op);
  return estimateRegisters(ops, rowReduction) <= options.maxKernelRegisters;
}

int64_t Fuser::estimateRegisters(ArrayRef<Operation *> ops,
                                 Operation *rowReduction) {
  SmallVector<Operation *> ordered(ops.begin(), ops.end());
  llvm::sort(ordered, [&](Operation *a, Operation *b) {
    return position[a] < position[b];
  });
  DenseMap<Operation *, unsigned> step;
  for (auto [i, op] : llvm::enumerate(ordered))
    step[op] = i;
  // In a row kernel, a reduction of the rows, one read broadcast back over
  // them from another kernel, and a per-row op are one value per row.
  llvm::SmallPtrSet<Operation *, 8> perRow;
  auto isPerRow = [&](Value value, Operation *def) {
    if (!rowReduction || !def)
      return false;
    if (step.contains(def) &&
        isPerRowOp(def, cast<ReductionOpInterface>(rowReduction)))
      return true;
    return reducesSameRows(def, rowReduction) &&
           (step.contains(def) ||
            isBroadcastBackOf(value, cast<ReductionOpInterface>(def)));
  };
  // Each value a thread holds per element lives from the step that computes
  // (or, for a kernel input, first loads) it to the last step that reads it.
  llvm::MapVector<Value, std::pair<unsigned, unsigned>> live;
  for (auto [i, op] : llvm::enumerate(ordered)) {
    if (isPerRow(op->getResult(0), op))
      perRow.insert(op);
    else
      live.try_emplace(op->getResult(0), i, i);
    for (Value operand : op->getOperands()) {
      Value base = viewChainBase(operand);
      Operation *def = base.getDefiningOp();
      if (isPerRow(operand, def)) {
        perRow.insert(def);
        continue;
      }
      auto [it, inserted] = live.try_emplace(base, i, i);
      it->second.second = std::max<unsigned>(it->second.second, i);
    }
  }
  SmallVector<int64_t> liveAt(ordered.size() + 1, 0);
  for (auto &[value, range] : live) {
    ++liveAt[range.first];
    --liveAt[range.second + 1];
  }
  int64_t most = 0, running = 0;
  for (int64_t delta : liveAt)
    most = std::max(most, running += delta);
  // A thread holds its share of a row in registers (RowSplit.h), in groups
  // of 4 where the row's length allows (the schedule also asks the layout
  // for it: the estimate assumes the larger share), else one element.
  int64_t perThread = 1;
  std::optional<int64_t> length =
      rowReduction ? rowLength(cast<ReductionOpInterface>(rowReduction))
                   : std::nullopt;
  if (length) {
    RowSplit split = groupRowInFours(splitRow(*length, ops.size()), *length);
    if (split.inRegisters)
      perThread = std::max<int64_t>(split.elementsPerThread, 1);
  }
  return most * perThread + static_cast<int64_t>(perRow.size());
}

bool Fuser::tryFuse(Operation *op, Group *group) {
  if (isPointwiseLikeOp(op)) {
    // A prologue (of a reduction, a scan or an index scatter's operands) or
    // part of a pointwise expression: evaluated wherever its consumers read
    // it.
    if (!withinBounds(op, group, group->broadcast ? group->root : nullptr))
      return false;
    add(op, group);
    return true;
  }
  auto reduction = dyn_cast<ReductionOpInterface>(op);
  if (reduction && group->kind == GroupKind::Pointwise)
    return tryPromote(reduction, group, /*asOutput=*/false);
  if (reduction && group->broadcast)
    return tryJoinRows(reduction, group);
  return false;
}

bool Fuser::tryJoinRows(ReductionOpInterface reduction, Group *group) {
  if (!reducesSameRows(reduction, group->root) ||
      !withinBounds(reduction, group, group->root))
    return false;
  auto inGroup = [&](Operation *op) {
    return op == reduction || group->members.contains(op);
  };
  if (failed(checkEpilogue(reduction, inGroup, /*broadcast=*/true)))
    return false;
  add(reduction, group);
  return true;
}

bool Fuser::tryPromote(ReductionOpInterface reduction, Group *group,
                       bool asOutput) {
  auto inGroup = [&](Operation *op) {
    return op == reduction || group->members.contains(op);
  };
  ArrayRef<int64_t> outputShape = shapeOf(group->output->getResult(0));
  if (outputShape == shapeOf(reduction->getResult(0)) &&
      withinBounds(reduction, group, /*rowReduction=*/nullptr) &&
      succeeded(checkEpilogue(reduction, inGroup, /*broadcast=*/false))) {
    if (asOutput && (!isInOutputFrame(reduction, inGroup) ||
                     createsCycle(reduction, group)))
      return false;
    group->kind = GroupKind::Reduction;
    group->root = reduction;
    add(reduction, group);
    if (asOutput)
      group->extraOutputs.push_back(reduction);
    return true;
  }
  if (!asOutput && options.broadcastEpilogues && group->extraOutputs.empty() &&
      outputShape == shapeOf(reduction.getInput()) &&
      withinBounds(reduction, group, /*rowReduction=*/reduction) &&
      succeeded(checkEpilogue(reduction, inGroup, /*broadcast=*/true))) {
    group->kind = GroupKind::Reduction;
    group->broadcast = true;
    group->root = reduction;
    add(reduction, group);
    return true;
  }
  return false;
}

bool Fuser::tryFuseAsRowOutput(Operation *op, Group *group) {
  // Strictly fewer elements than the group's output: a per-row value is
  // never mistaken for the iteration space (KernelClassifier::checkYields).
  auto elements = [](Operation *o) {
    return cast<StridedTensorType>(o->getResult(0).getType()).getNumElements();
  };
  if (rowOutputsOff || !options.broadcastEpilogues ||
      noRowOutput.contains(op) ||
      (group->kind != GroupKind::Pointwise && !group->broadcast) ||
      elements(op) >= elements(group->output) || createsCycle(op, group))
    return false;
  bool joined = false;
  if (auto reduction = dyn_cast<ReductionOpInterface>(op))
    joined = group->broadcast
                 ? tryJoinRows(reduction, group)
                 : tryPromote(reduction, group, /*asOutput=*/false);
  else
    joined = isPointwiseLikeOp(op) && tryFuse(op, group);
  if (joined)
    group->rowOutputs.push_back(op);
  return joined;
}

/// True when `op` reads, directly or through other members of `group`, one
/// of the group's reductions.
static bool dependsOnReduction(Operation *op,
                               const llvm::SetVector<Operation *> &members) {
  SmallVector<Operation *> work{op};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!work.empty()) {
    Operation *next = work.pop_back_val();
    for (Value operand : next->getOperands()) {
      Operation *def = viewChainBase(operand).getDefiningOp();
      if (!def || !members.contains(def) || !seen.insert(def).second)
        continue;
      if (isa<ReductionOpInterface>(def))
        return true;
      work.push_back(def);
    }
  }
  return false;
}

bool Fuser::rowOutputsHold(const Group &group) {
  if (group.rowOutputs.empty())
    return true;
  if (!group.broadcast)
    return false;
  auto rows = cast<ReductionOpInterface>(group.root);
  return llvm::all_of(group.rowOutputs, [&](Operation *op) {
    return reducesSameRows(op, rows) ||
           (isPerRowOp(op, rows) && dependsOnReduction(op, group.members));
  });
}

bool Fuser::refuseBrokenRowOutputs() {
  bool broken = false;
  for (auto &group : groups)
    if (!rowOutputsHold(*group)) {
      noRowOutput.insert(group->rowOutputs.begin(), group->rowOutputs.end());
      broken = true;
    }
  return broken;
}

bool Fuser::tryFuseAsOutput(Operation *op, Group *group) {
  if (group->kind == GroupKind::IndexScatter ||
      group->kind == GroupKind::Scan)
    return false;
  if (group->broadcast)
    return tryFuseAsRowInput(op, group);
  if (auto reduction = dyn_cast<ReductionOpInterface>(op))
    return group->kind == GroupKind::Pointwise &&
           tryPromote(reduction, group, /*asOutput=*/true);
  if (!isPointwiseLikeOp(op) ||
      shapeOf(op->getResult(0)) != shapeOf(group->output->getResult(0)) ||
      !withinBounds(op, group, /*rowReduction=*/nullptr))
    return false;
  auto inGroup = [&](Operation *other) {
    return other == op || group->members.contains(other);
  };
  if (!isInOutputFrame(op, inGroup) || createsCycle(op, group))
    return false;
  add(op, group);
  group->extraOutputs.push_back(op);
  return true;
}

bool Fuser::tryFuseAsRowInput(Operation *op, Group *group) {
  auto inGroup = [&](Operation *other) {
    return other == op || group->members.contains(other);
  };
  // A value computed from the row's reductions is the kernel's epilogue,
  // which form (d) yields once.
  if (!options.rowInputOutputs || !isPointwiseLikeOp(op) ||
      shapeOf(op->getResult(0)) != shapeOf(group->output->getResult(0)) ||
      dependsOnReduction(op, group->members) ||
      !withinBounds(op, group, group->root) || !isInRowFrame(op, inGroup) ||
      createsCycle(op, group))
    return false;
  add(op, group);
  group->extraOutputs.push_back(op);
  return true;
}

/// Would making `op` an output of `group` let the group (through op's other
/// consumers) feed itself?
bool Fuser::createsCycle(Operation *op, Group *group) {
  SmallVector<Operation *> work;
  forEachSink(op->getResult(0), [&](OpOperand &sink) {
    if (groupOf.lookup(sink.getOwner()) != group)
      work.push_back(sink.getOwner());
  });
  return reachedGroups(std::move(work), /*upstream=*/false, group)
      .contains(group);
}

llvm::SmallPtrSet<Group *, 16>
Fuser::reachedGroups(SmallVector<Operation *> work, bool upstream,
                     Group *target) {
  auto pushNext = [&](Operation *from) {
    if (upstream) {
      for (Value operand : from->getOperands())
        if (Operation *def = viewChainBase(operand).getDefiningOp())
          work.push_back(def);
      return;
    }
    for (Value result : from->getResults())
      forEachSink(result, [&](OpOperand &sink) {
        work.push_back(sink.getOwner());
      });
  };
  llvm::SmallPtrSet<Operation *, 32> seenOps;
  llvm::SmallPtrSet<Group *, 16> seenGroups;
  while (!work.empty() && !(target && seenGroups.contains(target))) {
    Operation *next = work.pop_back_val();
    if (Group *other = groupOf.lookup(next)) {
      if (seenGroups.insert(other).second)
        for (Operation *member : other->members)
          pushNext(member);
    } else if (seenOps.insert(next).second) {
      pushNext(next);
    }
  }
  return seenGroups;
}

llvm::SmallPtrSet<Group *, 16> Fuser::linkedGroups(Group *group) {
  llvm::SmallPtrSet<Group *, 16> linked;
  for (bool upstream : {false, true}) {
    SmallVector<Operation *> work;
    for (Operation *member : group->members)
      work.push_back(member);
    // The walk starts at the group itself; it is linked to itself only
    // through a cycle, which fusion never forms.
    llvm::SmallPtrSet<Group *, 16> reached =
        reachedGroups(std::move(work), upstream);
    linked.insert(reached.begin(), reached.end());
  }
  linked.erase(group);
  return linked;
}

bool Fuser::areSiblingGroups(Group &group, Group &other) {
  if (!areSiblingScatters(cast<IndexScatterOpInterface>(group.root),
                          cast<IndexScatterOpInterface>(other.root)))
    return false;
  SmallVector<Operation *> ops(group.members.begin(), group.members.end());
  ops.append(other.members.begin(), other.members.end());
  return (options.maxKernelOps == 0 || ops.size() <= options.maxKernelOps) &&
         (options.maxKernelRegisters == 0 ||
          estimateRegisters(ops, /*rowReduction=*/nullptr) <=
              options.maxKernelRegisters);
}

void Fuser::mergeSiblingScatters() {
  if (!options.siblingScatters)
    return;
  auto isScatterGroup = [](const std::unique_ptr<Group> &group) {
    return group->kind == GroupKind::IndexScatter && !group->members.empty();
  };
  for (auto &group : groups) {
    if (!isScatterGroup(group))
      continue;
    // The groups linked to this one, computed again after each join.
    std::optional<llvm::SmallPtrSet<Group *, 16>> linked;
    for (auto &other : groups) {
      if (other == group || !isScatterGroup(other) ||
          !areSiblingGroups(*group, *other))
        continue;
      if (!linked)
        linked = linkedGroups(group.get());
      if (linked->contains(other.get()))
        continue;
      for (Operation *member : other->members)
        add(member, group.get());
      group->extraOutputs.push_back(other->output);
      other->members.clear();
      linked.reset();
    }
  }
  llvm::erase_if(groups, [](const std::unique_ptr<Group> &group) {
    return group->members.empty();
  });
}

Group *Fuser::rowGroupOfReturned(Group &group) {
  if (group.kind != GroupKind::Pointwise || !group.extraOutputs.empty() ||
      !group.rowOutputs.empty())
    return nullptr;
  bool readByKernel = false;
  forEachSink(group.output->getResult(0), [&](OpOperand &sink) {
    readByKernel |= groupOf.lookup(sink.getOwner()) != nullptr;
  });
  if (readByKernel)
    return nullptr;
  // The ops read only graph inputs (converted or not), leaves and one
  // broadcast-reduction group's values directly (a per-row op reads no
  // view), so joining them adds no input that could close a cycle.
  Group *rows = nullptr;
  for (Operation *member : group.members)
    for (Value operand : member->getOperands()) {
      Value base = viewChainBase(operand);
      Operation *def = base.getDefiningOp();
      while (def && recomputed.contains(def)) {
        base = viewChainBase(def->getOperand(0));
        def = base.getDefiningOp();
      }
      if (!def || isReplicableLeafOp(def) || groupOf.lookup(def) == &group)
        continue;
      Group *other = groupOf.lookup(def);
      if (!other || !other->broadcast || base != operand ||
          (rows && rows != other))
        return nullptr;
      rows = other;
    }
  if (!rows)
    return nullptr;
  auto reduction = cast<ReductionOpInterface>(rows->root);
  bool perRow = llvm::all_of(group.members, [&](Operation *member) {
    return isPerRowOp(member, reduction);
  });
  return perRow ? rows : nullptr;
}

void Fuser::joinReturnedRowOps() {
  if (rowOutputsOff || !options.broadcastEpilogues)
    return;
  for (auto &group : groups) {
    Group *rows = rowGroupOfReturned(*group);
    size_t joined = rows ? rows->members.size() + group->members.size() : 0;
    if (!rows || (options.maxKernelOps != 0 && joined > options.maxKernelOps))
      continue;
    for (Operation *member : group->members)
      add(member, rows);
    rows->rowOutputs.push_back(group->output);
    group->members.clear();
  }
  llvm::erase_if(groups, [](const std::unique_ptr<Group> &group) {
    return group->members.empty();
  });
  // A row output that only the joined ops read is no output any more.
  for (auto &group : groups)
    llvm::erase_if(group->rowOutputs, [&](Operation *op) {
      bool readOutside = false;
      forEachSink(op->getResult(0), [&](OpOperand &sink) {
        readOutside |= groupOf.lookup(sink.getOwner()) != group.get();
      });
      return !readOutside;
    });
}

void Fuser::formGroups(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator()) {
    position[&op] = ops.size();
    ops.push_back(&op);
  }
  for (Operation *op : llvm::reverse(ops)) {
    if (!isGroupable(op))
      continue;
    SmallVector<OpOperand *> sinks;
    forEachSink(op->getResult(0), [&](OpOperand &sink) { sinks.push_back(&sink); });
    llvm::SetVector<Group *> sinkGroups;
    bool external = false;
    for (OpOperand *sink : sinks) {
      if (Group *group = groupOf.lookup(sink->getOwner()))
        sinkGroups.insert(group);
      else
        external = true;
    }
    if (isReplicableLeafOp(op)) {
      // Cloned into every kernel that reads it; materialized only when
      // something other than a kernel reads it.
      if (external)
        newGroup(op);
      continue;
    }
    if (options.recomputeCasts && !external && sinkGroups.size() > 1 &&
        isRecomputableCast(op)) {
      // Read by several kernels: each converts its input itself.
      recomputed.insert(op);
      continue;
    }
    if (!external && sinkGroups.size() == 1 && tryFuse(op, sinkGroups[0]))
      continue;
    SmallVector<Group *> candidates(sinkGroups.begin(), sinkGroups.end());
    llvm::stable_sort(candidates, [&](Group *a, Group *b) {
      return position[a->output] > position[b->output];
    });
    if (llvm::none_of(candidates,
                      [&](Group *group) {
                        return tryFuseAsRowOutput(op, group);
                      }) &&
        llvm::none_of(candidates,
                      [&](Group *group) { return tryFuseAsOutput(op, group); }))
      newGroup(op);
  }
}

FailureOr<KernelOp> Fuser::buildKernel(Group &group, Operation *insertBefore,
                                       KernelNameTable &names,
                                       DenseMap<Value, Value> &replacements) {
  SmallVector<Operation *> members(group.members.begin(), group.members.end());
  llvm::sort(members, [&](Operation *a, Operation *b) {
    return position[a] < position[b];
  });
  SmallVector<Operation *> outputs{group.output};
  outputs.append(group.extraOutputs.begin(), group.extraOutputs.end());
  outputs.append(group.rowOutputs.begin(), group.rowOutputs.end());
  llvm::sort(outputs, [&](Operation *a, Operation *b) {
    return position[a] < position[b];
  });
  for (Operation *member : members) {
    if (llvm::is_contained(outputs, member))
      continue;
    bool readOutside = false;
    forEachSink(member->getResult(0), [&](OpOperand &sink) {
      readOutside |= groupOf.lookup(sink.getOwner()) != &group;
    });
    if (readOutside)
      return member->emitError("stride-fuse: internal error: a fused value "
                               "is read outside its kernel");
  }

  auto body = std::make_unique<Block>();
  OpBuilder builder(func.getContext());
  builder.setInsertionPointToEnd(body.get());
  IRMapping mapping;
  SmallVector<Value> inputs;
  SmallVector<Operation *> named(members.begin(), members.end());
  // A kernel reads each value outside the group once, as an input; views
  // and leaves are cloned in front of their first reader.
  std::function<Value(Value)> materialize = [&](Value value) -> Value {
    if (Value mapped = mapping.lookupOrNull(value))
      return mapped;
    Operation *def = value.getDefiningOp();
    if (def && groupOf.lookup(def) != &group) {
      if (auto view = dyn_cast<ViewOpInterface>(def)) {
        materialize(view.getSource());
        return builder.clone(*def, mapping)->getResult(0);
      }
      if (isReplicableLeafOp(def) || recomputed.contains(def)) {
        for (Value operand : def->getOperands())
          materialize(operand);
        named.push_back(def);
        return builder.clone(*def, mapping)->getResult(0);
      }
    }
    BlockArgument arg = body->addArgument(value.getType(), value.getLoc());
    inputs.push_back(value);
    mapping.map(value, arg);
    return arg;
  };
  SmallVector<Location> locs;
  for (Operation *member : members) {
    for (Value operand : member->getOperands())
      materialize(operand);
    builder.clone(*member, mapping);
    locs.push_back(member->getLoc());
  }
  SmallVector<Value> yielded;
  SmallVector<Type> resultTypes;
  for (Operation *output : outputs) {
    yielded.push_back(mapping.lookup(output->getResult(0)));
    resultTypes.push_back(output->getResult(0).getType());
  }
  YieldOp::create(builder, group.output->getLoc(), yielded);

  // Named after its ops in program order: "slice_scatter_sum".
  llvm::sort(named, [&](Operation *a, Operation *b) {
    return position[a] < position[b];
  });
  std::string name = names.insert(kernelBaseName(named));

  OpBuilder outer(insertBefore);
  auto kernel = KernelOp::create(outer, FusedLoc::get(func.getContext(), locs),
                                 resultTypes, name, inputs);
  kernel.getBody().push_back(body.release());
  for (auto [output, result] : llvm::zip(outputs, kernel.getResults()))
    replacements[output->getResult(0)] = result;
  return kernel;
}

LogicalResult Fuser::run() {
  if (func.getBody().empty())
    return success();
  Block &block = func.getBody().front();
  foldMatmulEpilogues(func);
  eraseDeadOps(block);
  formGroups(block);
  // A row output joins a group before the group is known to become form
  // (d); where it did not, the groups are formed again without it (at
  // most kMaxRowOutputAttempts times, then without any).
  for (int attempt = 1; refuseBrokenRowOutputs(); ++attempt) {
    rowOutputsOff = attempt >= kMaxRowOutputAttempts;
    groups.clear();
    groupOf.clear();
    recomputed.clear();
    formGroups(block);
  }
  joinReturnedRowOps();
  mergeSiblingScatters();
  if (groups.empty())
    return success();

  KernelNameTable names(func);

  // Kernels in the order of their outputs, each built where its output op
  // was, and put in dependence order below (which moves a kernel only as
  // far as its operands need): ops keep the order the graph gave them, so
  // a value is computed near its readers and the plan does not hold it
  // longer. A kernel built at the end of the block would let every op that
  // reads no kernel move ahead of all kernels: an attention backward's
  // recomputed scores products of every layer at the start of the
  // backward, each holding its scores until its layer.
  SmallVector<Group *> ordered;
  for (auto &group : groups)
    ordered.push_back(group.get());
  llvm::sort(ordered, [&](Group *a, Group *b) {
    return position[a->output] < position[b->output];
  });
  DenseMap<Value, Value> replacements;
  SmallVector<KernelOp> kernels;
  for (Group *group : ordered) {
    FailureOr<KernelOp> kernel =
        buildKernel(*group, group->output, names, replacements);
    if (failed(kernel))
      return failure();
    kernels.push_back(*kernel);
  }
  for (auto [original, result] : replacements)
    original.replaceAllUsesWith(result);

  // The fused originals, the views and leaves the kernels cloned.
  SmallVector<Operation *> originals;
  for (Operation &op : block.without_terminator())
    if (position.contains(&op))
      originals.push_back(&op);
  for (Operation *op : llvm::reverse(originals))
    if (op->use_empty() && (isGroupable(op) || isa<ViewOpInterface>(op)))
      op->erase();
  if (failed(sortStably(block)))
    return func.emitError("stride-fuse: internal error: the kernels form a "
                          "cycle");

  for (KernelOp kernel : kernels)
    if (failed(verifyKernel(kernel)))
      return kernel.emitError("stride-fuse: internal error: the pass formed "
                              "kernel '")
             << kernel.getSymName() << "', which breaks the kernel contract";
  return success();
}

struct FusePass : public stride::impl::FuseBase<FusePass> {
  using Base::Base;

  void runOnOperation() override {
    FuseOptions options;
    options.broadcastEpilogues = broadcastEpilogues;
    options.recomputeCasts = recomputeCasts;
    options.rowInputOutputs = rowInputOutputs;
    options.siblingScatters = siblingScatters;
    options.maxKernelOps = maxKernelOps;
    options.maxKernelRegisters = maxKernelRegisters;
    Fuser fuser(getOperation(), options);
    if (failed(fuser.run()))
      signalPassFailure();
  }
};

} // namespace
