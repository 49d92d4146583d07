//===- Ranks.cpp - stride-run: a group of ranks on the interpreter --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// --simulate-ranks N (the same graph on N ranks) and --tensor-parallel N
// (the graph split by stride-tensor-parallel, one program per rank): the
// programs run together on the reference interpreter (interpretRanks), so a
// split graph is checked against the unsplit one on the CPU.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "RankFolders.h"

#include "dialects/stride/IR/Graph.h"
#include "dialects/stride/Transforms/Passes.h"
#include "stride/Import/GraphParser.h"
#include "stride/Interpreter/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace stride::run {

namespace {

/// Rank `rank`'s program: the graph through the pipeline, split for the
/// group by stride-tensor-parallel with --tensor-parallel.
OwningOpRef<ModuleOp> rankModule(const Options &options, ModuleOp graph,
                                 int64_t rank) {
  OwningOpRef<ModuleOp> module(graph.clone());
  PassManager pm(graph.getContext());
  PipelineOptions pipeline;
  pipeline.repairLayouts = options.repairLayouts;
  if (options.tensorParallel > 1) {
    pipeline.tensorParallel = options.tensorParallel;
    pipeline.rank = rank;
  }
  buildStridePipeline(pm, pipeline);
  if (failed(pm.run(*module)))
    return nullptr;
  return module;
}

func::FuncOp findEntry(const Options &options, ModuleOp module) {
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal() && (options.entry.empty() || f.getSymName() == options.entry))
      return f;
  return nullptr;
}

/// Rank r's options: its folders as RankFolders.h says.
Options rankOptions(const Options &options, size_t rank) {
  Options o = options;
  if (options.simulateRanks)
    o.seed = options.seed + rank;
  if (!options.outputDir.empty())
    o.outputDir = rankFolder(options.outputDir, rank);
  if (!options.stateOut.empty())
    o.stateOut = rankFolder(options.stateOut, rank);
  if (!options.expectDir.empty())
    o.expectDir = rankFolderOrShared(options.expectDir, rank);
  if (!options.stateIn.empty())
    o.stateIn = rankFolderOrShared(options.stateIn, rank);
  return o;
}

/// Rank r's results under DIR/rank<r>/ and "rank r:", its states under
/// --state-out's DIR/rank<r>/; --expect for each.
int emitRankResults(const Options &options, ArrayRef<func::FuncOp> entries,
                    const std::vector<std::vector<HostArray>> &inputs,
                    const std::vector<std::vector<HostArray>> &results) {
  int status = 0;
  for (size_t r = 0; r < results.size(); ++r) {
    Options rankOptions = run::rankOptions(options, r);
    if (options.print || !options.expectDir.empty())
      llvm::outs() << "rank " << r << ":\n";
    if (Status s = emitResults(rankOptions, entries[r], results[r]); !s)
      return fail(s.error().message);
    if (Status s = writeStateOutputs(rankOptions, entries[r], inputs[r],
                                     results[r]);
        !s)
      return fail("rank " + std::to_string(r) + ": " + s.error().message);
    if (!options.expectDir.empty() &&
        expectResults(rankOptions, entries[r], results[r]) != 0)
      status = 1;
  }
  return status;
}

} // namespace

int runRanks(const Options &options) {
  MLIRContext context(MLIRContext::Threading::DISABLED);
  loadGraphDialects(context);
  // One source manager per graph file, each with the diagnostic handler
  // that shows its lines; the last file's handler stays for the pipeline.
  std::vector<std::unique_ptr<llvm::SourceMgr>> sources;
  std::unique_ptr<SourceMgrDiagnosticHandler> handler;
  std::vector<OwningOpRef<ModuleOp>> graphs;
  std::vector<std::string> files{options.inputFile};
  files.insert(files.end(), options.rankFiles.begin(), options.rankFiles.end());
  for (const std::string &path : files) {
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &error);
    if (!file)
      return fail(error);
    sources.push_back(std::make_unique<llvm::SourceMgr>());
    sources.back()->AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    handler.reset();
    handler = std::make_unique<SourceMgrDiagnosticHandler>(*sources.back(),
                                                           &context);
    graphs.push_back(parseGraph(*sources.back(), ParserConfig(&context)));
    if (!graphs.back())
      return 1; // the diagnostic (file:line:col) is already printed
  }

  int64_t ranks = std::max(options.simulateRanks, options.tensorParallel);
  std::vector<OwningOpRef<ModuleOp>> modules;
  std::vector<func::FuncOp> entries;
  std::vector<std::vector<HostArray>> inputs;
  for (int64_t r = 0; r < ranks; ++r) {
    ModuleOp graph = graphs.size() == 1 ? *graphs[0] : *graphs[r];
    modules.push_back(rankModule(options, graph, r));
    if (!modules.back())
      return 1;
    entries.push_back(findEntry(options, *modules.back()));
    if (!entries.back())
      return fail(options.inputFile + ": " +
                  (options.entry.empty() ? std::string("no function to run")
                                         : "no function @" + options.entry));
    Result<std::vector<HostArray>> rankInputs =
        gatherInputs(rankOptions(options, r), entries.back());
    if (!rankInputs)
      return fail("rank " + std::to_string(r) + ": " +
                  rankInputs.error().message);
    inputs.push_back(std::move(*rankInputs));
  }
  Result<std::vector<std::vector<HostArray>>> results =
      interpretRanks(entries, inputs);
  if (!results)
    return fail(results.error().message);
  return emitRankResults(options, entries, inputs, *results);
}

} // namespace stride::run
