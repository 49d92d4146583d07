//===- GroupLaunches.cpp - Independent small kernels as one launch --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-group-launches (Passes.td). The plan is one block of steps over
// explicit buffers, and no buffer shares bytes with another yet (buffer
// reuse runs after): two steps depend on each other exactly when one
// writes a buffer the other reads or writes. A dispatch of a small kernel
// joins the earliest open group whose position it can be hoisted to
// without crossing such a step; each group of two or more then becomes
// one kernel of scheme `launch_group` in the executable (the members
// nested in it, unchanged) and one dispatch.
//
//===----------------------------------------------------------------------===//

#include "dialects/plan/Transforms/Passes.h"
#include "dialects/stride/IR/Graph.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace stride::plan {
#define GEN_PASS_DEF_GROUPLAUNCHES
#include "dialects/plan/Transforms/Passes.h.inc"
} // namespace stride::plan

using namespace mlir;

namespace stride::plan {
namespace {

/// How far back (in steps) a dispatch looks for a group to join: the
/// kernels worth grouping sit a few steps apart, and the pass stays linear
/// in the plan's length.
constexpr size_t kWindowSteps = 64;

/// The buffers a step reads and writes.
struct Access {
  llvm::SmallPtrSet<Value, 8> reads;
  llvm::SmallPtrSet<Value, 8> writes;
};

/// A dispatch's reads (its kernel's inputs) and writes (its results and
/// scratch); a step that only defines a buffer accesses none; std::nullopt
/// for every other step (library calls, collectives, copies, fills, events,
/// outputs), which the pass never moves a dispatch past.
std::optional<Access> accessOf(Operation *op, SymbolTableCollection &symbols) {
  if (isa<AllocOp, ConstantOp, InputOp, StateOp>(op))
    return Access{};
  auto dispatch = dyn_cast<DispatchOp>(op);
  KernelOp kernel = dispatch ? dispatch.lookupKernel(symbols) : KernelOp();
  if (!kernel)
    return std::nullopt;
  unsigned inputs = kernel.getBodyBlock().getNumArguments();
  Access access;
  for (auto [i, buffer] : llvm::enumerate(dispatch.getBuffers()))
    (i < inputs ? access.reads : access.writes).insert(buffer);
  return access;
}

/// Whether `a` and `b` may run in either order: neither writes a buffer
/// that the other reads or writes.
bool independent(const Access &a, const Access &b) {
  auto meets = [](const llvm::SmallPtrSet<Value, 8> &x,
                  const llvm::SmallPtrSet<Value, 8> &y) {
    return llvm::any_of(x, [&](Value v) { return y.contains(v); });
  };
  return !meets(a.writes, b.reads) && !meets(a.writes, b.writes) &&
         !meets(b.writes, a.reads);
}

/// Whether kernels of `scheme` declare at most a few hundred bytes of
/// static shared memory (a block's per-warp partial results): the
/// `__shared__` arrays of all of a group's members add up in its launch,
/// which may hold 48 KiB of them. The others (tiled transposes, scans,
/// index_adds, row_shared's rows) and the schemes that fill the GPU (skinny
/// products, split-KV attention) launch alone.
bool usesLittleSharedMemory(KernelScheme scheme) {
  switch (scheme) {
  case KernelScheme::GridStride:
  case KernelScheme::Vectorized:
  case KernelScheme::Scatter:
  case KernelScheme::ReductionInner:
  case KernelScheme::ReductionOuter:
  case KernelScheme::RowRegisters:
  case KernelScheme::RowReread:
    return true;
  default:
    return false;
  }
}

/// The one launch of a kernel that may share a launch, or null.
LaunchAttr groupableLaunch(DispatchOp dispatch, KernelOp kernel,
                           int64_t maxBlocks) {
  if (!kernel || dispatch.getWhenAttr() || dispatch.getUnlessAttr() ||
      kernel.getWhenAttr())
    return {};
  auto schedule = kernel->getAttrOfType<KernelScheduleAttr>(
      KernelScheduleAttr::kAttrName);
  if (!schedule || schedule.getLaunches().size() != 1 ||
      schedule.getScratch() || schedule.getClusterBlocks() != 1 ||
      schedule.getMinBlocks() != 0)
    return {};
  if (!usesLittleSharedMemory(schedule.getScheme()))
    return {};
  auto symbolic = [](Type type) {
    auto tensor = dyn_cast<StridedTensorType>(type);
    return tensor && tensor.isSymbolic();
  };
  if (llvm::any_of(kernel.getBodyBlock().getArgumentTypes(), symbolic) ||
      llvm::any_of(kernel.getResultTypes(), symbolic))
    return {};
  auto launch = cast<LaunchAttr>(schedule.getLaunches()[0]);
  if (launch.getElements() || launch.getGrid() > maxBlocks)
    return {};
  return launch;
}

/// A group being formed: its members' dispatches (the first is where the
/// group runs) and launches.
struct Group {
  SmallVector<DispatchOp> members;
  SmallVector<LaunchAttr> launches;
  int64_t blocks = 0;
  bool closed = false;

  DispatchOp anchor() const { return members.front(); }
  bool fits(LaunchAttr launch, int64_t maxBlocks, int64_t maxKernels) const {
    LaunchAttr first = launches.front();
    return !closed && int64_t(members.size()) < maxKernels &&
           blocks + launch.getGrid() <= maxBlocks &&
           launch.getBlock() == first.getBlock() &&
           launch.getBlockY() == first.getBlockY();
  }
};

/// Whether `dispatch` (accessing `access`) can run where `group` runs: no
/// step from the group's first member to the dispatch conflicts with it.
/// Closes the group when a step it cannot look into lies between.
bool canHoist(Group &group, DispatchOp dispatch, const Access &access,
              SymbolTableCollection &symbols) {
  for (Operation *op = group.anchor(); op != dispatch.getOperation();
       op = op->getNextNode()) {
    std::optional<Access> other = accessOf(op, symbols);
    if (!other) {
      group.closed = true;
      return false;
    }
    if (!independent(access, *other))
      return false;
  }
  return true;
}

/// The kernel of scheme `launch_group` that runs `group`'s members, in the
/// executable of the first: its body's arguments are the members' inputs
/// in member order, its results theirs.
KernelOp buildGroupKernel(const Group &group, SymbolTableCollection &symbols,
                          KernelNameTable &names) {
  SmallVector<KernelOp> members;
  for (DispatchOp dispatch : group.members)
    members.push_back(dispatch.lookupKernel(symbols));
  auto executable = members.front()->getParentOfType<ExecutableOp>();
  MLIRContext *context = executable.getContext();
  SmallVector<Type> inputs, results;
  for (KernelOp member : members) {
    llvm::append_range(inputs, member.getBodyBlock().getArgumentTypes());
    llvm::append_range(results, member.getResultTypes());
  }
  OpBuilder builder(context);
  builder.setInsertionPoint(members.front());
  auto groupKernel =
      KernelOp::create(builder, members.front().getLoc(), results,
                       names.insert("launch_group"), ValueRange());
  Block *body = builder.createBlock(&groupKernel.getBody());
  SmallVector<Value> yielded;
  for (KernelOp member : members) {
    SmallVector<Value> operands;
    for (Type type : member.getBodyBlock().getArgumentTypes())
      operands.push_back(body->addArgument(type, member.getLoc()));
    auto nested = KernelOp::create(builder, member.getLoc(),
                                   member.getResultTypes(),
                                   member.getSymNameAttr(), operands);
    nested->setDiscardableAttrs(member->getDiscardableAttrDictionary());
    IRMapping mapping;
    member.getBody().cloneInto(&nested.getBody(), mapping);
    builder.setInsertionPointAfter(nested);
    llvm::append_range(yielded, nested.getResults());
  }
  YieldOp::create(builder, groupKernel.getLoc(), yielded);

  int64_t blocks = 0, shared = 0;
  for (LaunchAttr launch : group.launches) {
    blocks += launch.getGrid();
    shared = std::max(shared, launch.getShared());
  }
  LaunchAttr first = group.launches.front();
  auto launch = LaunchAttr::get(context, blocks, first.getBlock(),
                                first.getBlockY(), shared, /*phase=*/-1,
                                SizeExprAttr(), /*per_block=*/1);
  auto schedule = KernelScheduleAttr::get(
      context, KernelScheme::LaunchGroup, /*index_bits=*/32,
      /*vector_width=*/1, /*threads=*/first.getBlock() * first.getBlockY(),
      /*slices=*/1, /*elements_per_thread=*/0, /*cluster_blocks=*/1,
      /*min_blocks=*/0, /*tile=*/0, /*transpose_dim=*/-1, ArrayAttr(),
      ArrayAttr::get(context, {launch}), DenseI64ArrayAttr(),
      /*deterministic=*/false, ColumnCombine::None, /*bucket=*/0,
      /*pages=*/0, /*hash_entries=*/0, IndexAnalysis::Own, DenseI64ArrayAttr(),
      /*column_warps=*/1);
  groupKernel->setAttr(KernelScheduleAttr::kAttrName, schedule);
  return groupKernel;
}

/// Replaces `group`'s dispatches, which stand together (each joined right
/// after the one before it, with the allocs of what it writes), by one of
/// `groupKernel` where the last stood.
void replaceDispatches(const Group &group, KernelOp groupKernel,
                       SymbolTableCollection &symbols) {
  SmallVector<Value> reads, writes;
  for (DispatchOp dispatch : group.members) {
    unsigned inputs =
        dispatch.lookupKernel(symbols).getBodyBlock().getNumArguments();
    for (auto [i, buffer] : llvm::enumerate(dispatch.getBuffers()))
      (i < inputs ? reads : writes).push_back(buffer);
  }
  llvm::append_range(reads, writes);
  auto executable = groupKernel->getParentOfType<ExecutableOp>();
  OpBuilder builder(group.members.back());
  builder.setInsertionPointAfter(group.members.back());
  DispatchOp::create(
      builder, group.anchor().getLoc(),
      SymbolRefAttr::get(executable.getSymNameAttr(),
                         {FlatSymbolRefAttr::get(groupKernel.getSymNameAttr())}),
      reads);
  for (DispatchOp dispatch : group.members)
    dispatch.erase();
}

struct GroupLaunchesPass
    : public impl::GroupLaunchesBase<GroupLaunchesPass> {
  using GroupLaunchesBase::GroupLaunchesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    SmallVector<Group> groups;
    for (auto entry : module.getOps<func::FuncOp>())
      collectGroups(entry, symbols, groups);
    KernelNameTable names;
    module.walk([&](ExecutableOp executable) {
      for (auto kernel : executable.getBodyBlock().getOps<KernelOp>())
        names.insert(kernel.getSymName());
    });
    llvm::SmallPtrSet<Operation *, 8> grouped;
    for (Group &group : groups) {
      if (group.members.size() < 2)
        continue;
      for (DispatchOp dispatch : group.members)
        grouped.insert(dispatch.lookupKernel(symbols));
      KernelOp groupKernel = buildGroupKernel(group, symbols, names);
      replaceDispatches(group, groupKernel, symbols);
    }
    eraseUndispatched(module, grouped);
  }

  /// Forms the groups of `entry`'s dispatches, in program order.
  void collectGroups(func::FuncOp entry, SymbolTableCollection &symbols,
                     SmallVector<Group> &groups) {
    size_t firstOpen = groups.size();
    size_t position = 0;
    llvm::DenseMap<Operation *, size_t> positions;
    // The steps in their original order: a dispatch that joins a group
    // moves up to it.
    SmallVector<Operation *> steps = llvm::to_vector(
        llvm::make_pointer_range(entry.getBody().front()));
    for (Operation *op : steps) {
      positions[op] = position++;
      auto dispatch = dyn_cast<DispatchOp>(op);
      if (!dispatch)
        continue;
      LaunchAttr launch = groupableLaunch(
          dispatch, dispatch.lookupKernel(symbols), maxBlocks);
      if (!launch)
        continue;
      Access access = *accessOf(dispatch, symbols);
      bool joined = false;
      for (size_t g = firstOpen; g < groups.size() && !joined; ++g) {
        Group &group = groups[g];
        if (position - positions[group.anchor()] > kWindowSteps)
          group.closed = true;
        if (!group.fits(launch, maxBlocks, maxKernels) ||
            group.anchor()->getParentRegion() != op->getParentRegion() ||
            !sameExecutable(group.anchor(), dispatch) ||
            !canHoist(group, dispatch, access, symbols))
          continue;
        moveAfter(dispatch, group.members.back());
        group.members.push_back(dispatch);
        group.launches.push_back(launch);
        group.blocks += launch.getGrid();
        joined = true;
      }
      if (!joined)
        groups.push_back(Group{{dispatch}, {launch}, launch.getGrid()});
    }
  }

  /// Moves `dispatch` to just after `last`, with the allocs of the
  /// buffers it writes that lie between the two, so that a group's members
  /// stay together and later dispatches see the plan as it will run.
  static void moveAfter(DispatchOp dispatch, DispatchOp last) {
    dispatch->moveAfter(last);
    for (Value buffer : dispatch.getBuffers())
      if (auto alloc = buffer.getDefiningOp<AllocOp>();
          alloc && dispatch->isBeforeInBlock(alloc))
        alloc->moveBefore(dispatch);
  }

  static bool sameExecutable(DispatchOp a, DispatchOp b) {
    return a.getKernel().getRootReference() ==
           b.getKernel().getRootReference();
  }

  /// Erases the grouped kernels that no dispatch runs any longer.
  static void eraseUndispatched(ModuleOp module,
                                const llvm::SmallPtrSet<Operation *, 8> &grouped) {
    SymbolTableCollection symbols;
    llvm::SmallPtrSet<Operation *, 8> dispatched;
    module.walk([&](DispatchOp dispatch) {
      dispatched.insert(dispatch.lookupKernel(symbols));
    });
    for (Operation *kernel : grouped)
      if (!dispatched.contains(kernel))
        kernel->erase();
  }
};

} // namespace
} // namespace stride::plan
