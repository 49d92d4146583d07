// Product forms probe (bench/NOTES.md section 84): which form of a skinny
// product streams each of the decode step's product shapes fastest in a
// chain of dependent launches, against reading the same weights?
//
// For each shape of chain_products.h's chain (the step's 4 Q/K/V, 4 O, 4
// gate/up and 4 down products, or the LM head) the products alone as
// dependent launches, in forms that differ in the columns a warp takes
// (1, 2 or 4), the loads a lane issues before it uses any (`__ldg`, which
// ptxas moves down to their use; volatile or relaxed loads, which it keeps
// in order; a cp.async ring in shared memory), the threads a block, one
// balanced resident wave, or K split among 2 to 8 warps of a block (each a
// contiguous part of the column, or adjacent 512-byte steps in turn), the
// parts added through shared memory. Printed: the bytes' floor at the
// copy bandwidth, the same weights only read (chain_products.h's
// readKernel, a grid of resident blocks), and us for each form.
//
// Build and run on the GPU machine, from this folder:
//   nvcc -O3 -arch=sm_90 -o forms product_forms_probe.cu && ./forms
#include "chain_products.h"

namespace {

// A product form for one shape's sub-chain: a warp TILE columns,
// THREADS threads a block, UNROLL steps of loads in flight a lane, a
// block a group of warps (as many blocks as the columns need).
template <int TILE, int UNROLL, int THREADS, int KEEP = 0>
__global__ void __launch_bounds__(THREADS) formKernel(Product p) {
  const uint4 none[earlySteps(TILE)][TILE] = {};
  asm volatile("griddepcontrol.wait;" ::: "memory");
  const int group = blockIdx.x * (THREADS / 32) + threadIdx.x / 32;
  if (group * TILE < p.n)
    columns<TILE, earlySteps(TILE), UNROLL, KEEP>(p, group * TILE, none, false);
}

// K split among SPLIT warps of a block of 4 (a column a warp group of
// SPLIT, 4 / SPLIT columns a block), the parts added through shared
// memory in warp order; UNROLL steps' loads in flight (volatile loads).
template <int SPLIT, int UNROLL, bool INTERLEAVED = false, int THREADS = kThreads>
__global__ void __launch_bounds__(THREADS) splitKernel(Product p) {
  constexpr int kWarps = THREADS / 32;
  __shared__ float part[kWarps];
  asm volatile("griddepcontrol.wait;" ::: "memory");
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int c = blockIdx.x * (kWarps / SPLIT) + warp / SPLIT, piece = warp % SPLIT;
  const int steps = p.k / kStepElements, per = steps / SPLIT;
  const uint4 *x = reinterpret_cast<const uint4 *>(p.x);
  const uint4 *w = reinterpret_cast<const uint4 *>(p.weight + size_t(c) * p.k);
  float sum = 0.0f;
  if constexpr (INTERLEAVED) {
    // The column's SPLIT warps read adjacent 512-byte steps: warp q steps
    // q, q + SPLIT, ... (SPLIT x 512 contiguous bytes at a time).
    int s = piece;
    for (; s + (UNROLL - 1) * SPLIT < steps; s += UNROLL * SPLIT) {
      uint4 v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        v[u] = loadWeight<1>(w + (s + u * SPLIT) * 32 + lane);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        sum += dot8(v[u], x[(s + u * SPLIT) * 32 + lane]);
    }
    for (; s < steps; s += SPLIT)
      sum += dot8(__ldg(w + s * 32 + lane), x[s * 32 + lane]);
  } else {
  int s = piece * per;
  const int end = piece == SPLIT - 1 ? steps : s + per;
  for (; s + UNROLL <= end; s += UNROLL) {
    uint4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      v[u] = loadWeight<1>(w + (s + u) * 32 + lane);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      sum += dot8(v[u], x[(s + u) * 32 + lane]);
  }
  for (; s < end; ++s)
    sum += dot8(__ldg(w + s * 32 + lane), x[s * 32 + lane]);
  }
  sum = warpSum(sum);
  if (lane == 0)
    part[warp] = sum;
  __syncthreads();
  if (piece == 0 && lane == 0) {
    float total = 0.0f;
    for (int q = 0; q < SPLIT; ++q)
      total += part[warp + q];
    p.y[c] = __float2bfloat16(total);
  }
}

// One resident wave, each warp a contiguous run of columns, the runs'
// lengths differing by at most one.
template <int UNROLL>
__global__ void __launch_bounds__(kThreads) balancedKernel(Product p) {
  const uint4 none[earlySteps(1)][1] = {};
  asm volatile("griddepcontrol.wait;" ::: "memory");
  const long long warps = gridDim.x * kWarps, warp = blockIdx.x * kWarps + threadIdx.x / 32;
  const int begin = int(p.n * warp / warps), end = int(p.n * (warp + 1) / warps);
  for (int c = begin; c < end; ++c)
    columns<1, earlySteps(1), UNROLL>(p, c, none, false);
}

// A warp a column, its weight streamed through a ring of STAGES 16-byte
// words a lane in shared memory by cp.async: STAGES loads a lane in flight
// whatever ptxas schedules (each lane reads back only its own words, so no
// barrier).
template <int STAGES>
__global__ void __launch_bounds__(kThreads) asyncKernel(Product p) {
  __shared__ uint4 ring[kWarps][STAGES][32];
  asm volatile("griddepcontrol.wait;" ::: "memory");
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int c = blockIdx.x * kWarps + warp;
  if (c >= p.n)
    return;
  const uint4 *w = reinterpret_cast<const uint4 *>(p.weight + size_t(c) * p.k);
  const uint4 *x = reinterpret_cast<const uint4 *>(p.x);
  const int steps = p.k / kStepElements;
  auto issue = [&](int s) {
    if (s < steps) {
      const unsigned slot = unsigned(__cvta_generic_to_shared(&ring[warp][s % STAGES][lane]));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(slot), "l"(w + s * 32 + lane)
                   : "memory");
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };
  for (int s = 0; s < STAGES; ++s)
    issue(s);
  float sum = 0.0f;
  for (int s = 0; s < steps; ++s) {
    asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 1) : "memory");
    sum += dot8(ring[warp][s % STAGES][lane], x[s * 32 + lane]);
    issue(s + STAGES);
  }
  sum = warpSum(sum);
  if (lane == 0)
    p.y[c] = __float2bfloat16(sum);
}

struct ProductForm {
  const char *name;
  void (*kernel)(Product);
  int tile, threads;
  bool oneWave;
  int split = 1; // warps a column (splitKernel)
};

// The products at `index` of the chain as dependent launches of `form`.
void launchForm(const Buffers &b, const std::vector<int> &index, const ProductForm &form,
                int multiprocessors, cudaStream_t s) {
  for (size_t i = 0; i < index.size(); ++i) {
    const Product &p = b.chain.p[index[i]];
    const int groupsPerBlock = form.threads / 32 / form.split;
    int blocks = (p.n / form.tile + groupsPerBlock - 1) / groupsPerBlock;
    if (form.oneWave) {
      int perSm = 0;
      CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, form.kernel,
                                                               form.threads, 0));
      blocks = std::min(blocks, perSm * multiprocessors);
    }
    launchKernel(form.kernel, LaunchShape{blocks, form.threads, 0, i > 0}, s, p);
  }
}

} // namespace

int main() {
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  Buffers b = makeChain();
  float4 *copyA, *copyB;
  const long long copyBytes = 1ll << 30;
  CHECK_CUDA(cudaMalloc(&copyA, copyBytes));
  CHECK_CUDA(cudaMalloc(&copyB, copyBytes));
  double bandwidth = copyBandwidthOf(copyA, copyB, copyBytes);
  std::printf("%s, %d SMs; copy bandwidth %.2f TB/s\n", prop.name, prop.multiProcessorCount,
              bandwidth / 1e12);
  // Each shape's products alone (the step's 4, or the LM head), as
  // dependent launches, in each form, against reading their weights.
  {
    struct Shape {
      const char *name;
      std::vector<int> index;
    };
    const Shape shapes[] = {{"Q/K/V 6,144 x 4,096", {0, 4, 8, 12}},
                            {"O 4,096 x 4,096", {1, 5, 9, 13}},
                            {"gate/up 28,672 x 4,096", {2, 6, 10, 14}},
                            {"down 4,096 x 14,336", {3, 7, 11, 15}},
                            {"LM head 32,000 x 4,096", {16}}};
    const ProductForm forms[] = {
        {"1 col, unroll 4, 128 thr", formKernel<1, 4, 128>, 1, 128, false},
        {"2 col, unroll 4, 128 thr", formKernel<2, 4, 128>, 2, 128, false},
        {"4 col, unroll 4, 128 thr", formKernel<4, 4, 128>, 4, 128, false},
        {"1 col, 8 loads, 128 thr", formKernel<1, 8, 128>, 1, 128, false},
        {"1 col, 16 loads, 128 thr", formKernel<1, 16, 128>, 1, 128, false},
        {"1 col, 8 volatile loads, 128 thr", formKernel<1, 8, 128, 1>, 1, 128, false},
        {"1 col, 16 volatile loads, 128 thr", formKernel<1, 16, 128, 1>, 1, 128, false},
        {"1 col, 8 relaxed loads, 128 thr", formKernel<1, 8, 128, 2>, 1, 128, false},
        {"1 col, 16 relaxed loads, 128 thr", formKernel<1, 16, 128, 2>, 1, 128, false},
        {"2 col, 8 volatile loads, 128 thr", formKernel<2, 8, 128, 1>, 2, 128, false},
        {"4 col, 8 volatile loads, 128 thr", formKernel<4, 8, 128, 1>, 4, 128, false},
        {"1 col, cp.async ring of 8", asyncKernel<8>, 1, 128, false},
        {"1 col, cp.async ring of 16", asyncKernel<16>, 1, 128, false},
        {"K split in 2 warps, 8 volatile loads", splitKernel<2, 8>, 1, 128, false, 2},
        {"K split in 4 warps, 8 volatile loads", splitKernel<4, 8>, 1, 128, false, 4},
        {"K split in 2 warps, 4 volatile loads", splitKernel<2, 4>, 1, 128, false, 2},
        {"K split in 4 warps interleaved, 4 loads", splitKernel<4, 4, true>, 1, 128, false, 4},
        {"K split in 4 warps interleaved, 8 loads", splitKernel<4, 8, true>, 1, 128, false, 4},
        {"K split in 8 warps interleaved, 4 loads", splitKernel<8, 4, true, 256>, 1, 256, false, 8},
        {"K split in 2 warps interleaved, 8 loads", splitKernel<2, 8, true>, 1, 128, false, 2},
        {"4 col, 8 loads, 128 thr", formKernel<4, 8, 128>, 4, 128, false},
        {"2 col, 8 loads, 128 thr", formKernel<2, 8, 128>, 2, 128, false},
        {"4 col, 8 loads, 256 thr", formKernel<4, 8, 256>, 4, 256, false},
        {"2 col, 8 loads, 256 thr", formKernel<2, 8, 256>, 2, 256, false},
        {"1 col, unroll 4, 256 thr", formKernel<1, 4, 256>, 1, 256, false},
        {"4 col, unroll 4, 256 thr", formKernel<4, 4, 256>, 4, 256, false},
        {"1 col, unroll 4, 512 thr", formKernel<1, 4, 512>, 1, 512, false},
        {"balanced wave, unroll 4", balancedKernel<4>, 1, kThreads, true},
        {"balanced wave, 8 loads", balancedKernel<8>, 1, kThreads, true}};
    int perSm = 0;
    CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, readKernel<>, 256, 0));
    const int readBlocks = perSm * prop.multiProcessorCount;
    unsigned *sink;
    CHECK_CUDA(cudaMalloc(&sink, size_t(readBlocks) * 4));
    std::printf("\nEach shape's products alone, dependent launches: us for the sub-chain "
                "(floor; the weights only read as above)\n| form |");
    for (const Shape &shape : shapes)
      std::printf(" %s |", shape.name);
    std::printf("\n|---|---|---|---|---|---|\n| floor, weights read |");
    for (const Shape &shape : shapes) {
      size_t bytes = 0;
      for (int i : shape.index)
        bytes += size_t(b.chain.p[i].k) * b.chain.p[i].n * 2;
      double reads = timeGraph([&](cudaStream_t s) {
        for (size_t i = 0; i < shape.index.size(); ++i) {
          const Product &p = b.chain.p[shape.index[i]];
          launchKernel(readKernel<>, LaunchShape{readBlocks, 256, 0, i > 0}, s,
                       reinterpret_cast<const uint4 *>(p.weight), size_t(p.k) * p.n * 2 / 16,
                       sink);
        }
      });
      std::printf(" %.1f, %.1f |", bytes / bandwidth * 1e6, reads);
    }
    std::printf("\n");
    for (const ProductForm &form : forms) {
      int regs = 0;
      cudaFuncAttributes attributes;
      CHECK_CUDA(cudaFuncGetAttributes(&attributes, form.kernel));
      regs = attributes.numRegs;
      std::printf("| %s (%d registers) |", form.name, regs);
      for (const Shape &shape : shapes) {
        double us = timeGraph([&](cudaStream_t s) {
          launchForm(b, shape.index, form, prop.multiProcessorCount, s);
        });
        std::printf(" %.1f |", us);
      }
      std::printf("\n");
    }
    std::printf("\n");
  }
  return 0;
}
