//===- StateFiles.h - A module's states as .npy files ----------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-run's --state-in DIR and --state-out DIR (and stride-emu's): a
// module's states (a KV cache) carried from one run to the next as one
// DIR/<state name>.npy per state (python-free-docs/state.md).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TOOLS_STRIDE_RUN_STATEFILES_H
#define STRIDE_TOOLS_STRIDE_RUN_STATEFILES_H

#include "stride/Module/Module.h"
#include "stride/Runtime/Runtime.h"

#include <string>

namespace stride {

/// DIR/<name>.npy for every state of `module`, each checked against its
/// state (dtype, shape) before any is returned: a missing, unreadable or
/// mismatched file is an error naming the file and the state, and nothing
/// is written.
Result<StateValues> readStateFiles(const ModuleDesc &module,
                                   const std::string &dir);

/// Writes each state of `values` as DIR/<name>.npy (DIR is created): every
/// file is written under a temporary name first and renamed into place
/// once all are written, so a failure leaves no half-written state file.
Status writeStateFiles(const StateValues &values, const std::string &dir);

} // namespace stride

#endif // STRIDE_TOOLS_STRIDE_RUN_STATEFILES_H
