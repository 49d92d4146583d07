// Persistent product chain probe (bench/NOTES.md section 74): how much of
// the batch-1 decode step's time beyond its bytes is the products' own
// starts and ends, which one persistent kernel would not pay?
//
// The chain (chain_products.h) is the step's 17 skinny products at
// bench/decode's dims (per layer Q/K/V 6,144 x 4,096, O 4,096 x 4,096,
// gate/up 28,672 x 4,096, down 4,096 x 14,336; 4 layers; the LM head
// 32,000 x 4,096), bf16, one
// row, each product's input the previous one's output (its first K
// elements), every weight distinct (1.9 GB: nothing stays in L2). Each
// product is Stride's skinny form: a warp a column (4 adjacent ones from
// 8,192 columns, as the scheduler picks), 16-byte loads of the weight
// rows, f32 sums, a shuffle reduction. Timed three ways, each a CUDA
// graph (bench/ceiling/timing.h):
//   kernels      a kernel a product, launched one after another
//   dependent    the same kernels as dependent launches (griddepcontrol.wait
//                first, as the backend launches them)
//   persistent   one cooperative kernel of resident blocks that runs the
//                products in turn, a grid-wide barrier between them, 1, 4
//                or 8 columns a warp; each warp loads its first weights of
//                the next product before it waits at the barrier (the
//                weights are constants)
// against the bytes over the copy bandwidth measured in the same run. The
// three outputs must be equal (the same sums in the same order). Then the
// read ceiling (bench/NOTES.md section 83): each product's weight only
// read, by a grid of resident blocks walking it with 16-byte loads, the
// reads chained as dependent launches like the products, and one such
// read of 1 GiB alone: how far the products' form is from what reading
// their bytes in a chain of launches takes; and the products as one
// resident wave each, triggering the next, their first weights loaded
// before the wait or not (the form those reads suggest); the reads and
// the products with their work handed out from a counter (a warp asks
// for its next 8 KB chunk or column group with an atomic add before it
// loads the current one; bench/NOTES.md section 84). Then the
// dependent chain again with the step's small kernels between the
// products, as stand-ins (a norm of one block before Q/K/V, gate/up and
// the LM head; two rotary-like kernels of 4 blocks and an attention-like
// one of 64 after Q/K/V; a SwiGLU-like kernel of 14 blocks before down),
// to time what each small kernel adds to the step. Last, a one-block norm
// after every product (bench/NOTES.md section 80): as a kernel, as the
// product's tail (its grid's last block runs it), and Stride's
// row_registers form with its weight loaded after the sum, with the row,
// prefetched into L2 before the wait, or into registers before the wait.
//
// Build and run on the GPU machine, from this folder:
//   nvcc -O3 -arch=sm_90 -o chain persistent_chain_probe.cu && ./chain
#include "chain_products.h"

#include <cstring>

namespace {


// Every block arrives, then waits until all have: `count` grows by the
// grid's blocks at each barrier (zeroed before the launch).
__device__ void gridBarrier(unsigned *count, unsigned target) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(count, 1u);
    while (*reinterpret_cast<volatile unsigned *>(count) < target) {
    }
    __threadfence();
  }
  __syncthreads();
}

// Every product TILE columns a warp, the warps' groups in turn.
template <int TILE>
__global__ void __launch_bounds__(kThreads) persistentChain(Chain chain, unsigned *count) {
  const int warpId = blockIdx.x * kWarps + threadIdx.x / 32;
  const int warpsInGrid = gridDim.x * kWarps, lane = threadIdx.x % 32;
  constexpr int EARLY = earlySteps(TILE);
  uint4 early[EARLY][TILE];
  for (int i = 0; i < chain.count; ++i) {
    const Product &p = chain.p[i];
    if (i > 0) {
      // The first group's first weights before the barrier: no product
      // writes them.
      if (warpId * TILE < p.n)
        loadEarly<TILE>(p, warpId * TILE, lane, early);
      gridBarrier(count, unsigned(i) * gridDim.x);
    }
    for (int g = warpId; g * TILE < p.n; g += warpsInGrid)
      columns<TILE>(p, g * TILE, early, i > 0 && g == warpId);
  }
}

// The norms' width: the step's hidden size (every product's first 4,096
// columns; the rest of a norm's result stays 0).
constexpr int kNormWidth = 4096;

// The norm's stand-in: one block (of any size) reads the row, sums its
// squares and writes it scaled (an RMSNorm).
__device__ void normRow(const __nv_bfloat16 *in, __nv_bfloat16 *out, int n) {
  __shared__ float partial[32];
  float sum = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float v = __bfloat162float(in[i]);
    sum += v * v;
  }
  sum = warpSum(sum);
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = sum;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < int(blockDim.x / 32); ++w)
    total += partial[w];
  float scale = rsqrtf(total / n + 1e-6f);
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = __float2bfloat16(__bfloat162float(in[i]) * scale);
}

__global__ void __launch_bounds__(256) normKernel(const __nv_bfloat16 *in,
                                                  __nv_bfloat16 *out, int n) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  normRow(in, out, n);
}

// The step's RMSNorm as Stride prints it (row_registers): one block of 256
// threads, the row in registers (16 elements a thread, 16-byte loads), a
// block-wide sum of squares, then the row scaled and multiplied by the
// norm's weight (a module constant), which it loads as WEIGHT says.
enum WeightLoad {
  kWeightAfterSum,     // after the sum, as the kernel's epilogue reads it
  kWeightWithRow,      // with the row, after the wait
  kWeightPrefetched,   // with the row, its lines fetched into L2 before the wait
  kWeightBeforeWait,   // into registers before the wait (nothing writes it)
};
constexpr int kNormChunks = kNormWidth / 256 / 8; // 16-byte chunks a thread

__device__ void loadWeight(const __nv_bfloat16 *weight, uint4 (&w)[kNormChunks]) {
#pragma unroll
  for (int c = 0; c < kNormChunks; ++c)
    w[c] = reinterpret_cast<const uint4 *>(weight)[c * 256 + threadIdx.x];
}

template <int WEIGHT>
__global__ void __launch_bounds__(256) weightedNormKernel(const __nv_bfloat16 *in,
                                                          const __nv_bfloat16 *weight,
                                                          __nv_bfloat16 *out) {
  uint4 w[kNormChunks];
  if (WEIGHT == kWeightBeforeWait)
    loadWeight(weight, w);
  if (WEIGHT == kWeightPrefetched && threadIdx.x < kNormWidth * 2 / 128)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(reinterpret_cast<const char *>(weight) +
                                                  threadIdx.x * 128));
  asm volatile("griddepcontrol.wait;" ::: "memory");
  uint4 x[kNormChunks];
#pragma unroll
  for (int c = 0; c < kNormChunks; ++c)
    x[c] = reinterpret_cast<const uint4 *>(in)[c * 256 + threadIdx.x];
  if (WEIGHT == kWeightWithRow || WEIGHT == kWeightPrefetched)
    loadWeight(weight, w);
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kNormChunks; ++c)
    sum += dot8(x[c], x[c]);
  __shared__ float partial[8];
  sum = warpSum(sum);
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = sum;
  __syncthreads();
  float total = 0.0f;
  for (int i = 0; i < 8; ++i)
    total += partial[i];
  const float scale = rsqrtf(total / kNormWidth + 1e-6f);
  if (WEIGHT == kWeightAfterSum)
    loadWeight(weight, w);
#pragma unroll
  for (int c = 0; c < kNormChunks; ++c) {
    const __nv_bfloat162 *xs = reinterpret_cast<const __nv_bfloat162 *>(&x[c]);
    const __nv_bfloat162 *ws = reinterpret_cast<const __nv_bfloat162 *>(&w[c]);
    uint4 y;
    __nv_bfloat162 *ys = reinterpret_cast<__nv_bfloat162 *>(&y);
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      float2 a = __bfloat1622float2(xs[e]), b = __bfloat1622float2(ws[e]);
      ys[e] = __floats2bfloat162_rn(a.x * scale * b.x, a.y * scale * b.y);
    }
    reinterpret_cast<uint4 *>(out)[c * 256 + threadIdx.x] = y;
  }
}

// Whether this block is the grid's last to get here (a ticket taken after
// a fence, so every block's stores before it are visible to the last one);
// the last block puts the ticket back to 0 for the next launch.
__device__ bool lastBlockToArrive(unsigned *ticket) {
  __shared__ bool last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    if (last)
      *ticket = 0;
  }
  __syncthreads();
  if (last)
    __threadfence();
  return last;
}

// A product whose grid's last block then runs the norm of its result into
// `normed` (the norm as the product's tail: no launch of its own).
__global__ void __launch_bounds__(kThreads)
    productWithNormTail(Product p, __nv_bfloat16 *normed, unsigned *ticket) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  productColumns(p);
  if (lastBlockToArrive(ticket))
    normRow(p.y, normed, kNormWidth);
}

// The other small kernels' stand-in: an elementwise op over the grid.
__global__ void __launch_bounds__(256) pointwiseKernel(const __nv_bfloat16 *in,
                                                       __nv_bfloat16 *out, int n) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = __float2bfloat16(__bfloat162float(in[i]) * 0.5f);
}

// The small kernels before product `i` of the chain (4 a layer, the LM
// head last): blocks of each, 0 for the norm.
std::vector<int> smallKernelsBefore(int i, int count) {
  if (i == count - 1)
    return {0};
  switch (i % 4) {
  case 0: return {0};          // the RMSNorm before Q/K/V
  case 1: return {4, 4, 64};   // rotary q, rotary k + cache writes, attention
  case 2: return {0};          // the RMSNorm before gate/up
  default: return {14};        // the SwiGLU before down
  }
}


// The dependent chain with the small kernels before each product: they
// read the product's input and leave their result in `mid`, which the
// product then reads.
// With `plainAttention` the attention's stand-in and the product after it
// are launched as cuDNN's kernels and the product after them are: not as
// dependent launches.
void launchWithSmallKernels(const Buffers &b, __nv_bfloat16 *mid[2], cudaStream_t s,
                            bool plainAttention) {
  bool first = true;
  for (int i = 0; i < b.chain.count; ++i) {
    Product p = b.chain.p[i];
    const __nv_bfloat16 *from = p.x;
    int flip = 0;
    bool afterPlain = false;
    for (int blocks : smallKernelsBefore(i, b.chain.count)) {
      afterPlain = plainAttention && blocks == 64;
      LaunchShape shape{blocks ? blocks : 1, 256, 0, !first && !afterPlain};
      launchKernel(blocks ? pointwiseKernel : normKernel, shape, s, from, mid[flip], p.k);
      first = false;
      from = mid[flip];
      flip ^= 1;
    }
    p.x = from;
    launchProduct(p, s, !afterPlain);
  }
}

// The dependent chain with a norm of one block after every product, the
// next product reading the norm's result (`normed[i]`, product i's width):
// a kernel of `normThreads` threads each, the product before it triggering
// its launch early (the backend's early trigger); or, with `tails`, each
// norm run by its product's last block (`tickets`, one a product).
void launchWithNorms(const Buffers &b, __nv_bfloat16 *const *normed, unsigned *tickets,
                     bool tails, int normThreads, cudaStream_t s) {
  for (int i = 0; i < b.chain.count; ++i) {
    Product p = b.chain.p[i];
    if (i > 0)
      p.x = normed[i - 1];
    if (tails) {
      launchKernel(productWithNormTail, LaunchShape{productBlocks(p), kThreads, 0, i > 0},
                   s, p, normed[i], tickets + i);
      continue;
    }
    launchProduct(p, s, i > 0, /*trigger=*/true);
    launchKernel(normKernel, LaunchShape{1, normThreads, 0, true}, s,
                 static_cast<const __nv_bfloat16 *>(p.y), normed[i], kNormWidth);
  }
}

// The same with the step's weighted norm (weightedNormKernel) after every
// product, each its own weight (`weights`, one after another), loaded as
// `load` says.
void launchWithWeightedNorms(const Buffers &b, __nv_bfloat16 *const *normed,
                             const __nv_bfloat16 *weights, int load, cudaStream_t s) {
  void (*kernels[])(const __nv_bfloat16 *, const __nv_bfloat16 *, __nv_bfloat16 *) = {
      weightedNormKernel<kWeightAfterSum>, weightedNormKernel<kWeightWithRow>,
      weightedNormKernel<kWeightPrefetched>, weightedNormKernel<kWeightBeforeWait>};
  for (int i = 0; i < b.chain.count; ++i) {
    Product p = b.chain.p[i];
    if (i > 0)
      p.x = normed[i - 1];
    launchProduct(p, s, i > 0, /*trigger=*/true);
    const __nv_bfloat16 *in = p.y;
    launchKernel(kernels[load], LaunchShape{1, 256, 0, true}, s, in,
                 weights + size_t(i) * kNormWidth, normed[i]);
  }
}

std::vector<__nv_bfloat16> normedOutput(const Buffers &b, __nv_bfloat16 *const *normed) {
  const int n = b.chain.p[b.chain.count - 1].n;
  std::vector<__nv_bfloat16> y(n);
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy(y.data(), normed[b.chain.count - 1], n * 2, cudaMemcpyDeviceToHost));
  return y;
}


// A product as one resident wave (the candidate form, bench/NOTES.md
// section 83): the grid's warps walk the column groups in turn (no grid
// barrier: a kernel a product), with EARLY_LOADS each warp loads its first
// group's first weights (module constants) into registers before it
// waits for the grid before it, and every grid lets the next launch once
// it has waited, so the next product's blocks are placed as this one's
// leave and start loading. The same sums as productKernel's.
template <int TILE, bool EARLY_LOADS>
__global__ void __launch_bounds__(kThreads) oneWaveProduct(Product p) {
  const int warpId = blockIdx.x * kWarps + threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warpsInGrid = gridDim.x * kWarps;
  constexpr int EARLY = earlySteps(TILE);
  uint4 early[EARLY][TILE];
  const bool haveEarly = EARLY_LOADS && warpId * TILE < p.n;
  if (haveEarly)
    loadEarly<TILE>(p, warpId * TILE, lane, early);
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  for (int g = warpId; g * TILE < p.n; g += warpsInGrid)
    columns<TILE>(p, g * TILE, early, haveEarly && g == warpId);
}

// A product whose warps take their column groups from a counter
// (`counter[0]`, the groups handed out; `counter[1]`, the warps done: the
// last warp zeroes both for the next launch), each warp asking for its
// next group before it loads the current one: the grid's warps end within
// about one group of each other, where a fixed share leaves a tail of
// the slowest. One resident wave; UNROLL steps of loads in flight a lane.
template <int TILE, int UNROLL>
__global__ void __launch_bounds__(kThreads) dynamicProduct(Product p, unsigned *counter) {
  const int lane = threadIdx.x % 32;
  const unsigned groups = unsigned(p.n / TILE);
  const uint4 none[earlySteps(TILE)][TILE] = {};
  asm volatile("griddepcontrol.wait;" ::: "memory");
  unsigned g = lane == 0 ? atomicAdd(counter, 1u) : 0u;
  g = __shfl_sync(~0u, g, 0);
  while (g < groups) {
    const unsigned next = lane == 0 ? atomicAdd(counter, 1u) : 0u;
    columns<TILE, earlySteps(TILE), UNROLL>(p, int(g) * TILE, none, false);
    g = __shfl_sync(~0u, next, 0);
  }
  if (lane == 0 && atomicAdd(counter + 1, 1u) == gridDim.x * kWarps - 1) {
    counter[0] = 0;
    counter[1] = 0;
  }
}

// The chain of dynamic products (TILE 0: tileOf each product), every
// launch but the first dependent; `counters` holds two words a product.
template <int TILE, int UNROLL>
void launchDynamic(const Buffers &b, unsigned *counters, int multiprocessors, cudaStream_t s) {
  for (int i = 0; i < b.chain.count; ++i) {
    const Product &p = b.chain.p[i];
    const int tile = TILE > 0 ? TILE : tileOf(p);
    void (*kernel)(Product, unsigned *) =
        tile == 4 ? dynamicProduct<4, UNROLL> : dynamicProduct<1, UNROLL>;
    int perSm = 0;
    CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kThreads, 0));
    const int blocks = std::min(perSm * multiprocessors, p.n / tile / kWarps);
    launchKernel(kernel, LaunchShape{blocks, kThreads, 0, i > 0}, s, p, counters + 2 * i);
  }
}

// A warp's 16-byte words of a dynamic read's chunk (8 KB, a column of a
// 4,096-deep product).
constexpr int kChunkWords = 512;

// The read ceiling with the chunks handed out as dynamicProduct hands out
// its groups: a warp a chunk, the next asked for before the current is
// loaded.
__global__ void __launch_bounds__(256) dynamicReadKernel(const uint4 *weight, size_t chunks,
                                                         unsigned *counter, unsigned *sink) {
  const int lane = threadIdx.x % 32;
  const unsigned total = unsigned(chunks / kChunkWords);
  asm volatile("griddepcontrol.wait;" ::: "memory");
  unsigned x = 0;
  unsigned g = lane == 0 ? atomicAdd(counter, 1u) : 0u;
  g = __shfl_sync(~0u, g, 0);
  while (g < total) {
    const unsigned next = lane == 0 ? atomicAdd(counter, 1u) : 0u;
    const uint4 *chunk = weight + size_t(g) * kChunkWords;
#pragma unroll
    for (int i = lane; i < kChunkWords; i += 32) {
      const uint4 w = __ldg(chunk + i);
      x ^= w.x ^ w.y ^ w.z ^ w.w;
    }
    g = __shfl_sync(~0u, next, 0);
  }
  if (x == 0x9e3779b9u)
    sink[blockIdx.x] = x;
  if (lane == 0 && atomicAdd(counter + 1, 1u) == gridDim.x * (blockDim.x / 32) - 1) {
    counter[0] = 0;
    counter[1] = 0;
  }
}


// The chain of one-wave products, every launch but the first dependent.
template <bool EARLY_LOADS>
void launchOneWave(const Buffers &b, int multiprocessors, cudaStream_t s) {
  for (int i = 0; i < b.chain.count; ++i) {
    const Product &p = b.chain.p[i];
    void (*kernel)(Product) = tileOf(p) == 4 ? oneWaveProduct<4, EARLY_LOADS>
                                             : oneWaveProduct<1, EARLY_LOADS>;
    int perSm = 0;
    CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kThreads, 0));
    const int blocks = std::min(perSm * multiprocessors, productBlocks(p));
    launchKernel(kernel, LaunchShape{blocks, kThreads, 0, i > 0}, s, p);
  }
}

// Each product's weight read by `blocks` blocks of `kernel`, every launch
// but the first dependent.
void launchReads(const Buffers &b, int blocks, unsigned *sink, cudaStream_t s,
                 void (*kernel)(const uint4 *, size_t, unsigned *) = readKernel<>) {
  for (int i = 0; i < b.chain.count; ++i) {
    const Product &p = b.chain.p[i];
    const size_t chunks = size_t(p.k) * p.n * 2 / 16;
    launchKernel(kernel, LaunchShape{blocks, 256, 0, i > 0}, s,
                 reinterpret_cast<const uint4 *>(p.weight), chunks, sink);
  }
}

template <int TILE>
void launchPersistent(const Buffers &b, unsigned *count, int blocks, cudaStream_t s) {
  CHECK_CUDA(cudaMemsetAsync(count, 0, 4, s));
  LaunchShape shape{blocks, kThreads};
  shape.cooperative = true;
  launchKernel(persistentChain<TILE>, shape, s, b.chain, count);
}

} // namespace

int main() {
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  Buffers b = makeChain();
  unsigned *count;
  CHECK_CUDA(cudaMalloc(&count, 4));
  float4 *copyA, *copyB;
  const long long copyBytes = 1ll << 30;
  CHECK_CUDA(cudaMalloc(&copyA, copyBytes));
  CHECK_CUDA(cudaMalloc(&copyB, copyBytes));
  double bandwidth = copyBandwidthOf(copyA, copyB, copyBytes);

  launchKernels(b, 0, false);
  std::vector<__nv_bfloat16> reference = output(b);
  double kernels = timeGraph([&](cudaStream_t s) { launchKernels(b, s, false); });
  double dependent = timeGraph([&](cudaStream_t s) { launchKernels(b, s, true); });
  std::vector<__nv_bfloat16> got = output(b);
  bool dependentSame = memcmp(got.data(), reference.data(), got.size() * 2) == 0;
  std::printf("%s, %d SMs; copy bandwidth %.2f TB/s; %zu MB of weights in %d "
              "products\n",
              prop.name, prop.multiProcessorCount, bandwidth / 1e12, b.bytes >> 20,
              b.chain.count);
  std::printf("| form | us | us over the floor | output equal to the kernels' |\n"
              "|---|---|---|---|\n");
  double floorUs = b.bytes / bandwidth * 1e6;
  std::printf("| floor (weights / copy bandwidth) | %.1f | 0 | |\n", floorUs);
  std::printf("| kernels | %.1f | %.1f | yes |\n", kernels, kernels - floorUs);
  std::printf("| dependent | %.1f | %.1f | %s |\n", dependent, dependent - floorUs,
              dependentSame ? "yes" : "NO");
  auto persistent = [&](auto kernel, auto launch, int tile) {
    int perSm = 0;
    CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kThreads, 0));
    int blocks = perSm * prop.multiProcessorCount;
    double us = timeGraph([&](cudaStream_t s) { launch(b, count, blocks, s); });
    std::vector<__nv_bfloat16> got = output(b);
    bool same = memcmp(got.data(), reference.data(), got.size() * 2) == 0;
    std::printf("| persistent, %d columns a warp, %d blocks a multiprocessor | %.1f | "
                "%.1f | %s |\n",
                tile, perSm, us, us - floorUs, same ? "yes" : "no (other groupings)");
  };
  // The read ceiling: the chain's weights only read, and 1 GiB read alone.
  {
    int perSm = 0;
    CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, readKernel<>, 256, 0));
    const int blocks = perSm * prop.multiProcessorCount;
    unsigned *sink;
    CHECK_CUDA(cudaMalloc(&sink, size_t(blocks) * 4));
    double reads = timeGraph([&](cudaStream_t s) { launchReads(b, blocks, sink, s); });
    double alone = timeGraph([&](cudaStream_t s) {
      launchKernel(readKernel<>, LaunchShape{blocks, 256}, s,
                   reinterpret_cast<const uint4 *>(copyA), size_t(copyBytes / 16), sink);
    });
    std::printf("| the weights only read, a kernel a product (%d blocks of 256 threads, "
                "dependent) | %.1f | %.1f | (%.2f TB/s; 1 GiB read alone: %.2f TB/s) |\n",
                blocks, reads, reads - floorUs, b.bytes / reads / 1e6,
                copyBytes / alone / 1e6);
    struct Overlap {
      const char *name;
      void (*kernel)(const uint4 *, size_t, unsigned *);
    };
    for (Overlap form : {Overlap{"each read triggering the next as it starts", readKernel<true>},
                         Overlap{"each read triggering the next, which does not wait",
                                 readKernel<true, false>},
                         Overlap{"each read triggering the next, which loads its first 4 "
                                 "words a thread before it waits",
                                 readKernel<true, true, 4>},
                         Overlap{"each read triggering the next, which loads its first 8 "
                                 "words a thread before it waits",
                                 readKernel<true, true, 8>}}) {
      double us = timeGraph(
          [&](cudaStream_t s) { launchReads(b, blocks, sink, s, form.kernel); });
      std::printf("| the weights only read, %s | %.1f | %.1f | (%.2f TB/s) |\n", form.name,
                  us, us - floorUs, b.bytes / us / 1e6);
    }
  }
  // Work handed out from a counter: the reads, then the products.
  unsigned *counters;
  CHECK_CUDA(cudaMalloc(&counters, 2 * kMaxProducts * 4));
  CHECK_CUDA(cudaMemset(counters, 0, 2 * kMaxProducts * 4));
  {
    int perSm = 0;
    CHECK_CUDA(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, dynamicReadKernel, 256, 0));
    const int blocks = perSm * prop.multiProcessorCount;
    unsigned *sink;
    CHECK_CUDA(cudaMalloc(&sink, size_t(blocks) * 4));
    double us = timeGraph([&](cudaStream_t s) {
      for (int i = 0; i < b.chain.count; ++i) {
        const Product &p = b.chain.p[i];
        launchKernel(dynamicReadKernel, LaunchShape{blocks, 256, 0, i > 0}, s,
                     reinterpret_cast<const uint4 *>(p.weight), size_t(p.k) * p.n * 2 / 16,
                     counters + 2 * i, sink);
      }
    });
    std::printf("| the weights only read, 8 KB chunks handed out from a counter (%d blocks "
                "of 256 threads, dependent) | %.1f | %.1f | (%.2f TB/s) |\n",
                blocks, us, us - floorUs, b.bytes / us / 1e6);
  }
  struct DynamicForm {
    const char *name;
    void (*launch)(const Buffers &, unsigned *, int, cudaStream_t);
  };
  for (DynamicForm form :
       {DynamicForm{"1 or 4 columns (tileOf), 4 steps unrolled", launchDynamic<0, 4>},
        DynamicForm{"1 or 4 columns (tileOf), 8 steps unrolled", launchDynamic<0, 8>},
        DynamicForm{"1 column, 4 steps unrolled", launchDynamic<1, 4>},
        DynamicForm{"1 column, 8 steps unrolled", launchDynamic<1, 8>},
        DynamicForm{"1 column, 16 steps unrolled", launchDynamic<1, 16>}}) {
    double us = timeGraph(
        [&](cudaStream_t s) { form.launch(b, counters, prop.multiProcessorCount, s); });
    std::vector<__nv_bfloat16> got = output(b);
    bool same = memcmp(got.data(), reference.data(), got.size() * 2) == 0;
    std::printf("| products with groups handed out from a counter, %s | %.1f | %.1f | %s |\n",
                form.name, us, us - floorUs, same ? "yes" : "NO");
  }
  // The candidate: products as one resident wave, triggering the next,
  // with and without their first weights loaded before the wait.
  for (bool earlyLoads : {false, true}) {
    double us = timeGraph([&](cudaStream_t s) {
      if (earlyLoads)
        launchOneWave<true>(b, prop.multiProcessorCount, s);
      else
        launchOneWave<false>(b, prop.multiProcessorCount, s);
    });
    std::vector<__nv_bfloat16> got = output(b);
    bool same = memcmp(got.data(), reference.data(), got.size() * 2) == 0;
    std::printf("| products as one resident wave, triggering the next%s | %.1f | %.1f | %s |\n",
                earlyLoads ? ", first weights loaded before the wait" : "", us, us - floorUs,
                same ? "yes" : "NO");
  }
  persistent(persistentChain<1>, launchPersistent<1>, 1);
  persistent(persistentChain<4>, launchPersistent<4>, 4);
  persistent(persistentChain<8>, launchPersistent<8>, 8);
  __nv_bfloat16 *mid[2];
  CHECK_CUDA(cudaMalloc(&mid[0], 32000 * 2));
  CHECK_CUDA(cudaMalloc(&mid[1], 32000 * 2));
  int smalls = 0;
  for (int i = 0; i < b.chain.count; ++i)
    smalls += int(smallKernelsBefore(i, b.chain.count).size());
  for (bool plainAttention : {false, true}) {
    double withSmalls = timeGraph(
        [&](cudaStream_t s) { launchWithSmallKernels(b, mid, s, plainAttention); });
    std::printf("| dependent, with %d small kernels between the products%s | %.1f | "
                "%.1f | (%.2f us a small kernel over the dependent chain) |\n",
                smalls,
                plainAttention ? ", the attention's and the product after it plain" : "",
                withSmalls, withSmalls - floorUs, (withSmalls - dependent) / smalls);
  }

  // Norms after every product: kernels, or the products' tails.
  std::vector<__nv_bfloat16 *> normed(b.chain.count);
  for (int i = 0; i < b.chain.count; ++i)
  {
    CHECK_CUDA(cudaMalloc(&normed[i], size_t(b.chain.p[i].n) * 2));
    CHECK_CUDA(cudaMemset(normed[i], 0, size_t(b.chain.p[i].n) * 2));
  }
  unsigned *tickets;
  CHECK_CUDA(cudaMalloc(&tickets, kMaxProducts * 4));
  CHECK_CUDA(cudaMemset(tickets, 0, kMaxProducts * 4));
  launchWithNorms(b, normed.data(), tickets, false, kThreads, 0);
  std::vector<__nv_bfloat16> normedReference = normedOutput(b, normed.data());
  struct NormForm {
    const char *name;
    bool tails;
    int threads;
  };
  for (NormForm form : {NormForm{"a norm kernel of 256 threads after each product", false, 256},
                        NormForm{"a norm kernel of 128 threads after each product", false, 128},
                        NormForm{"each norm the product's tail (its last block)", true, kThreads}}) {
    double us = timeGraph([&](cudaStream_t s) {
      launchWithNorms(b, normed.data(), tickets, form.tails, form.threads, s);
    });
    std::vector<__nv_bfloat16> got = normedOutput(b, normed.data());
    bool same = memcmp(got.data(), normedReference.data(), got.size() * 2) == 0;
    std::printf("| dependent, %s | %.1f | %.1f | (%.2f us a norm over the dependent chain; "
                "equal to the 128-thread kernels': %s) |\n",
                form.name, us, us - floorUs, (us - dependent) / b.chain.count,
                same ? "yes" : (form.threads == 256 ? "no (other sums)" : "NO"));
  }
  // The step's norm: its weight loaded after the sum, or before the wait.
  __nv_bfloat16 *normWeight;
  CHECK_CUDA(cudaMalloc(&normWeight, kMaxProducts * kNormWidth * 2));
  {
    std::vector<__nv_bfloat16> host(kMaxProducts * kNormWidth);
    for (size_t i = 0; i < host.size(); ++i)
      host[i] = __float2bfloat16(1.0f + 0.001f * (i % 97));
    CHECK_CUDA(cudaMemcpy(normWeight, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
  }
  launchWithWeightedNorms(b, normed.data(), normWeight, kWeightAfterSum, 0);
  std::vector<__nv_bfloat16> weightedReference = normedOutput(b, normed.data());
  const char *loads[] = {"after the sum", "with the row", "with the row, prefetched into L2 "
                         "before the wait", "into registers before the wait"};
  for (int load : {kWeightAfterSum, kWeightWithRow, kWeightPrefetched, kWeightBeforeWait}) {
    double us = timeGraph([&](cudaStream_t s) {
      launchWithWeightedNorms(b, normed.data(), normWeight, load, s);
    });
    std::vector<__nv_bfloat16> got = normedOutput(b, normed.data());
    bool same = memcmp(got.data(), weightedReference.data(), got.size() * 2) == 0;
    std::printf("| dependent, the step's weighted norm after each product, its weight loaded "
                "%s | %.1f | %.1f | (%.2f us a norm over the dependent chain; equal: %s) |\n",
                loads[load], us, us - floorUs, (us - dependent) / b.chain.count,
                same ? "yes" : "NO");
  }
  return 0;
}
