// The staged decode attention as the backend prints it, timed beside the
// probe form it was printed from (tiled_decode_probe.cu's sliced form) and
// between stand-ins of the skinny products around it in the step
// (bench/NOTES.md sections 78 and 79). Section 78's step was slower with the
// printed kernel than with cuDNN although the probe form was faster than
// cuDNN alone; this separates the two causes: the printed code (alone, each
// launch with a cache of its own) and the kernels around it (a product
// stand-in before each attention, with and without one shared-memory
// carveout for both kernels, so that no multiprocessor changes its L1 and
// shared split between them).
//
// Build and run on the GPU machine, from this folder, with the portable
// stridec of the bundle:
//   stridec --no-cache --decode-attention=staged --emit=cuda \
//     staged_attention_step.mlir > printed_attention.cu
//   nvcc -O3 -arch=sm_90 -o printed printed_attention_probe.cu && ./printed
// PRINTED_SLICES, PRINTED_THREADS and PRINTED_SHARED_BYTES are the printed
// kernel's blocks a unit, threads a block and dynamic shared memory (its plan's grid / 8 and shared: stridec
// --inspect); -DPRINTED_ATTENTION="file.cu" times another printed file.
// PROBE_POSITION=N runs position N alone (for a profiler); PROBE_AFTER=1
// times the O projection's stand-in after the attention instead, its
// weights loaded before its wait (bench/NOTES.md section 80).
#include "decode_probe.h"

#ifndef PRINTED_ATTENTION
#define PRINTED_ATTENTION "printed_attention.cu"
#endif
#include PRINTED_ATTENTION // attention_0, generated as above

#include <cstdint>
#include <cstdlib>
#include <vector>

constexpr int SLICES = 16, CHUNK = 64, THREADS = 128, IN_FLIGHT = 8;
// The printed kernel's blocks a unit (the backend's kStagedKvSlices) and
// dynamic shared memory (kStagedKvBuffers chunks of 64 keys' rows); its
// scratch holds as many states a unit, laid out as the probe's.
#ifndef PRINTED_SLICES
#define PRINTED_SLICES 16
#endif
#ifndef PRINTED_THREADS
#define PRINTED_THREADS 128
#endif
#ifndef PRINTED_SHARED_BYTES
#define PRINTED_SHARED_BYTES 67584
#endif
#define TILED_DECODE_PROBE_NO_MAIN
#include "tiled_decode_probe.cu"

// A stand-in of a skinny product (the O projection: 4096 x 4096 bf16, 33.5
// MB): a warp a column of a row-major weight, 16-byte loads, an f32 sum;
// no shared memory; a dependent launch that waits first, as the backend's.
constexpr int PRODUCT_K = 4096, PRODUCT_N = 4096, PRODUCT_WARPS = 8;

// The warp's sum of its lanes' `sum`, stored as column `column` of `y`.
__device__ inline void storeColumn(__nv_bfloat16 *y, int column, float sum) {
  sum = warpSum(sum);
  if (threadIdx.x % 32 == 0)
    y[column] = __float2bfloat16(sum);
}

__global__ void __launch_bounds__(PRODUCT_WARPS * 32)
    productStandIn(const __nv_bfloat16 *x, const __nv_bfloat16 *w,
                   __nv_bfloat16 *y) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  const int column = blockIdx.x * PRODUCT_WARPS + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const uint4 *row = reinterpret_cast<const uint4 *>(w + size_t(column) * PRODUCT_K);
  const uint4 *xs = reinterpret_cast<const uint4 *>(x);
  float sum = 0.0f;
#pragma unroll 4
  for (int i = lane; i < PRODUCT_K / 8; i += 32)
    sum += dot8(__ldg(row + i), __ldg(xs + i));
  storeColumn(y, column, sum);
}

// The same product loading the first EARLY of its lane's 16-byte weight
// chunks (of PRODUCT_K / 8 / 32) into registers before it waits: the
// weight is a constant, and the attention before it leaves the memory
// mostly idle (launched early where that attention triggers it).
template <int EARLY>
__global__ void __launch_bounds__(PRODUCT_WARPS * 32)
    productEarlyWeights(const __nv_bfloat16 *x, const __nv_bfloat16 *w,
                        __nv_bfloat16 *y) {
  constexpr int kChunks = PRODUCT_K / 8 / 32;
  const int column = blockIdx.x * PRODUCT_WARPS + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const uint4 *row = reinterpret_cast<const uint4 *>(w + size_t(column) * PRODUCT_K);
  uint4 held[EARLY > 0 ? EARLY : 1];
#pragma unroll
  for (int i = 0; i < EARLY; ++i)
    held[i] = __ldg(row + lane + 32 * i);
  asm volatile("griddepcontrol.wait;" ::: "memory");
  const uint4 *xs = reinterpret_cast<const uint4 *>(x);
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < kChunks; ++i) {
    uint4 a = i < EARLY ? held[i < EARLY ? i : 0] : __ldg(row + lane + 32 * i);
    sum += dot8(a, xs[lane + 32 * i]);
  }
  storeColumn(y, column, sum);
}

// The product stand-ins' inputs: a weight per cache copy.
struct Products {
  __nv_bfloat16 *x = nullptr, *y = nullptr, *w[COPIES];
  Products() {
    CHECK_CUDA(cudaMalloc(&x, PRODUCT_K * 2));
    CHECK_CUDA(cudaMemset(x, 0, PRODUCT_K * 2));
    CHECK_CUDA(cudaMalloc(&y, PRODUCT_N * 2));
    for (auto &weight : w) {
      CHECK_CUDA(cudaMalloc(&weight, size_t(PRODUCT_K) * PRODUCT_N * 2));
      CHECK_CUDA(cudaMemset(weight, 0, size_t(PRODUCT_K) * PRODUCT_N * 2));
    }
  }
  // productEarlyWeights<early> (early >= 0), else productStandIn.
  void launchEarly(cudaStream_t s, int copy, int early) const {
    LaunchShape shape{PRODUCT_N / PRODUCT_WARPS, PRODUCT_WARPS * 32, 0, true};
    const __nv_bfloat16 *in = x, *weight = w[copy];
    switch (early) {
    case 0: launchKernel(productEarlyWeights<0>, shape, s, in, weight, y); break;
    case 4: launchKernel(productEarlyWeights<4>, shape, s, in, weight, y); break;
    case 8: launchKernel(productEarlyWeights<8>, shape, s, in, weight, y); break;
    case 16: launchKernel(productEarlyWeights<16>, shape, s, in, weight, y); break;
    default: launch(s, copy);
    }
  }
  void launch(cudaStream_t s, int copy) const {
    launchKernel(productStandIn,
                 LaunchShape{PRODUCT_N / PRODUCT_WARPS, PRODUCT_WARPS * 32, 0, true},
                 s, (const __nv_bfloat16 *)x, (const __nv_bfloat16 *)w[copy], y);
  }
};

// An attention of `c` at one cache copy: the printed kernel or the probe's.
struct Attention {
  const DecodeCase &c;
  bool printed;
  float *scratch;
  unsigned *tickets;
  int *validKeys;
  size_t bytes;
  Attention(const DecodeCase &c, bool printed) : c(c), printed(printed) {
    const size_t scratchBytes = size_t(c.units) * PRINTED_SLICES * G * STATE * 4 + 16;
    CHECK_CUDA(cudaMalloc(&scratch, scratchBytes));
    CHECK_CUDA(cudaMemset(scratch, 0, scratchBytes));
    CHECK_CUDA(cudaMalloc(&tickets, c.units * 4));
    CHECK_CUDA(cudaMemset(tickets, 0, c.units * 4));
    CHECK_CUDA(cudaMalloc(&validKeys, 4));
    int valid = int(c.valid);
    CHECK_CUDA(cudaMemcpy(validKeys, &valid, 4, cudaMemcpyHostToDevice));
    bytes = printed ? PRINTED_SHARED_BYTES : slicedSharedBytes<SLICES, CHUNK, 2>();
    CHECK_CUDA(cudaFuncSetAttribute(kernel(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(bytes)));
  }
  ~Attention() {
    cudaFree(scratch);
    cudaFree(tickets);
    cudaFree(validKeys);
  }
  const void *kernel() const {
    return printed ? (const void *)attention_0
                   : (const void *)slicedDecode<SLICES, CHUNK, THREADS, IN_FLIGHT, 2>;
  }
  void launch(cudaStream_t s, int copy) const {
    LaunchShape shape{c.units * (printed ? PRINTED_SLICES : SLICES), printed ? PRINTED_THREADS : THREADS,
                      bytes, true};
    if (printed)
      launchKernel(attention_0, shape, s, (const __nv_bfloat16 *)c.q,
                   (const __nv_bfloat16 *)c.k[copy], (const __nv_bfloat16 *)c.v[copy],
                   (const int *)validKeys, c.o, (int *)scratch, (int *)tickets);
    else
      launchKernel(slicedDecode<SLICES, CHUNK, THREADS, IN_FLIGHT, 2>, shape, s,
                   (const __nv_bfloat16 *)c.q, (const __nv_bfloat16 *)c.k[copy],
                   (const __nv_bfloat16 *)c.v[copy], (const long long *)c.len, c.o,
                   scratch, tickets, kScale);
  }
};

// Both kernels' preferred carveout (percent of the multiprocessor's
// unified L1 and shared memory; -1 leaves the driver's default).
void setCarveout(const Attention &a, int percent) {
  CHECK_CUDA(cudaFuncSetAttribute(a.kernel(), cudaFuncAttributePreferredSharedMemoryCarveout,
                                  percent));
  CHECK_CUDA(cudaFuncSetAttribute((const void *)productStandIn,
                                  cudaFuncAttributePreferredSharedMemoryCarveout, percent));
}

// PROBE_AFTER=1: the product after the attention, its weights loaded
// before its wait (EARLY chunks a lane); with the attention printed under
// STRIDE_EARLY_LAUNCH 1 it triggers the product's launch as it starts.
int productAfterAttention(Products &products) {
  std::printf("| position | attention alone us | product alone us | early chunks a lane | "
              "attention then product us | over the attention |\n|---|---|---|---|---|---|\n");
  for (long long position : {1024LL, 4000LL}) {
    DecodeCase c(1, position);
    Attention a(c, true);
    double alone = timePerLaunch([&](cudaStream_t s, int copy) { a.launch(s, copy); });
    double productAlone =
        timePerLaunch([&](cudaStream_t s, int copy) { products.launchEarly(s, copy, 0); });
    for (int early : {0, 4, 8, 16}) {
      double chained = timePerLaunch([&](cudaStream_t s, int copy) {
        a.launch(s, copy);
        products.launchEarly(s, copy, early);
      });
      std::printf("| %lld | %.2f | %.2f | %d | %.2f | %.2f |\n", position, alone, productAlone,
                  early, chained, chained - alone);
    }
  }
  return 0;
}

int main() {
  Products products;
  if (std::getenv("PROBE_AFTER"))
    return productAfterAttention(products);
  std::printf("| position | attention | carveout %% | alone us | max |diff| vs f64 | "
              "product stand-in alone us | after a product stand-in, us over "
              "the stand-in |\n|---|---|---|---|---|---|---|\n");
  // PROBE_POSITION=N times position N alone (a profiler's run).
  std::vector<long long> positions = {1024LL, 4000LL, 100LL};
  if (const char *only = std::getenv("PROBE_POSITION"))
    positions = {std::atoll(only)};
  for (long long position : positions) {
    DecodeCase c(1, position);
    for (bool printed : {false, true})
      for (int carveout : {-1, 44, 100}) {
        Attention a(c, printed);
        setCarveout(a, carveout);
        a.launch(0, 0);
        CHECK_CUDA(cudaDeviceSynchronize());
        double diff = c.maxDiff();
        double alone = timePerLaunch([&](cudaStream_t s, int copy) { a.launch(s, copy); });
        double productsAlone = timePerLaunch(
            [&](cudaStream_t s, int copy) { products.launch(s, copy); });
        double chained = timePerLaunch([&](cudaStream_t s, int copy) {
          products.launch(s, copy);
          a.launch(s, copy);
        });
        std::printf("| %lld | %s | %d | %.2f | %.4f | %.2f | %.2f |\n", position,
                    printed ? "printed" : "probe", carveout, alone, diff,
                    productsAlone, chained - productsAlone);
      }
  }
  return 0;
}
