// The decode step's chain of skinny products, shared by the probes that
// time it (persistent_chain_probe.cu, product_forms_probe.cu,
// overlap_chain_probe.cu): its 17
// products at bench/decode's dims (per layer Q/K/V 6,144 x 4,096, O 4,096
// x 4,096, gate/up 28,672 x 4,096, down 4,096 x 14,336; 4 layers; the LM
// head 32,000 x 4,096), bf16, one row, each product's input the previous
// one's output, every weight distinct (1.9 GB: nothing stays in L2);
// Stride's skinny form of a product as a warp's columns, its kernel and
// the chain of them as dependent launches (the backend's); and the read
// ceiling's kernel.
#ifndef STRIDE_BENCH_DECODE_CHAIN_PRODUCTS_H
#define STRIDE_BENCH_DECODE_CHAIN_PRODUCTS_H

#include "decode_probe.h"

#include <vector>

namespace {

constexpr int kThreads = 128, kWarps = kThreads / 32;
constexpr int kStepElements = 32 * 8; // a warp's 16-byte loads of one step
// Steps of each column a warp loads before the barrier (registers: 4
// 16-byte loads a lane either way).
__host__ __device__ constexpr int earlySteps(int tile) { return tile >= 4 ? 1 : 4; }
constexpr int kMaxProducts = 17;

struct Product {
  const __nv_bfloat16 *weight; // [n, k], rows contiguous
  const __nv_bfloat16 *x;      // [k]
  __nv_bfloat16 *y;            // [n]
  int k, n;
};
struct Chain {
  Product p[kMaxProducts];
  int count;
};

// TILE adjacent columns of `p` from `c0` by a warp, their loads of a step
// issued together; the first EARLY steps' weights are `early` where
// `haveEarly`.
// A weight's 16-byte word: KEEP 0 __ldg; 1 a volatile load, 2 a relaxed
// load at GPU scope. ptxas moves each __ldg down to its use (the SASS of
// the batched loop below keeps one step's loads ahead); it keeps volatile
// and relaxed loads in program order, so all of a batch's loads issue
// before its first sum.
template <int KEEP> __device__ inline uint4 loadWeight(const uint4 *address) {
  if constexpr (KEEP == 0)
    return __ldg(address);
  uint4 w;
  if constexpr (KEEP == 1)
    asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
                 : "l"(address));
  else
    asm volatile("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
                 : "l"(address));
  return w;
}

template <int TILE, int EARLY = earlySteps(TILE), int UNROLL = 4, int KEEP = 0>
__device__ void columns(const Product &p, int c0,
                        const uint4 (&early)[EARLY][TILE], bool haveEarly) {
  const int lane = threadIdx.x % 32;
  const uint4 *x = reinterpret_cast<const uint4 *>(p.x);
  const int steps = p.k / kStepElements;
  float sum[TILE] = {};
  int s = 0;
  if (haveEarly)
    for (; s < EARLY && s < steps; ++s)
#pragma unroll
      for (int j = 0; j < TILE; ++j)
        sum[j] += dot8(early[s][j], x[s * 32 + lane]);
  // Past 4, UNROLL steps' loads are all issued before any is used.
  if constexpr (UNROLL > 4) {
    for (; s + UNROLL <= steps; s += UNROLL) {
      uint4 w[UNROLL][TILE];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
#pragma unroll
        for (int j = 0; j < TILE; ++j)
          w[u][j] = loadWeight<KEEP>(reinterpret_cast<const uint4 *>(p.weight + size_t(c0 + j) * p.k) +
                          (s + u) * 32 + lane);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const uint4 xs = x[(s + u) * 32 + lane];
#pragma unroll
        for (int j = 0; j < TILE; ++j)
          sum[j] += dot8(w[u][j], xs);
      }
    }
  }
#pragma unroll 4
  for (; s < steps; ++s) {
    uint4 w[TILE];
#pragma unroll
    for (int j = 0; j < TILE; ++j)
      w[j] = __ldg(reinterpret_cast<const uint4 *>(p.weight + size_t(c0 + j) * p.k) +
                   s * 32 + lane);
    const uint4 xs = x[s * 32 + lane];
#pragma unroll
    for (int j = 0; j < TILE; ++j)
      sum[j] += dot8(w[j], xs);
  }
#pragma unroll
  for (int j = 0; j < TILE; ++j) {
    sum[j] = warpSum(sum[j]);
    if (lane == j)
      p.y[c0 + j] = __float2bfloat16(sum[j]);
  }
}

// The first EARLY steps' weights of the TILE columns from `c0` (a lane's
// 16-byte words), loaded ahead of a wait: no product writes its weight.
template <int TILE, int EARLY = earlySteps(TILE)>
__device__ void loadEarly(const Product &p, int c0, int lane, uint4 (&early)[EARLY][TILE]) {
#pragma unroll
  for (int s = 0; s < EARLY; ++s)
#pragma unroll
    for (int j = 0; j < TILE; ++j)
      early[s][j] = __ldg(reinterpret_cast<const uint4 *>(p.weight + size_t(c0 + j) * p.k) +
                          s * 32 + lane);
}

// Stride's choice (Scheduler.h, kWideSkinnyColumns): 4 columns a warp from
// 8,192 columns, else 1.
__host__ __device__ inline int tileOf(const Product &p) { return p.n >= 8192 ? 4 : 1; }

// A warp a group of tileOf(p) columns.
__device__ void productColumns(const Product &p) {
  const int group = blockIdx.x * kWarps + threadIdx.x / 32;
  if (tileOf(p) == 4) {
    const uint4 none[earlySteps(4)][4] = {};
    if (group * 4 < p.n)
      columns<4>(p, group * 4, none, false);
  } else {
    const uint4 none[earlySteps(1)][1] = {};
    if (group < p.n)
      columns<1>(p, group, none, false);
  }
}

// A kernel a product. It waits for the grid ahead first, as the backend's
// kernels do (a plain launch finds that grid ended); with TRIGGER it lets
// the next grid launch at once (the backend's early trigger toward a small
// grid after it).
template <bool TRIGGER = false>
__global__ void __launch_bounds__(kThreads) productKernel(Product p) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (TRIGGER)
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  productColumns(p);
}

// The blocks of a product's kernel: a warp a group of tileOf(p) columns.
int productBlocks(const Product &p) { return (p.n / tileOf(p) + kWarps - 1) / kWarps; }

struct Buffers {
  std::vector<__nv_bfloat16 *> weights;
  __nv_bfloat16 *activations[kMaxProducts + 1];
  Chain chain;
  size_t bytes = 0;
};

// A product's kernel, as a dependent launch where `dependent`.
void launchProduct(const Product &p, cudaStream_t s, bool dependent,
                   bool trigger = false) {
  LaunchShape shape{productBlocks(p), kThreads, 0, dependent};
  if (trigger)
    launchKernel(productKernel<true>, shape, s, p);
  else
    launchKernel(productKernel<false>, shape, s, p);
}

// The chain, a kernel a product; every launch but the first dependent
// where `dependent`.
void launchKernels(const Buffers &b, cudaStream_t s, bool dependent) {
  for (int i = 0; i < b.chain.count; ++i)
    launchProduct(b.chain.p[i], s, dependent && i > 0);
}

Buffers makeChain() {
  const int layers = 4, width = 4096, qkv = 6144, inner = 14336, vocab = 32000;
  std::vector<std::pair<int, int>> shapes; // (k, n)
  for (int l = 0; l < layers; ++l) {
    shapes.push_back({width, qkv});
    shapes.push_back({width, width});
    shapes.push_back({width, 2 * inner});
    shapes.push_back({inner, width});
  }
  shapes.push_back({width, vocab});
  Buffers b;
  b.chain.count = int(shapes.size());
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<__nv_bfloat16> host;
  CHECK_CUDA(cudaMalloc(&b.activations[0], width * 2));
  host.resize(width);
  for (auto &x : host)
    x = __float2bfloat16(normal(rng) * 50.0f);
  CHECK_CUDA(cudaMemcpy(b.activations[0], host.data(), width * 2, cudaMemcpyHostToDevice));
  for (int i = 0; i < b.chain.count; ++i) {
    auto [k, n] = shapes[i];
    size_t elements = size_t(k) * n;
    __nv_bfloat16 *w;
    CHECK_CUDA(cudaMalloc(&w, elements * 2));
    // A pattern of a few distinct rows: filling 2 GB from the host is slow.
    host.resize(size_t(k) * 64);
    for (auto &x : host)
      x = __float2bfloat16(normal(rng));
    for (int r = 0; r < n; r += 64)
      CHECK_CUDA(cudaMemcpy(w + size_t(r) * k, host.data(),
                            size_t(std::min(64, n - r)) * k * 2, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMalloc(&b.activations[i + 1], size_t(n) * 2));
    b.weights.push_back(w);
    b.chain.p[i] = {w, b.activations[i], b.activations[i + 1], k, n};
    b.bytes += elements * 2;
  }
  return b;
}

// The chain's floor in us (its weights over the copy bandwidth of a 1 GiB
// copy, copyBandwidthOf), and that bandwidth in bytes a second.
struct ChainFloor {
  double bandwidth, us;
};
ChainFloor chainFloor(const Buffers &b) {
  float4 *copyA, *copyB;
  const long long copyBytes = 1ll << 30;
  CHECK_CUDA(cudaMalloc(&copyA, copyBytes));
  CHECK_CUDA(cudaMalloc(&copyB, copyBytes));
  const double bandwidth = copyBandwidthOf(copyA, copyB, copyBytes);
  CHECK_CUDA(cudaFree(copyA));
  CHECK_CUDA(cudaFree(copyB));
  return {bandwidth, b.bytes / bandwidth * 1e6};
}

std::vector<__nv_bfloat16> output(const Buffers &b) {
  const Product &last = b.chain.p[b.chain.count - 1];
  std::vector<__nv_bfloat16> y(last.n);
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy(y.data(), last.y, last.n * 2, cudaMemcpyDeviceToHost));
  return y;
}

// The read ceiling's kernel: `chunks` 16-byte words of `weight` read by
// the grid in turn (block b's threads at b * blockDim.x + t, then a grid
// further on), xor-ed together so that no load is dropped; a block writes
// its xor only if it is a value no random weight gives, which the
// compiler cannot know. With TRIGGER the next grid may launch once this
// one has waited (its blocks placed as this one's leave); with WAIT false the
// kernel does not wait for the grid before it at all (weights are
// constants: the bound of overlapping the kernels' ends and starts); with
// EARLY > 0 each thread loads its first EARLY words into registers before
// it waits (what a product can do: its weights are constants, only its
// activations come from the grid before it); with TRIGGER_FIRST the next
// grid may launch as this one starts, before its early loads
// (overlap_chain_probe.cu).
template <bool TRIGGER = false, bool WAIT = true, int EARLY = 0, bool TRIGGER_FIRST = false>
__global__ void __launch_bounds__(256) readKernel(const uint4 *weight, size_t chunks,
                                                  unsigned *sink) {
  if (TRIGGER_FIRST)
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned x = 0;
  uint4 early[EARLY > 0 ? EARLY : 1];
#pragma unroll
  for (int e = 0; e < EARLY; ++e)
    early[e] = i + e * stride < chunks ? __ldg(weight + i + e * stride) : uint4{};
  if (WAIT)
    asm volatile("griddepcontrol.wait;" ::: "memory");
  if (TRIGGER)
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#pragma unroll
  for (int e = 0; e < EARLY; ++e)
    x ^= early[e].x ^ early[e].y ^ early[e].z ^ early[e].w;
  i += EARLY * stride;
#pragma unroll 4
  for (; i < chunks; i += stride) {
    const uint4 w = __ldg(weight + i);
    x ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (x == 0x9e3779b9u)
    sink[blockIdx.x] = x;
}
} // namespace

#endif // STRIDE_BENCH_DECODE_CHAIN_PRODUCTS_H
