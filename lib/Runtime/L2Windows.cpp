//===- L2Windows.cpp - Weights kept in L2 across runs ---------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "L2Windows.h"

#include <algorithm>
#include <cstdint>
#include <map>

namespace stride {

namespace {

/// The bytes the module's windows cover, each capped at `largestWindow`;
/// a constant's once, however many launches carry a window over it (a
/// product split into slices has two, the compiler's pass one a weight).
uint64_t windowBytes(const ModuleDesc &desc, uint64_t largestWindow) {
  std::map<uint32_t, uint64_t> perConstant;
  for (const Step &step : desc.steps)
    if (const auto *d = std::get_if<DispatchStep>(&step); d && d->l2ResidentBytes > 0) {
      uint64_t &bytes = perConstant[d->l2ResidentBuffer];
      bytes = std::max(bytes, std::min(d->l2ResidentBytes, largestWindow));
    }
  uint64_t total = 0;
  for (const auto &entry : perConstant)
    total += entry.second;
  return total;
}

/// Whether `r` says that this context has no persisting-L2 limit to set
/// (a device or a sharing mode, MPS, without one): the plan then runs
/// without its windows.
bool limitUnsupported(CUresult r) {
  return r == CUDA_ERROR_UNSUPPORTED_LIMIT || r == CUDA_ERROR_NOT_SUPPORTED;
}

/// The context's persisting-L2 limit, 0 where it has none.
Result<uint64_t> persistingLimit(const Runtime::Impl &rt) {
  size_t limit = 0;
  if (CUresult r = rt.cu.cuCtxGetLimit(&limit, CU_LIMIT_PERSISTING_L2_CACHE_SIZE))
    return limitUnsupported(r)
               ? Result<uint64_t>(uint64_t(0))
               : rt.cudaError("cuCtxGetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE)", r);
  return uint64_t(limit);
}

/// Raises the context's persisting-L2 limit to `wanted` (never lowers it:
/// another module's windows may use it); returns the limit it then has
/// (the driver may round what it was asked), 0 where the context has no
/// such limit.
Result<uint64_t> setAsideL2(const Runtime::Impl &rt, uint64_t wanted) {
  Result<uint64_t> limit = persistingLimit(rt);
  if (!limit || *limit >= wanted)
    return limit;
  if (CUresult r = rt.cu.cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, wanted))
    return limitUnsupported(r)
               ? Result<uint64_t>(uint64_t(0))
               : rt.cudaError("cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, " +
                                  str(int64_t(wanted)) + ")",
                              r);
  return persistingLimit(rt);
}

} // namespace

Result<L2WindowPlan>
prepareL2Windows(const Runtime::Impl &rt, const ModuleDesc &desc,
                 const std::vector<CUdeviceptr> &constantAddresses) {
  L2WindowPlan windows;
  windows.perStep.assign(desc.steps.size(), CUaccessPolicyWindow{});
  // A module without windows asks the driver nothing.
  if (windowBytes(desc, UINT64_MAX) == 0)
    return windows;
  Result<int> largestSetAside = rt.deviceAttribute(
      CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, "MAX_PERSISTING_L2_CACHE_SIZE");
  Result<int> largestWindow = rt.deviceAttribute(
      CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, "MAX_ACCESS_POLICY_WINDOW_SIZE");
  if (!largestSetAside)
    return largestSetAside.error();
  if (!largestWindow)
    return largestWindow.error();
  const uint64_t wanted = windowBytes(desc, uint64_t(std::max(*largestWindow, 0)));
  if (wanted == 0 || *largestSetAside <= 0)
    return windows;
  Result<uint64_t> setAside =
      setAsideL2(rt, std::min(wanted, uint64_t(*largestSetAside)));
  if (!setAside)
    return setAside.error();
  if (*setAside == 0)
    return windows;
  const float hitRatio =
      float(std::min(1.0, double(*setAside) / double(wanted)));
  for (size_t i = 0; i < desc.steps.size(); ++i) {
    const auto *d = std::get_if<DispatchStep>(&desc.steps[i]);
    if (!d || d->l2ResidentBytes == 0)
      continue;
    CUaccessPolicyWindow &w = windows.perStep[i];
    w.base_ptr = reinterpret_cast<void *>(constantAddresses[d->l2ResidentBuffer]);
    w.num_bytes = std::min(d->l2ResidentBytes, uint64_t(*largestWindow));
    w.hitRatio = hitRatio;
    w.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
    w.missProp = CU_ACCESS_PROPERTY_STREAMING;
  }
  windows.bytes = wanted;
  return windows;
}

} // namespace stride
