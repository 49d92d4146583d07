// The probes' shared timing (ceiling.cu, rows.cu): stride-run-gpu --bench's
// method, a CUDA graph replayed 10 times back to back per sample, the
// median of 40 samples, and the copy kernel whose bandwidth is the floor.
#ifndef STRIDE_BENCH_CEILING_TIMING_H
#define STRIDE_BENCH_CEILING_TIMING_H

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CHECK_CUDA(x)                                                          \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "ceiling: %s at %s:%d\n", cudaGetErrorString(e),    \
                   __FILE__, __LINE__);                                        \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// b = a, one float4 per thread, a grid of every element (the fastest copy
// we found: grid-stride copies with 4 loads in flight were 2-7% slower).
static __global__ void __launch_bounds__(256)
    copyKernel(const float4 *__restrict__ a, float4 *__restrict__ b,
               long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = a[i];
}

// Median microseconds of one replay of the instantiated graph `exec` on
// `stream`: 40 samples, each the mean of 10 back-to-back replays
// (stride-run-gpu --bench's method), after 5 replays to warm up.
inline double timeGraphExec(cudaGraphExec_t exec, cudaStream_t stream) {
  for (int i = 0; i < 5; ++i)
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
  cudaEvent_t start, end;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&end));
  std::vector<double> samples;
  for (int s = 0; s < 40; ++s) {
    CHECK_CUDA(cudaEventRecord(start, stream));
    for (int i = 0; i < 10; ++i)
      CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaEventRecord(end, stream));
    CHECK_CUDA(cudaEventSynchronize(end));
    float ms;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, end));
    samples.push_back(ms * 100.0); // mean of 10, in microseconds
  }
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(end));
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// Median microseconds of one replay of `graph` on `stream`, instantiated
// (timeGraphExec); the graph is destroyed.
inline double timeAndDestroyGraph(cudaGraph_t graph, cudaStream_t stream) {
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  const double us = timeGraphExec(exec, stream);
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  return us;
}

// What `enqueue` puts on `stream`, captured as a CUDA graph.
inline cudaGraph_t captureGraph(const std::function<void(cudaStream_t)> &enqueue,
                                cudaStream_t stream) {
  cudaGraph_t graph;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  enqueue(stream);
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  return graph;
}

// Median microseconds of one replay of what `enqueue` puts on a stream,
// captured as a CUDA graph (timeGraphExec).
inline double timeGraph(const std::function<void(cudaStream_t)> &enqueue) {
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const double us = timeAndDestroyGraph(captureGraph(enqueue, stream), stream);
  CHECK_CUDA(cudaStreamDestroy(stream));
  return us;
}

// The bandwidth (bytes per second, read + write) of copyKernel copying
// `bytes` (a multiple of 16) from a to b, timed as above: the floor's
// reference. A kernel, as PyTorch's copy_ is: a cudaMemcpyAsync node of a
// CUDA graph goes to a copy engine, about 20% slower on an H100.
inline double copyBandwidthOf(const float4 *a, float4 *b, long long bytes) {
  const long long n = bytes / 16;
  double us = timeGraph([&](cudaStream_t s) {
    copyKernel<<<(n + 255) / 256, 256, 0, s>>>(a, b, n);
  });
  return 2.0 * bytes / (us * 1e-6);
}

#endif // STRIDE_BENCH_CEILING_TIMING_H
