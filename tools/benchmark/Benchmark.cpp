//===- Benchmark.cpp - Timing a plan and the device's copy bandwidth ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Benchmark.h"

// The runtime's driver loader: events are the tools' business, not the
// library's.
#include "../../lib/Runtime/CudaDriver.h"

#include <algorithm>

namespace stride {

namespace {

/// Each timed sample is the mean of this many back-to-back launches.
constexpr int kLaunchesPerTimedSample = 10;

std::string str(int64_t v) { return std::to_string(v); }

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/// CUDA events, destroyed with the object.
class Events {
public:
  Events(const CudaDriver &cu, size_t count) : cu(cu), events(count, nullptr) {}
  ~Events() {
    for (CUevent event : events)
      if (event)
        cu.cuEventDestroy(event);
  }

  Status create() {
    for (CUevent &event : events)
      if (Status s = failure("cuEventCreate",
                             cu.cuEventCreate(&event, CU_EVENT_DEFAULT));
          !s)
        return s;
    return Status::ok();
  }

  Status record(size_t index, CUstream stream) {
    return failure("cuEventRecord", cu.cuEventRecord(events[index], stream));
  }

  /// Milliseconds between events `from` and `to`, waiting for `to`.
  Result<double> elapsedMs(size_t from, size_t to, const std::string &what) {
    CUresult r = cu.cuEventSynchronize(events[to]);
    float ms = 0;
    if (r == CUDA_SUCCESS)
      r = cu.cuEventElapsedTime(&ms, events[from], events[to]);
    if (Status s = failure(what, r); !s)
      return s.error();
    return double(ms);
  }

  Status failure(const std::string &what, CUresult r) const {
    if (r == CUDA_SUCCESS)
      return Status::ok();
    return makeError(cudaErrorCode(r), what + " failed: " + cu.errorText(r));
  }

  const CudaDriver &cu;
  std::vector<CUevent> events;
};

/// The mean time of kLaunchesPerTimedSample launches between two events.
Result<double> timedSample(Invocation &invocation, Events &events) {
  auto stream = static_cast<CUstream>(invocation.stream());
  if (Status s = events.record(0, stream); !s)
    return s.error();
  for (int i = 0; i < kLaunchesPerTimedSample; ++i)
    if (Status s = invocation.launch(); !s)
      return s.error();
  if (Status s = events.record(1, stream); !s)
    return s.error();
  // The invocation's wait, bounded by the collective timeout when the plan
  // has collectives (a rank that stopped ends the benchmark, not a hang).
  if (Status s = invocation.synchronize(); !s)
    return s.error();
  Result<double> ms = events.elapsedMs(0, 1, invocation.executable().name() +
                                                 ": the plan during the benchmark");
  if (!ms)
    return ms;
  return *ms / kLaunchesPerTimedSample;
}

} // namespace

namespace {

/// Checks the counts, loads the driver, uploads `inputs` and runs the plan
/// `launches` times untimed, waiting for the last; `what` names the
/// measurement in the error ("a benchmark").
Result<const CudaDriver *> warmUp(Invocation &invocation,
                                  const std::vector<HostArray> &inputs,
                                  int warmup, int iters, int launches,
                                  const std::string &what) {
  if (warmup < 0 || iters < 1)
    return makeError(ErrorCode::InvalidArgument,
                     what + " needs warmup >= 0 and iterations >= 1, got " +
                         str(warmup) + " and " + str(iters));
  Result<const CudaDriver *> cu = loadCudaDriver();
  if (!cu)
    return cu.error();
  if (Status s = invocation.upload(inputs); !s)
    return s.error();
  for (int i = 0; i < launches; ++i)
    if (Status s = invocation.launch(); !s)
      return s.error();
  if (Status s = invocation.synchronize(); !s)
    return s.error();
  return cu;
}

} // namespace

Result<BenchResult> benchmarkInvocation(Invocation &invocation,
                                        const std::vector<HostArray> &inputs,
                                        int warmup, int iters) {
  // +1: a CUDA graph is captured at the first launch.
  Result<const CudaDriver *> cu =
      warmUp(invocation, inputs, warmup, iters, warmup + 1, "a benchmark");
  if (!cu)
    return cu.error();
  Events events(**cu, 2);
  if (Status s = events.create(); !s)
    return s.error();
  std::vector<double> times;
  for (int i = 0; i < iters; ++i) {
    Result<double> ms = timedSample(invocation, events);
    if (!ms)
      return ms.error();
    times.push_back(*ms);
  }
  BenchResult result;
  result.medianMs = median(times);
  result.minMs = *std::min_element(times.begin(), times.end());
  result.iterations = iters;
  return result;
}

namespace {

/// One run of the plan step by step with an event before each step and
/// after the last: adds each step's time to `times`.
Status profiledRun(Invocation &invocation, Events &events,
                   std::vector<std::vector<double>> &times) {
  auto stream = static_cast<CUstream>(invocation.stream());
  size_t steps = times.size();
  for (size_t i = 0; i < steps; ++i) {
    if (Status s = events.record(i, stream); !s)
      return s;
    if (Status s = invocation.launchStep(i); !s)
      return s;
  }
  if (Status s = events.record(steps, stream); !s)
    return s;
  for (size_t i = 0; i < steps; ++i) {
    Result<double> ms = events.elapsedMs(
        i, i + 1,
        invocation.executable().name() + ": step " + str(int64_t(i + 1)) +
            " during the profile");
    if (!ms)
      return ms.error();
    times[i].push_back(*ms);
  }
  return Status::ok();
}

} // namespace

Result<ProfileResult> profileInvocation(Invocation &invocation,
                                        const std::vector<HostArray> &inputs,
                                        int warmup, int iters) {
  Result<const CudaDriver *> cu =
      warmUp(invocation, inputs, warmup, iters, warmup, "a profile");
  if (!cu)
    return cu.error();
  size_t steps = invocation.executable().desc().steps.size();
  Events events(**cu, steps + 1);
  if (Status s = events.create(); !s)
    return s.error();
  std::vector<std::vector<double>> times(steps);
  for (int i = 0; i < iters; ++i)
    if (Status s = profiledRun(invocation, events, times); !s)
      return s.error();
  ProfileResult result;
  result.iterations = iters;
  for (std::vector<double> &stepTimes : times)
    result.stepMedianMs.push_back(median(std::move(stepTimes)));
  return result;
}

Result<BenchResult>
benchmarkExecutable(const std::shared_ptr<const Executable> &executable,
                    const std::vector<HostArray> &inputs, int warmup, int iters,
                    const InvocationOptions &options) {
  Result<std::unique_ptr<Invocation>> invocation =
      Invocation::create(executable, options);
  if (!invocation)
    return invocation.error();
  return benchmarkInvocation(**invocation, inputs, warmup, iters);
}

namespace {

/// Memory of an Allocator, released on destruction.
class AllocatorBuffer {
public:
  AllocatorBuffer(Allocator &allocator, uint64_t bytes)
      : allocator(allocator), bytes(bytes) {}
  ~AllocatorBuffer() { allocator.release(address, bytes); }
  Status allocate(const std::string &what) {
    Result<uint64_t> a = allocator.allocate(bytes, what);
    if (!a)
      return a.error();
    address = *a;
    return Status::ok();
  }

  Allocator &allocator;
  uint64_t bytes;
  uint64_t address = 0;
};

} // namespace

Result<double> measureCopyBandwidth(Allocator &allocator, size_t bytes) {
  constexpr int kWarmup = 3, kIters = 20;
  if (bytes == 0)
    return makeError(ErrorCode::InvalidArgument,
                     "measuring the copy bandwidth needs a non-zero size");
  Result<const CudaDriver *> driver = loadCudaDriver();
  if (!driver)
    return driver.error();
  const CudaDriver &cu = **driver;
  // Allocating makes the device's context current on this thread.
  AllocatorBuffer src(allocator, bytes), dst(allocator, bytes);
  if (Status s = src.allocate("the copy source"); !s)
    return s.error();
  if (Status s = dst.allocate("the copy destination"); !s)
    return s.error();
  Events events(cu, 2);
  if (Status s = events.create(); !s)
    return s.error();
  std::string what =
      "the device-to-device copy of " + str(int64_t(bytes)) + " bytes";
  if (Status s = events.failure(
          what, cu.cuMemsetD8Async(src.address, 0, bytes, nullptr));
      !s)
    return s.error();
  std::vector<double> times;
  for (int i = 0; i < kWarmup + kIters; ++i) {
    CUresult r = cu.cuEventRecord(events.events[0], nullptr);
    if (!r)
      r = cu.cuMemcpyDtoDAsync(dst.address, src.address, bytes, nullptr);
    if (!r)
      r = cu.cuEventRecord(events.events[1], nullptr);
    if (Status s = events.failure(what, r); !s)
      return s.error();
    Result<double> ms = events.elapsedMs(0, 1, what);
    if (!ms)
      return ms.error();
    if (i >= kWarmup)
      times.push_back(*ms);
  }
  double seconds = median(times) / 1e3;
  if (seconds <= 0)
    return makeError(ErrorCode::InvalidArgument,
                     what + " was too fast to time; use a larger size");
  return 2.0 * double(bytes) / seconds;
}

} // namespace stride
