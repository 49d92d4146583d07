//===- L2Windows.h - Weights kept in L2 across runs -----------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Runtime. A dispatch the compiler gave an L2 window
// (stride-keep-weights-in-l2; python-free-docs/plan.md, "Weights kept in
// L2") is launched with an access-policy window over its constant's first
// bytes, hits persisting, in L2 that the context sets aside for persisting
// lines. This file turns the module's windows into the launches' windows
// when the executable loads.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_RUNTIME_L2WINDOWS_H
#define STRIDE_LIB_RUNTIME_L2WINDOWS_H

#include "RuntimeImpl.h"

#include <cuda.h>

#include <vector>

namespace stride {

/// Per step of `desc`: the access-policy window its launches carry, and
/// the bytes they cover. Where the module has windows, raises the current
/// context's persisting-L2 limit (CU_LIMIT_PERSISTING_L2_CACHE_SIZE) to
/// their bytes, at most the device's largest set-aside and never lower
/// than it was; each window covers at most the device's largest window,
/// and, where the set-aside is smaller than the windows' bytes, its hit
/// ratio is the set-aside over those bytes, so that the lines that persist
/// fit in it. A device that sets no L2 aside (before sm_80), or a context
/// that has no such limit to set (MPS), gets no windows: they are a hint,
/// the results are the same. Any other failure of the driver's calls is
/// an error that names the call.
Result<L2WindowPlan>
prepareL2Windows(const Runtime::Impl &rt, const ModuleDesc &desc,
                 const std::vector<CUdeviceptr> &constantAddresses);

} // namespace stride

#endif // STRIDE_LIB_RUNTIME_L2WINDOWS_H
