//===- LibraryTiming.h - Timing a library call's candidates -----*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Runtime: how the routines' LibraryCallInstance::tune
// (cuBLASLt's algorithms, CublasLtMatmul.cpp; cuDNN's attention plans,
// CudnnSdpa.cpp) time each candidate way of doing a call: one untimed
// call, then kTuningTimedCalls calls between two CUDA events on the step's
// stream, waited for; the routine keeps the candidate of the least mean.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_RUNTIME_LIBRARYTIMING_H
#define STRIDE_LIB_RUNTIME_LIBRARYTIMING_H

#include "CudaDriver.h"
#include "RuntimeImpl.h"

#include <string>

namespace stride {

/// The timed calls of each candidate.
constexpr int kTuningTimedCalls = 3;

/// Two events, destroyed with the object.
struct TimingEvents {
  explicit TimingEvents(const CudaDriver &cu) : cu(cu) {}
  ~TimingEvents() {
    for (CUevent e : {start, end})
      if (e)
        cu.cuEventDestroy(e);
  }
  TimingEvents(const TimingEvents &) = delete;
  TimingEvents &operator=(const TimingEvents &) = delete;
  CUresult create() {
    CUresult r = cu.cuEventCreate(&start, CU_EVENT_DEFAULT);
    return r == CUDA_SUCCESS ? cu.cuEventCreate(&end, CU_EVENT_DEFAULT) : r;
  }
  const CudaDriver &cu;
  CUevent start = nullptr, end = nullptr;
};

/// The mean milliseconds of kTuningTimedCalls calls of `call` (a function
/// returning Status that enqueues one call on `stream`), after one
/// untimed; waits for `stream`. A call's error is returned as it is; a
/// driver error's message starts with "timing <what>: ".
template <typename Call>
Result<double> timeLibraryCalls(const CudaDriver &cu, CUstream stream,
                                const std::string &what, Call &&call) {
  TimingEvents events(cu);
  CUresult r = events.create();
  if (r == CUDA_SUCCESS)
    if (Status s = call(); !s)
      return s.error();
  if (r == CUDA_SUCCESS)
    r = cu.cuEventRecord(events.start, stream);
  for (int i = 0; r == CUDA_SUCCESS && i < kTuningTimedCalls; ++i)
    if (Status s = call(); !s)
      return s.error();
  if (r == CUDA_SUCCESS)
    r = cu.cuEventRecord(events.end, stream);
  if (r == CUDA_SUCCESS)
    r = cu.cuEventSynchronize(events.end);
  float ms = 0;
  if (r == CUDA_SUCCESS)
    r = cu.cuEventElapsedTime(&ms, events.start, events.end);
  if (r != CUDA_SUCCESS)
    return makeError(cudaErrorCode(r),
                     "timing " + what + ": " + cu.errorText(r));
  return double(ms) / kTuningTimedCalls;
}

} // namespace stride

#endif // STRIDE_LIB_RUNTIME_LIBRARYTIMING_H
