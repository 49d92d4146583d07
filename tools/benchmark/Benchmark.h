//===- Benchmark.h - Timing a plan and the device's copy bandwidth --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// For the tools (stride-run --bench, stride-gpu-smoke), not the library:
// timing is built from the Invocation's public steps (upload, launch,
// synchronize) and CUDA events on the invocation's stream.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TOOLS_BENCHMARK_BENCHMARK_H
#define STRIDE_TOOLS_BENCHMARK_BENCHMARK_H

#include "stride/Runtime/Invocation.h"

namespace stride {

/// Timing of one replay of the whole launch plan.
struct BenchResult {
  double medianMs = 0;
  double minMs = 0;
  int iterations = 0;
};

/// Uploads `inputs` once, then takes `iters` timed samples after `warmup`
/// untimed launches; a sample is the mean time of 10 back-to-back launches
/// of the plan between two CUDA events. Launches queue up while the GPU
/// works, so the host's launch latency stays off the clock (as it does for
/// a framework that launches asynchronously). Whether a launch is one CUDA
/// graph is the invocation's option (InvocationOptions::useCudaGraph).
Result<BenchResult> benchmarkInvocation(Invocation &invocation,
                                        const std::vector<HostArray> &inputs,
                                        int warmup, int iters);

/// The time of each step of the plan.
struct ProfileResult {
  /// Per step, in the plan's order: the median over the iterations.
  std::vector<double> stepMedianMs;
  int iterations = 0;
};

/// Uploads `inputs` once and runs the plan `warmup` times untimed, then
/// `iters` times step by step (Invocation::launchStep, never as a CUDA
/// graph) with a CUDA event before each step and after the last, so each
/// step is timed on the GPU between two events. Steps queue up as the plan
/// does, so a step's time includes no host latency unless the GPU ran dry
/// waiting for the host's next launch (steps of a few microseconds).
Result<ProfileResult> profileInvocation(Invocation &invocation,
                                        const std::vector<HostArray> &inputs,
                                        int warmup, int iters);

/// benchmarkInvocation on a new invocation of `executable` with `options`
/// (launching kernel by kernel or, with useCudaGraph, replaying the plan as
/// a CUDA graph).
Result<BenchResult>
benchmarkExecutable(const std::shared_ptr<const Executable> &executable,
                    const std::vector<HostArray> &inputs, int warmup, int iters,
                    const InvocationOptions &options);

/// Device-to-device copy bandwidth: copies `bytes` between two buffers of
/// `allocator` (after warm-up), times the copies with CUDA events and
/// returns bytes read plus written per second (median of the timed copies).
Result<double> measureCopyBandwidth(Allocator &allocator, size_t bytes);

} // namespace stride

#endif // STRIDE_TOOLS_BENCHMARK_BENCHMARK_H
