//===- GraphFuzzer.cpp - libFuzzer target: graph text -> pipeline ---------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Any text must be parsed, verified and compiled, or refused with a
// diagnostic: never a crash, a hang, or an out-of-bounds access. A graph that
// verifies goes through stride-opt's default pipeline (with broadcast
// epilogues) and through stridec's (kernels formed, layouts rejected or
// repaired), then the CUDA emitter and the launch planner; the plan must pass
// the module verifier. NVRTC is left out: it is slow, and its input is the
// emitter's output, not the fuzzer's.
//
//===----------------------------------------------------------------------===//

#include "FuzzContext.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "stride/Import/GraphParser.h"
#include "stride/Module/Module.h"
#include "dialects/stride/IR/StrideDialect.h"
#include "dialects/stride/IR/Graph.h"
#include "stride/Target/CUDA/Emitter.h"
#include "stride/Target/CUDA/Planner.h"
#include "stride/Target/CUDA/Schedule.h"
#include "dialects/stride/Transforms/Passes.h"
#include "dialects/plan/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdio>
#include <cstdlib>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context =
      fuzzContext<stride::StrideDialect, stride::plan::PlanDialect,
                  func::FuncDialect>();
  // MLIR's lexer relies on the null terminator that files read through
  // llvm::MemoryBuffer always have; the fuzzer's bytes have none.
  std::string text(reinterpret_cast<const char *>(data), size);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, "fuzz.mlir"), llvm::SMLoc());
  // As every Stride tool parses a graph file.
  OwningOpRef<ModuleOp> module =
      stride::parseGraph(sourceMgr, ParserConfig(&context));
  if (!module || failed(verify(*module)))
    return 0;
  {
    // stride-opt --stride-pipeline=repair-layouts.
    OwningOpRef<ModuleOp> copy = module->clone();
    PassManager pm(&context);
    stride::PipelineOptions options;
    options.repairLayouts = true;
    stride::buildStridePipeline(pm, options);
    (void)pm.run(*copy);
  }
  for (bool repair : {false, true}) {
    // stridec [--repair-layouts], up to the launch plan: every kernel the
    // pipeline forms must be scheduled, emitted and planned.
    OwningOpRef<ModuleOp> copy = module->clone();
    PassManager pm(&context);
    stride::PipelineOptions options;
    options.repairLayouts = repair;
    options.fusion.broadcastEpilogues = false;
    options.formKernels = true;
    stride::buildStridePipeline(pm, options);
    pm.addNestedPass<func::FuncOp>(stride::createScheduleKernels());
    // With repair, the plan also groups launches and marks early triggers
    // (stridec's defaults), so that both plans are fuzzed.
    std::optional<stride::plan::GroupLaunchesOptions> groups;
    if (repair)
      groups.emplace();
    stride::plan::buildHostPlanPipeline(pm, {}, true, groups, repair);
    if (failed(pm.run(*copy)))
      continue;
    FailureOr<func::FuncOp> entry = stride::findEntryFunction(*copy);
    if (failed(entry))
      continue;
    FailureOr<stride::CudaSource> source =
        stride::emitCuda(*copy, stride::CudaTargetOptions());
    if (failed(source))
      continue;
    std::vector<stride::CodeImage> images(
        source->units.size(),
        stride::CodeImage{stride::CodeKind::Ptx, {'/', '/', '\n'}});
    FailureOr<stride::ModuleDesc> desc = stride::translatePlan(
        *entry, *source, std::move(images), "sm_90", "stride-graph-fuzzer");
    if (failed(desc))
      continue;
    // The plan must only translate to consistent modules.
    stride::Status status = stride::verifyModule(*desc, "fuzz.stridemod");
    if (!status) {
      std::fprintf(stderr, "planned an inconsistent module: %s\n",
                   status.error().message.c_str());
      std::abort();
    }
  }
  return 0;
}
