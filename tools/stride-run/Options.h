//===- Options.h - stride-run's command line ---------------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The parsed command line of stride-run, shared by its modes: the reference
// interpreter (stride-run.cpp, `graph.mlir --reference`) and running
// compiled GPU modules (RunModule.cpp, `module.stridemod`).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TOOLS_STRIDE_RUN_OPTIONS_H
#define STRIDE_TOOLS_STRIDE_RUN_OPTIONS_H

#include "Compare.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "stride/Support/Npy.h"
#include "stride/Support/Result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stride::run {

struct Options {
  /// The positional file: a graph (.mlir) or a compiled module.
  std::string inputFile;
  /// Run the graph on the reference interpreter (implied for a graph).
  bool reference = false;
  /// `--input name=file.npy`, in command-line order.
  std::vector<std::pair<std::string, std::string>> inputs;
  /// Where to write each result as <name>.npy, named as the module names
  /// its outputs (empty: do not write).
  std::string outputDir;
  /// How bf16 results and saved inputs are written.
  Bf16Output bf16Output = Bf16Output::F32;
  /// Print the results as text.
  bool print = false;
  /// Make the inputs not given with --input (see python-free-docs/interpreter.md).
  bool randomInputs = false;
  uint64_t seed = 0;
  /// Where to write every input the graph ran with, given or made, as
  /// <name>.npy (empty: do not write).
  std::string saveInputsDir;
  /// The function to run (empty: the first func.func).
  std::string entry;
  /// Forwarded to the pipeline: repair illegal layouts instead of rejecting.
  bool repairLayouts = false;
  /// --instantiate-symbols: the symbols' values (`name=value` each) at
  /// which a graph of symbolic sizes is instantiated before it runs.
  std::vector<std::string> instantiateSymbols;
  /// Compare every kept value (stridec --keep-values) with DIR/value.K.npy
  /// and report the first that differs (empty: no comparison).
  std::string compareValuesDir;
  /// Compare each result with DIR/<name>.npy (empty: no comparison).
  std::string expectDir;
  /// The tolerance of --expect and --compare-values (Compare.h).
  double rtol = 1e-5;
  bool rtolGiven = false;
  /// With --compare-values: the module was compiled with stridec --no-fuse.
  bool noFuse = false;
  /// With --simulate-ranks N: the programs of ranks 1 .. N-1 (rank 0's is
  /// inputFile); empty: every rank runs inputFile.
  std::vector<std::string> rankFiles;
  /// Run the graph as the N ranks of a group, together (Ranks.cpp): the
  /// same graph on every rank (--simulate-ranks; 0: one rank), or the
  /// graph split for N ranks by stride-tensor-parallel (--tensor-parallel).
  int64_t simulateRanks = 0;
  int64_t tensorParallel = 0;
  /// Read the states from DIR/<name>.npy instead of their initial values,
  /// and write them there after the run (GraphStates.cpp; empty: no).
  std::string stateIn;
  std::string stateOut;
  bool help = false;
};

/// Parses argv (without interpreting files); an Error says what is wrong.
Result<Options> parseCommandLine(int argc, char **argv);

/// The text of --help.
std::string helpText();

/// The reference mode: parses, legalizes and interprets a graph.
int runReference(const Options &options);

/// Runs the graph as a group of ranks (--simulate-ranks, --tensor-parallel).
int runRanks(const Options &options);

/// The inputs of `func`, from --input files and --random-inputs (seeded
/// with options.seed); a state not given holds its initial value.
Result<std::vector<HostArray>> gatherInputs(const Options &options,
                                            mlir::func::FuncOp func);

/// Writes (--output-dir) and prints (--print) each result under its name.
Status emitResults(const Options &options, mlir::func::FuncOp entry,
                   const std::vector<HostArray> &results);

/// --expect: each result against DIR/<name>.npy, one line each; the exit
/// status.
int expectResults(const Options &options, mlir::func::FuncOp entry,
                  const std::vector<HostArray> &results);

/// Whether --state-in or --state-out is given: the results that write a
/// state back are then states, not outputs (GraphStates.cpp).
bool carriesStates(const Options &options);

/// Whether result `result` of `entry` is a state written back, left out of
/// the outputs (--output-dir, --print, --expect).
bool isStateOutput(const Options &options, mlir::func::FuncOp entry,
                   size_t result);

/// --state-in: argument `argument`'s value from DIR/<name>.npy where it is
/// a state (none where it is not, or without --state-in).
Result<std::optional<HostArray>> readStateInput(const Options &options,
                                                mlir::func::FuncOp entry,
                                                unsigned argument);

/// --state-out: each state's value after the run (the result that writes
/// it back, else its input) as DIR/<name>.npy.
Status writeStateOutputs(const Options &options, mlir::func::FuncOp entry,
                         const std::vector<HostArray> &inputs,
                         const std::vector<HostArray> &results);

/// Prints "stride-run: error: MESSAGE"; returns 1.
int fail(const std::string &message);

} // namespace stride::run

#endif // STRIDE_TOOLS_STRIDE_RUN_OPTIONS_H
