//===- Emitter.cpp - CUDA C++ from stride kernels -------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A read-only function of legal IR: every stride.kernel of an executable
// becomes one `extern "C" __global__` function (a launch group's members
// `__device__` functions that its own calls), printed by the printer of its form and
// scheme (Forms/, behind KernelPrinter.h), from the kernel contract's facts
// and the kernel's `#stride.schedule`; then the prelude and the file scope
// (constant arrays) go in front.
//
//===----------------------------------------------------------------------===//

#include "stride/Target/CUDA/Emitter.h"
#include "dialects/plan/IR/PlanOps.h"
#include "dialects/plan/Transforms/Passes.h"
#include "dialects/stride/IR/Graph.h"
#include "stride/Module/Module.h"
#include "stride/Target/CUDA/Schedule.h"

#include "CudaText.h"
#include "Forms/Forms.h"
#include "KernelFacts.h"
#include "Prelude.h"

#include "llvm/ADT/StringSet.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {
namespace {

template <typename Printer>
std::unique_ptr<KernelPrinter> makePrinter(PrinterSetup setup) {
  return std::make_unique<Printer>(std::move(setup));
}

/// A scheme's printer, and the kernel form the scheme belongs to.
struct SchemePrinter {
  KernelForm form;
  std::unique_ptr<KernelPrinter> (*make)(PrinterSetup);
};

SchemePrinter printerOf(KernelScheme scheme) {
  switch (scheme) {
  case KernelScheme::GridStride:
  case KernelScheme::Vectorized:
    return {KernelForm::Pointwise, makePrinter<PointwisePrinter>};
  case KernelScheme::TiledTranspose:
    return {KernelForm::Pointwise, makePrinter<TiledTransposePrinter>};
  case KernelScheme::ReductionInner:
  case KernelScheme::ReductionOuter:
  case KernelScheme::ReductionSplit:
    return {KernelForm::Reduction, makePrinter<ReductionPrinter>};
  case KernelScheme::RowRegisters:
  case KernelScheme::RowReread:
  case KernelScheme::RowShared:
    return {KernelForm::BroadcastReduction, makePrinter<RowReductionPrinter>};
  case KernelScheme::Scatter:
    return {KernelForm::IndexScatter, makePrinter<ScatterPrinter>};
  case KernelScheme::SegmentedIndexAdd:
  case KernelScheme::SortedIndexAdd:
    return {KernelForm::IndexScatter, makePrinter<SegmentedIndexAddPrinter>};
  case KernelScheme::RowScan:
    return {KernelForm::Scan, makePrinter<ScanPrinter>};
  case KernelScheme::SplitKvAttention:
  case KernelScheme::StagedKvAttention:
  case KernelScheme::StagedKvMmaAttention:
    return {KernelForm::Attention, makePrinter<AttentionPrinter>};
  case KernelScheme::SkinnyMatmul:
    return {KernelForm::SkinnyProduct, makePrinter<SkinnyMatmulPrinter>};
  case KernelScheme::LaunchGroup:
    break; // printLaunchGroup prints it, its members by their own printers
  }
  llvm_unreachable("a scheme without a printer");
}

/// Reads the kernel's schedule and checks that it fits the kernel's form.
FailureOr<KernelScheduleAttr> readSchedule(KernelOp kernel, StringRef name,
                                           KernelForm form) {
  KernelScheduleAttr schedule = getSchedule(kernel);
  if (!schedule)
    return backendError(kernel, name)
           << "it has no '" << KernelScheduleAttr::kAttrName
           << "' attribute; run stride-schedule-kernels first";
  if (printerOf(schedule.getScheme()).form != form)
    return backendError(kernel, name)
           << "its schedule's scheme '"
           << stringifyKernelScheme(schedule.getScheme())
           << "' is not one of a " << stringifyKernelForm(form) << " kernel";
  return schedule;
}

/// Appends `kernel`'s function to `out`, named `name` (a `__device__`
/// function of a launch group's with `part`).
FailureOr<CudaKernel> printKernel(KernelOp kernel, const std::string &name,
                                  const CudaTargetOptions &options,
                                  Code &fileScope, unsigned &constantCounter,
                                  Code &out, bool part = false) {
  FailureOr<KernelFacts> facts = readKernelFacts(kernel, name);
  if (failed(facts))
    return failure();
  FailureOr<KernelScheduleAttr> schedule =
      readSchedule(kernel, name, facts->form);
  if (failed(schedule))
    return failure();
  std::unique_ptr<KernelPrinter> printer =
      printerOf(schedule->getScheme())
          .make({kernel, name, options, fileScope, constantCounter,
                 std::move(*facts), *schedule, part});
  return printer->print(out);
}

bool isLaunchGroup(KernelOp kernel) {
  KernelScheduleAttr schedule = getSchedule(kernel);
  return schedule && schedule.getScheme() == KernelScheme::LaunchGroup;
}

/// Appends the functions of launch group `group` to `out`: each member as a
/// `__device__` function, then the group's `__global__` function, whose
/// blocks each call the member that owns them (stride-group-launches).
FailureOr<CudaKernel> printLaunchGroup(KernelOp group, const std::string &name,
                                       const CudaTargetOptions &options,
                                       Code &fileScope,
                                       unsigned &constantCounter,
                                       KernelNameTable &names, Code &out) {
  KernelScheduleAttr schedule = getSchedule(group);
  if (schedule.getLaunches().size() != 1)
    return backendError(group, name)
           << "a launch group has one launch, but its schedule has "
           << schedule.getLaunches().size();
  CudaKernel result;
  result.op = group;
  result.name = name;
  result.launches.push_back(
      toCudaLaunch(cast<LaunchAttr>(schedule.getLaunches()[0])));
  const CudaLaunch &launch = result.launches.front();

  Code calls;
  calls.indent = 1;
  calls.line("const unsigned block = blockIdx.x;");
  if (group->hasAttr(plan::kTriggerDependentsAttrName))
    calls.line("stride_trigger_dependents(); // the grid after this one is "
               "small (stride-trigger-small-successors)");
  unsigned input = 0, output = 0;
  int64_t firstBlock = 0;
  std::string members;
  for (auto member : group.getBodyBlock().getOps<KernelOp>()) {
    std::string partName =
        names.insert(name + "_" + cIdentifier(member.getSymName()));
    FailureOr<CudaKernel> part = printKernel(
        member, partName, options, fileScope, constantCounter, out, true);
    if (failed(part))
      return failure();
    if (part->launches.size() != 1 || !part->scratchBytes.empty() ||
        !part->sizeParameters.empty() ||
        part->launches[0].block.volume() != launch.block.volume())
      return backendError(group, name)
             << "member '" << member.getSymName()
             << "' is not one launch of the group's block shape, without "
                "scratch or symbolic sizes";
    const CudaLaunch &own = part->launches[0];
    std::string args = fmt::format(
        "stride_part_index{{block - {}u, 0, 0}}, stride_part_index{{{}u, 1, "
        "1}}",
        firstBlock, own.grid.x);
    for (unsigned i = 0, e = member.getBodyBlock().getNumArguments(); i < e;
         ++i)
      args += fmt::format(", in{}", input++);
    for (unsigned i = 0, e = member.getNumResults(); i < e; ++i)
      args += fmt::format(", out{}", output++);
    if (part->phaseParameter)
      args += fmt::format(", {}", own.phase.value_or(0));
    firstBlock += own.grid.x;
    calls.open(fmt::format("if (block < {}u)", firstBlock));
    calls.line("{}({});", partName, args);
    calls.line("return;");
    calls.close();
    members += (members.empty() ? "" : " + ") + part->name;
  }
  if (firstBlock != launch.grid.x)
    return backendError(group, name)
           << "its launch has " << launch.grid.x
           << " blocks, but its members' launches have " << firstBlock;
  result.description = "launch group: " + members;

  out.line("// Kernel {}: {}; each block runs the member whose blocks it "
           "is in (stride-group-launches)",
           name, result.description);
  out.line("extern \"C\" __global__ void __launch_bounds__({})",
           std::max<uint32_t>(256, launch.block.volume()));
  out.open(fmt::format("{}({})", name, bufferParameters(group)));
  out.text += calls.text;
  out.close();
  out.raw("");
  return result;
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

/// Whether the kernels wait for the grid before them at their start
/// (CudaTargetOptions::dependentLaunch), so that they may be dependent
/// launches.
static bool kernelsWaitForPreviousGrid(const CudaTargetOptions &options) {
  return options.dependentLaunch && supportsDependentLaunch(options.arch);
}

/// One translation unit: the kernels of `executable`, after the prelude.
static FailureOr<CudaUnit> emitUnit(plan::ExecutableOp executable,
                                    func::FuncOp entry,
                                    const CudaTargetOptions &options,
                                    KernelNameTable &names) {
  CudaUnit unit;
  unit.executable = executable.getSymName().str();
  Code fileScope, kernels;
  unsigned constantCounter = 0;
  bool failedAny = false;
  for (auto kernel : executable.getBodyBlock().getOps<KernelOp>()) {
    std::string name = names.insert(cIdentifier(kernel.getSymName()));
    FailureOr<CudaKernel> emitted =
        isLaunchGroup(kernel)
            ? printLaunchGroup(kernel, name, options, fileScope,
                               constantCounter, names, kernels)
            : printKernel(kernel, name, options, fileScope, constantCounter,
                          kernels);
    if (failed(emitted)) {
      failedAny = true;
      continue;
    }
    emitted->waitsForPreviousGrid = kernelsWaitForPreviousGrid(options);
    unit.kernels.push_back(std::move(*emitted));
  }
  if (failedAny)
    return failure();

  std::string &source = unit.source;
  source += fmt::format("// CUDA C++ generated by Stride from @{} ({}).\n",
                        entry.getSymName().str(),
                        formatLocation(entry.getLoc()));
  source += "// Each kernel iterates over the logical shape of its outputs.\n";
  source += fmt::format("#define STRIDE_RUNTIME_CHECKS {}\n",
                        options.runtimeChecks ? 1 : 0);
  source += fmt::format("#define STRIDE_DEPENDENT_LAUNCH {}\n",
                        kernelsWaitForPreviousGrid(options) ? 1 : 0);
  source += fmt::format("#define STRIDE_EARLY_LAUNCH {}\n",
                        kernelsWaitForPreviousGrid(options) &&
                                options.earlyLaunch
                            ? 1
                            : 0);
  source += cuda::kPrelude;
  source += "\n";
  if (!fileScope.text.empty())
    source += fileScope.text + "\n";
  source += kernels.text;
  return unit;
}

FailureOr<CudaSource> emitCuda(ModuleOp module,
                               const CudaTargetOptions &options) {
  FailureOr<func::FuncOp> entry = findEntryFunction(module);
  if (failed(entry))
    return failure();
  auto executables = module.getOps<plan::ExecutableOp>();
  if (executables.empty())
    return module.emitError()
           << "expected the graph's kernels in plan.executables; run "
              "stride-outline-executable first";
  CudaSource result;
  KernelNameTable names;
  bool failedAny = false;
  for (plan::ExecutableOp executable : executables) {
    FailureOr<CudaUnit> unit = emitUnit(executable, *entry, options, names);
    if (failed(unit))
      failedAny = true;
    else
      result.units.push_back(std::move(*unit));
  }
  if (failedAny)
    return failure();
  return result;
}

} // namespace stride
