// L2 prefetch probe (bench/NOTES.md section 74): can a decode step hide a
// product's weight reads behind a latency-bound kernel (the batch-1
// attention, about 12 us a layer with the memory nearly idle) by
// prefetching the next product's weight into L2 on a second stream?
//
// Each scenario is one CUDA graph, timed as bench/ceiling/timing.h times
// graphs (the median of 40 samples of 10 replays). Every graph starts by streaming a 512 MB buffer (the
// rest of the step's weights, which leave nothing of the weight in L2),
// then runs, in order:
//   read          the weight read once (a product's bytes), cold
//   spin+read     a 12 us latency-bound stand-in for attention, then the read
//   spin||pf+read the stand-in beside a prefetch of the weight on a second
//                 stream (fork and join by events), then the read
//   pf,read       the prefetch, then the read (the read from L2 at best)
// for prefetch forms `bulk` (cp.async.bulk.prefetch.L2, a chunk a thread),
// `line` (prefetch.global.L2::evict_last, a line a thread) and `load`
// (plain 16-byte loads on 16 blocks) and weights of 16, 33.5 and 50 MB.
//
// Build and run on the GPU machine, from this folder:
//   nvcc -O3 -arch=sm_90 -o l2 l2_prefetch_probe.cu && ./l2
#include "../ceiling/timing.h"

#include <cuda_runtime.h>

__global__ void streamRead(const uint4 *p, size_t n, unsigned *sink) {
  unsigned acc = 0;
  size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    uint4 a = __ldg(p + i), b = __ldg(p + i + stride),
          c = __ldg(p + i + 2 * stride), d = __ldg(p + i + 3 * stride);
    acc ^= a.x ^ b.y ^ c.z ^ d.w;
  }
  for (; i < n; i += stride) acc ^= __ldg(p + i).x;
  if (acc == 0x9e3779b9u) *sink = acc;
}

__global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// One chunk of `chunk` bytes a thread, through the copy engine.
__global__ void prefetchBulk(const char *p, size_t bytes, unsigned chunk) {
  size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  size_t threads = size_t(gridDim.x) * blockDim.x;
  for (size_t off = t * chunk; off < bytes; off += threads * chunk) {
    unsigned size = bytes - off < chunk ? unsigned(bytes - off) : chunk;
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p + off),
                 "r"(size)
                 : "memory");
  }
}

__global__ void prefetchLines(const char *p, size_t bytes) {
  size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  size_t threads = size_t(gridDim.x) * blockDim.x;
  for (size_t off = t * 128; off < bytes; off += threads * 128)
    asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(p + off));
}

enum class Form { Bulk, Line, Load };
const char *formName(Form f) {
  return f == Form::Bulk ? "bulk" : f == Form::Line ? "line" : "load";
}

struct Buffers {
  char *flush;
  size_t flushBytes;
  char *weight;
  unsigned *sink;
  int sms;
};

void launchRead(const Buffers &b, const char *p, size_t bytes,
                cudaStream_t s) {
  streamRead<<<b.sms * 4, 256, 0, s>>>(reinterpret_cast<const uint4 *>(p),
                                       bytes / 16, b.sink);
}

void launchPrefetch(const Buffers &b, Form form, size_t bytes,
                    cudaStream_t s) {
  switch (form) {
  case Form::Bulk:
    prefetchBulk<<<4, 128, 0, s>>>(b.weight, bytes, 32768);
    break;
  case Form::Line:
    prefetchLines<<<16, 512, 0, s>>>(b.weight, bytes);
    break;
  case Form::Load:
    streamRead<<<16, 512, 0, s>>>(reinterpret_cast<const uint4 *>(b.weight),
                                   bytes / 16, b.sink);
    break;
  }
}

enum class Scenario { Flush, Read, SpinRead, SpinBesidePrefetchRead, PrefetchThenRead, SpinOnly };

// Median microseconds of one replay of the scenario's graph (timeGraph).
float timeScenario(const Buffers &b, Scenario sc, Form form, size_t bytes,
                   long long spinCycles) {
  cudaStream_t side;
  CHECK_CUDA(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CHECK_CUDA(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK_CUDA(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  double us = timeGraph([&](cudaStream_t main) {
    launchRead(b, b.flush, b.flushBytes, main);
    switch (sc) {
    case Scenario::Flush:
      break;
    case Scenario::Read:
      launchRead(b, b.weight, bytes, main);
      break;
    case Scenario::SpinOnly:
      spin<<<8, 32, 0, main>>>(spinCycles);
      break;
    case Scenario::SpinRead:
      spin<<<8, 32, 0, main>>>(spinCycles);
      launchRead(b, b.weight, bytes, main);
      break;
    case Scenario::SpinBesidePrefetchRead:
      CHECK_CUDA(cudaEventRecord(fork, main));
      CHECK_CUDA(cudaStreamWaitEvent(side, fork, 0));
      launchPrefetch(b, form, bytes, side);
      CHECK_CUDA(cudaEventRecord(join, side));
      spin<<<8, 32, 0, main>>>(spinCycles);
      launchRead(b, b.weight, bytes, main);
      CHECK_CUDA(cudaStreamWaitEvent(main, join, 0));
      break;
    case Scenario::PrefetchThenRead:
      launchPrefetch(b, form, bytes, main);
      launchRead(b, b.weight, bytes, main);
      break;
    }
  });
  CHECK_CUDA(cudaEventDestroy(fork));
  CHECK_CUDA(cudaEventDestroy(join));
  CHECK_CUDA(cudaStreamDestroy(side));
  return float(us);
}

int main() {
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  Buffers b;
  b.sms = prop.multiProcessorCount;
  b.flushBytes = size_t(512) << 20;
  size_t maxWeight = size_t(64) << 20;
  CHECK_CUDA(cudaMalloc(&b.flush, b.flushBytes));
  CHECK_CUDA(cudaMalloc(&b.weight, maxWeight));
  CHECK_CUDA(cudaMalloc(&b.sink, 4));
  CHECK_CUDA(cudaMemset(b.flush, 1, b.flushBytes));
  CHECK_CUDA(cudaMemset(b.weight, 2, maxWeight));
  int clockKhz = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, 0));
  long long spinCycles = (long long)(12e-6 * clockKhz * 1e3);
  std::printf("%s, %d SMs, L2 %d MB, clock %d MHz, spin %lld cycles\n",
              prop.name, b.sms, prop.l2CacheSize >> 20, clockKhz / 1000,
              spinCycles);
  float flush = timeScenario(b, Scenario::Flush, Form::Bulk, 0, spinCycles);
  float spinOnly = timeScenario(b, Scenario::SpinOnly, Form::Bulk, 0, spinCycles);
  std::printf("flush 512 MB: %.1f us (%.2f TB/s); spin alone %.1f us\n", flush,
              b.flushBytes / (flush * 1e-6) / 1e12, spinOnly - flush);
  std::printf("| MB | form | read cold us | spin+read - spin | spin||pf+read - spin | pf,read - pf... (pf,read) us |\n");
  for (double mb : {16.0, 33.5, 50.0}) {
    size_t bytes = size_t(mb * (1 << 20)) / 4096 * 4096;
    float read = timeScenario(b, Scenario::Read, Form::Bulk, bytes, spinCycles) - flush;
    float spinRead = timeScenario(b, Scenario::SpinRead, Form::Bulk, bytes, spinCycles) - spinOnly;
    for (Form form : {Form::Bulk, Form::Line, Form::Load}) {
      float beside = timeScenario(b, Scenario::SpinBesidePrefetchRead, form, bytes, spinCycles) - spinOnly;
      float pfRead = timeScenario(b, Scenario::PrefetchThenRead, form, bytes, spinCycles) - flush;
      std::printf("| %.1f | %s | %.2f | %.2f | %.2f | %.2f |\n", double(mb), formName(form),
                  read, spinRead, beside, pfRead);
    }
  }
  return 0;
}
