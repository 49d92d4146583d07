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

/// Two CUDA events, destroyed with the object.
class EventPair {
public:
  explicit EventPair(const CudaDriver &cu) : cu(cu) {}
  ~EventPair() {
    if (start)
      cu.cuEventDestroy(start);
    if (stop)
      cu.cuEventDestroy(stop);
  }

  Status create() {
    CUresult r = cu.cuEventCreate(&start, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS)
      r = cu.cuEventCreate(&stop, CU_EVENT_DEFAULT);
    return failure("cuEventCreate", r);
  }

  /// Milliseconds between start and stop, once stop has happened.
  Result<double> elapsedMs(const std::string &what) {
    CUresult r = cu.cuEventSynchronize(stop);
    float ms = 0;
    if (r == CUDA_SUCCESS)
      r = cu.cuEventElapsedTime(&ms, start, stop);
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
  CUevent start = nullptr, stop = nullptr;
};

/// The mean time of kLaunchesPerTimedSample launches between two events.
Result<double> timedSample(Invocation &invocation, EventPair &events) {
  auto stream = static_cast<CUstream>(invocation.stream());
  if (Status s = events.failure("cuEventRecord",
                                events.cu.cuEventRecord(events.start, stream));
      !s)
    return s.error();
  for (int i = 0; i < kLaunchesPerTimedSample; ++i)
    if (Status s = invocation.launch(); !s)
      return s.error();
  if (Status s = events.failure("cuEventRecord",
                                events.cu.cuEventRecord(events.stop, stream));
      !s)
    return s.error();
  Result<double> ms = events.elapsedMs(invocation.executable().name() +
                                       ": the plan during the benchmark");
  if (!ms)
    return ms;
  return *ms / kLaunchesPerTimedSample;
}

} // namespace

Result<BenchResult> benchmarkInvocation(Invocation &invocation,
                                        const std::vector<HostArray> &inputs,
                                        int warmup, int iters) {
  if (warmup < 0 || iters < 1)
    return makeError(ErrorCode::InvalidArgument,
                     "a benchmark needs warmup >= 0 and iterations >= 1, got " +
                         str(warmup) + " and " + str(iters));
  Result<const CudaDriver *> cu = loadCudaDriver();
  if (!cu)
    return cu.error();
  if (Status s = invocation.upload(inputs); !s)
    return s.error();
  for (int i = 0; i < warmup + 1; ++i) // +1: a CUDA graph is captured here
    if (Status s = invocation.launch(); !s)
      return s.error();
  if (Status s = invocation.synchronize(); !s)
    return s.error();
  EventPair events(**cu);
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

Result<BenchResult>
benchmarkExecutable(const std::shared_ptr<const Executable> &executable,
                    const std::vector<HostArray> &inputs, int warmup, int iters,
                    bool useCudaGraph) {
  InvocationOptions options;
  options.useCudaGraph = useCudaGraph;
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
  EventPair events(cu);
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
    CUresult r = cu.cuEventRecord(events.start, nullptr);
    if (!r)
      r = cu.cuMemcpyDtoDAsync(dst.address, src.address, bytes, nullptr);
    if (!r)
      r = cu.cuEventRecord(events.stop, nullptr);
    if (Status s = events.failure(what, r); !s)
      return s.error();
    Result<double> ms = events.elapsedMs(what);
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
