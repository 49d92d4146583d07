//===- Launcher.h - stride-run-gpu --ranks N: one process per GPU ---------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// `stride-run-gpu MODULE --ranks N ...` starts N processes of itself on this
// host, rank r on GPU r, each with the environment torchrun would give it
// (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE), a fresh
// STRIDE_NCCL_ID_FILE in a temporary folder for the unique id's rendezvous,
// and NCCL_NVLS_ENABLE=0 (python-free-docs/distributed.md, "Launching the
// ranks"). A module path holding `%d` names each rank's module (the
// tensor-parallel split: `model.rank%d.stridemod`); without, every rank runs
// the one module (data parallelism). Rank r's outputs go to DIR/rank<r>/,
// and --expect DIR compares them with DIR/rank<r>/ where that folder
// exists, else with DIR. The launcher waits for every rank (a rank that
// dies ends the others through the collective timeout), prints each rank's
// output under "rank r:", and fails, with each failed rank's message, if
// any rank fails.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TOOLS_STRIDE_RUN_LAUNCHER_H
#define STRIDE_TOOLS_STRIDE_RUN_LAUNCHER_H

#include "RunModule.h"

#include <string>
#include <vector>

namespace stride {

/// Runs `options.ranks` processes of this program, each with `args` (the
/// command line without the program) made into rank r's; returns the exit
/// status (1 when a rank failed or could not start).
int launchRanks(const RunModuleOptions &options,
                const std::vector<std::string> &args,
                const std::string &program);

/// `pattern` with its `%d` replaced by `rank` (unchanged without one).
std::string rankPath(const std::string &pattern, int rank);

} // namespace stride

#endif // STRIDE_TOOLS_STRIDE_RUN_LAUNCHER_H
