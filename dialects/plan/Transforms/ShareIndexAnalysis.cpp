//===- ShareIndexAnalysis.cpp - One index analysis per index tensor -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-share-index-analysis (Passes.td): default-mode segmented index_adds
// over one index buffer and one row count share the scratch of a single
// index analysis (counts, buckets, the long rows' pages); only the first
// ranks the index.
//
//===----------------------------------------------------------------------===//

#include "dialects/plan/Transforms/Passes.h"

#include "StateWrites.h"
#include "dialects/stride/IR/StrideAttrs.h"

#include "llvm/ADT/MapVector.h"

namespace stride::plan {
#define GEN_PASS_DEF_SHAREINDEXANALYSIS
#include "dialects/plan/Transforms/Passes.h.inc"
} // namespace stride::plan

using namespace mlir;

namespace stride::plan {
namespace {

/// A dispatch of a default-mode segmented index_add whose index is a
/// kernel input, read whole: the buffer and type of that input and the
/// bytes of its counts and buckets say which index analysis it needs.
struct IndexedDispatch {
  DispatchOp dispatch;
  KernelOp kernel;
  KernelScheduleAttr schedule;
};

using AnalysisKey = std::tuple<Value, Type, int64_t, int64_t>;

/// The key of `dispatch`'s index analysis, or nullopt when it has none to
/// share.
std::optional<AnalysisKey> analysisKey(IndexedDispatch d) {
  KernelScheduleAttr schedule = d.schedule;
  if (!schedule || schedule.getIndexAnalysisBuffers() < 2 ||
      !llvm::is_contained(
          llvm::map_range(schedule.getLaunches().getAsRange<LaunchAttr>(),
                          [](LaunchAttr l) { return l.getPhase(); }),
          1))
    return std::nullopt;
  auto indexAdds = d.kernel.getBodyBlock().getOps<IndexAddOp>();
  if (!llvm::hasSingleElement(indexAdds))
    return std::nullopt;
  auto index = dyn_cast<BlockArgument>((*indexAdds.begin()).getIndex());
  if (!index || index.getOwner() != &d.kernel.getBodyBlock())
    return std::nullopt;
  ArrayRef<int64_t> scratch = schedule.getScratch().asArrayRef();
  return AnalysisKey{d.dispatch.getBuffers()[index.getArgNumber()],
                     index.getType(), scratch[0], scratch[1]};
}

/// `schedule` with `analysis`, without its phase-1 launch when the index
/// analysis is an earlier kernel's.
KernelScheduleAttr withAnalysis(KernelScheduleAttr schedule,
                                IndexAnalysis analysis) {
  SmallVector<Attribute> launches;
  for (LaunchAttr launch : schedule.getLaunches().getAsRange<LaunchAttr>())
    if (launch.getPhase() != 1 || analysis == IndexAnalysis::First)
      launches.push_back(launch);
  return rebuildSchedule(schedule, launches, analysis);
}

/// The first of `group` keeps its index analysis for the others, which
/// take its scratch buffers in place of their own.
void share(ArrayRef<IndexedDispatch> group) {
  IndexedDispatch first = group.front();
  unsigned firstScratch = first.dispatch.getBuffers().size() -
                          first.schedule.getScratch().size();
  first.kernel->setAttr(KernelScheduleAttr::kAttrName,
                        withAnalysis(first.schedule, IndexAnalysis::First));
  for (size_t i = 1; i < group.size(); ++i) {
    IndexedDispatch d = group[i];
    bool last = i + 1 == group.size();
    d.kernel->setAttr(KernelScheduleAttr::kAttrName,
                      withAnalysis(d.schedule, last ? IndexAnalysis::Last
                                                    : IndexAnalysis::Reused));
    unsigned scratch =
        d.dispatch.getBuffers().size() - d.schedule.getScratch().size();
    for (unsigned b = 0, e = d.schedule.getIndexAnalysisBuffers(); b < e;
         ++b) {
      OpOperand &operand = d.dispatch.getBuffersMutable()[scratch + b];
      Operation *own = operand.get().getDefiningOp();
      operand.set(first.dispatch.getBuffers()[firstScratch + b]);
      if (own && own->use_empty())
        own->erase();
    }
  }
}

struct ShareIndexAnalysisPass
    : public impl::ShareIndexAnalysisBase<ShareIndexAnalysisPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    // A kernel dispatched more than once keeps its own analysis.
    llvm::DenseMap<Operation *, int> dispatchesOf;
    getOperation().walk([&](DispatchOp dispatch) {
      if (KernelOp kernel = dispatch.lookupKernel(symbols))
        ++dispatchesOf[kernel];
    });
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      llvm::MapVector<AnalysisKey, SmallVector<IndexedDispatch>> groups;
      for (DispatchOp dispatch : function.getOps<DispatchOp>()) {
        KernelOp kernel = dispatch.lookupKernel(symbols);
        if (!kernel || dispatchesOf[kernel] != 1)
          continue;
        IndexedDispatch d{dispatch, kernel,
                          kernel->getAttrOfType<KernelScheduleAttr>(
                              KernelScheduleAttr::kAttrName)};
        if (std::optional<AnalysisKey> key = analysisKey(d))
          groups[*key].push_back(d);
      }
      for (auto &[key, group] : groups)
        if (group.size() > 1)
          share(group);
    }
  }
};

} // namespace
} // namespace stride::plan
