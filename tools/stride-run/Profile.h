//===- Profile.h - stride-run's per-step profile and memory report --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What `stride-run MODULE --profile` prints (and writes as JSON with
// --profile-json): each step's median time with its kind and name, the
// totals per kind, and the module's device memory. Formatting only: the
// timing is Benchmark.h's profileInvocation, the memory the module's
// buffers and the runtime's peak (Runtime::peakDeviceBytes).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TOOLS_STRIDE_RUN_PROFILE_H
#define STRIDE_TOOLS_STRIDE_RUN_PROFILE_H

#include "stride/Module/Module.h"

#include <string>
#include <vector>

namespace stride {

/// The device memory of a run: the module's buffers by kind and the most
/// the runtime held at once.
struct MemoryReport {
  MemorySummary buffers;
  uint64_t peakBytes = 0;
};

/// One timed step.
struct StepProfile {
  StepSummary step;
  double medianMs = 0;
};

/// A whole profile: every step of the plan, in order.
struct ProfileReport {
  std::string module;
  std::string device;
  int warmup = 0;
  int iterations = 0;
  std::vector<StepProfile> steps;
  MemoryReport memory;
};

/// "device memory: constants 1.0 MiB (1048576 bytes), ...; peak allocated
/// by the runtime 3.1 MiB (3250000 bytes)".
std::string formatMemoryLine(const MemoryReport &memory);

/// The profile for a person: a header, one line per step (index, kind,
/// median ms, share of the total, name), the total and one line per kind.
std::string formatProfileText(const ProfileReport &profile);

/// The profile as JSON (python-free-docs/performance.md, "Profile"): module, device,
/// warmup, iterations, steps [{index, kind, name, median_ms, share}],
/// total_ms, kinds {KIND: {steps, ms, share}} and memory {constant_bytes,
/// temporary_bytes, input_bytes, output_bytes, peak_bytes}.
std::string formatProfileJson(const ProfileReport &profile);

} // namespace stride

#endif // STRIDE_TOOLS_STRIDE_RUN_PROFILE_H
