//===- Passes.h - Passes over the host plan ---------------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_PLAN_TRANSFORMS_PASSES_H
#define STRIDE_DIALECTS_PLAN_TRANSFORMS_PASSES_H

#include "dialects/plan/IR/PlanOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace stride::plan {

/// stride-outline-executable's default `unit-ops`: the fewest kernel ops of
/// one translation unit. Large enough that NVRTC's fixed cost per unit
/// (0.04-0.1 s of CPU) stays small next to the unit's own compile time
/// (bench/NOTES.md, section 20).
inline constexpr int64_t kDefaultUnitOps = 256;
/// The most translation units stride-outline-executable makes of a graph.
inline constexpr int64_t kMaxUnits = 16;

#define GEN_PASS_DECL
#include "dialects/plan/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/plan/Transforms/Passes.h.inc"

/// The host plan after scheduling: stride-outline-executable (with
/// `outline`'s options), stride-place-constants,
/// stride-share-index-analysis, with `groupLaunches` stride-group-launches
/// (with its options), with `triggerSmallSuccessors`
/// stride-trigger-small-successors, with `l2ResidentBytes` above 0
/// stride-keep-weights-in-l2 (that budget), then stride-reuse-buffers on the entry and,
/// with `overlapCollectives`, stride-overlap-collectives (the collectives
/// on a stream of their own; reuse-buffers then keeps a collective's input
/// live while it may run).
void buildHostPlanPipeline(
    mlir::OpPassManager &pm, const OutlineExecutableOptions &outline = {},
    bool overlapCollectives = true,
    std::optional<GroupLaunchesOptions> groupLaunches = std::nullopt,
    bool triggerSmallSuccessors = false, int64_t l2ResidentBytes = 0);

/// The unit attribute stride-trigger-small-successors puts on a kernel whose
/// every dispatch is followed by a small grid: the kernel triggers that
/// grid's launch as it starts (griddepcontrol.launch_dependents).
/// A kernel's schedule (stride.schedule), null for a null kernel or one
/// without a schedule.
inline KernelScheduleAttr scheduleOf(KernelOp kernel) {
  return kernel ? kernel->getAttrOfType<KernelScheduleAttr>(KernelScheduleAttr::kAttrName)
                : KernelScheduleAttr();
}

inline constexpr llvm::StringLiteral kTriggerDependentsAttrName =
    "plan.trigger_dependents";

/// The discardable attribute on a stride.kernel, set by
/// stride-schedule-kernels: the indices (DenseI64ArrayAttr) of its inputs
/// that no step of the plan writes (the module's constants), which the
/// kernel may read before it waits for the grid ahead of it (the CUDA
/// backend's KernelPrinter::printBeforeWait: a skinny product fetches its
/// weight's first lines into L2 under --early-launch; a row_registers
/// kernel loads what it reads of them into registers).
inline constexpr llvm::StringLiteral kReadOnlyInputsAttrName =
    "stride.read_only_inputs";

/// The discardable unit attribute on a dense stride.constant in the body of
/// a row_registers kernel, set by stride-schedule-kernels where every row
/// reads it alike (a norm's weight): the kernel loads the elements each
/// thread reads into registers before it waits for the grid ahead. A
/// marked constant that stride-place-constants moves out of the kernel
/// becomes one of its kReadOnlyInputsAttrName inputs.
inline constexpr llvm::StringLiteral kPreloadAttrName = "stride.preload";

/// Bytes of the workspace buffer the plan gives each cuBLASLt call.
inline constexpr int64_t kMatmulWorkspaceBytes = 32 << 20;

/// The name of the entry function's attribute in which stride-reuse-buffers
/// records its arena: a dictionary of `temporaries` and their `bytes`,
/// `outputs` in the arena and their `output_bytes`, and `arena_bytes`, i64
/// each.
inline constexpr llvm::StringLiteral kReuseAttrName = "plan.reuse";

/// Bytes of device memory for a buffer the plan allocates: `bytes` rounded
/// up to 16 (so byte-wide atomics may touch the whole aligned word, and no
/// buffer has size 0).
int64_t allocationBytes(int64_t bytes);

} // namespace stride::plan

#endif // STRIDE_DIALECTS_PLAN_TRANSFORMS_PASSES_H
