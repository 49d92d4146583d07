//===- RunModule.h - stride-run's GPU mode: run a module ------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// `stride-run module.stridemod --input x=x.npy ... --output-dir out/` runs a
// compiled module on the GPU through the runtime (stride/Runtime/Runtime.h)
// and writes each output as out/<name>.npy. Plain C++: no MLIR and no LLVM,
// so that the same code builds into `stride-run-gpu`, the runtime-only binary
// that scripts/gpu-check.sh runs on GPU machines.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TOOLS_STRIDE_RUN_RUNMODULE_H
#define STRIDE_TOOLS_STRIDE_RUN_RUNMODULE_H

#include "Compare.h"

#include "stride/Support/Result.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace stride {

struct RunModuleOptions {
  std::string modulePath;
  /// (name, .npy path); an empty name binds the inputs in order.
  std::vector<std::pair<std::string, std::string>> inputs;
  /// Where each output is written as <name>.npy; empty: not written.
  std::string outputDir;
  /// The module's states before the run from DIR/<state>.npy, and after it
  /// into DIR/<state>.npy (StateFiles.h); empty: the initial values, and
  /// not written.
  std::string stateIn, stateOut;
  /// How bf16 outputs are written (Compare.h).
  Bf16Output bf16Output = Bf16Output::F32;
  int device = 0;
  bool deviceGiven = false;
  /// With N > 0: run N ranks of the module, one process per GPU
  /// (Launcher.h); 0: this process alone.
  int ranks = 0;
  /// Fill the outputs with 0xFF bytes (NaN, or -1) before the plan runs.
  bool poison = false;
  /// Compare each output with <expectDir>/<name>.npy (see Compare.h).
  std::string expectDir;
  double rtol = 1e-5;
  double atol = 0;
  /// Time the plan: median of `iterations` replays as a CUDA graph.
  bool bench = false;
  /// InvocationOptions::tuneLibraryCalls for the run (and so for the
  /// benchmark and profile after it, which use its choices).
  bool tuneLibraryCalls = false;
  /// InvocationOptions::dependentLaunch for the run, the benchmark and the
  /// profile.
  bool dependentLaunch = true;
  /// Time each step of the plan, run step by step (Profile.h); with
  /// profileJson, also write the profile as JSON to that file.
  bool profile = false;
  std::string profileJson;
  int warmup = 10;
  int iterations = 100;
  uint64_t gpuMemoryLimitBytes = 0;
};

/// The usage text of the module mode.
std::string runModuleUsage(const std::string &program);

/// Parses the module mode's arguments (argv[1..]).
Result<RunModuleOptions> parseRunModuleArgs(const std::vector<std::string> &args);

/// Runs the module; prints results to stdout and errors, prefixed with
/// `program: error: `, to stderr. Returns the exit status: 0 on success, 1
/// on any error (no GPU, bad input, CUDA error) or mismatch with --expect.
int runModule(const RunModuleOptions &options, const std::string &program);

struct ModuleDesc;
struct HostArray;

/// Reads the .npy inputs named in `options` and checks them against the
/// module's signature; returns them in signature order.
Result<std::vector<HostArray>> readModuleInputs(const ModuleDesc &module,
                                                const RunModuleOptions &options);

/// One line per absent (None) output, "output 0 of 3: None", for the
/// program's `numProgramOutputs` outputs (what both modes of stride-run
/// print before the outputs' own lines).
std::string describeAbsentOutputs(const std::vector<uint32_t> &positions,
                                  size_t numProgramOutputs);

/// Prints the absent outputs (describeAbsentOutputs), writes the outputs to
/// options.outputDir and compares them with options.expectDir, printing one
/// line per output; returns the exit status (1 on an error or a mismatch).
int finishModuleOutputs(const ModuleDesc &module,
                        const std::vector<HostArray> &outputs,
                        const RunModuleOptions &options,
                        const std::string &program);

/// parseRunModuleArgs + runModule, for a tool's main.
int runModuleMain(int argc, char **argv);

} // namespace stride

#endif // STRIDE_TOOLS_STRIDE_RUN_RUNMODULE_H
