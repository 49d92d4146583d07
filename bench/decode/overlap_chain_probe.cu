// Overlapping chain probe (bench/NOTES.md section 85): can a chain of
// dependent products overlap each product's end with the next one's
// start, as reads that do not wait do (section 83: 435 us against 479 for
// the step's weights read by dependent launches)?
//
// Sections 83 and 84 loaded the next grid's first weights before its
// `griddepcontrol.wait`, after a trigger, and gained nothing: every grid
// there filled the multiprocessors (8 blocks of 256 threads, or 16 of 128,
// each), so the next grid's blocks were placed only as the last grid's
// left. Here each grid is one resident wave that fills only part of each
// multiprocessor (BLOCKS_PER_SM blocks), every block triggers the next
// grid as it starts, before it waits, so the next grid is placed beside
// it at once, loads its first weights (module constants) into registers
// and waits there. The chain (chain_products.h) is the step's 17 products
// at bench/decode's dims, bf16, one row; rows:
//   reads      each weight only read (16-byte words, grid-stride), with
//              0, 4 or 8 words a thread loaded before the wait
//   products   Stride's skinny form (a warp a column, 4 from 8,192
//              columns), the warps walking their column groups in turn,
//              with the first group's first 0, 4 or 8 16-byte words a
//              lane loaded before the wait
// at 2, 3 and 4 blocks of 256 threads (reads) or 4, 6 and 8 blocks of 128
// (products) a multiprocessor, against the dependent chain of full grids.
// Then the dependent chain of full grids whose blocks, once their columns
// are done, fetch their share of the next product's first 2 to 16 MiB of
// weight into L2 (`prefetch.global.L2::evict_last` a 128-byte line, a
// 4-byte load with a 256-byte L2 fetch, or `prefetch.global.L2`): the
// drain of each grid spent on the next one's first lines (the form of
// branch scratch-prefetch-next-weights, bench/NOTES.md section 85).
// The products' output must equal the dependent chain's (the same sums).
//
// Build and run on the GPU machine, from this folder:
//   nvcc -O3 -arch=sm_90 -o overlap overlap_chain_probe.cu && ./overlap
// (`./overlap prefetch`: the dependent chain and the fetching rows only).
#include "chain_products.h"

#include <cstring>
#include <functional>
#include <string>

namespace {

__device__ inline void triggerNext() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
__device__ inline void waitForPrevious() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}


// A product as one partial wave that lets the next grid launch as it
// starts; its warps walk the column groups in turn, the first group's
// first WORDS / TILE steps (WORDS 16-byte words a lane) loaded before the
// wait. Registers bounded so that PER_SM blocks fit a multiprocessor.
template <int TILE, int WORDS, int PER_SM>
__global__ void __launch_bounds__(kThreads, PER_SM) overlapProduct(Product p) {
  triggerNext();
  const int warpId = blockIdx.x * kWarps + threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warpsInGrid = gridDim.x * kWarps;
  constexpr int kEarly = WORDS / TILE > 0 ? WORDS / TILE : 1;
  uint4 early[kEarly][TILE];
  const bool haveEarly = WORDS > 0 && warpId * TILE < p.n;
  if (haveEarly)
    loadEarly<TILE, kEarly>(p, warpId * TILE, lane, early);
  waitForPrevious();
  for (int g = warpId; g * TILE < p.n; g += warpsInGrid)
    columns<TILE, kEarly>(p, g * TILE, early, haveEarly && g == warpId);
}

template <int WORDS, int PER_SM>
void launchOverlapProducts(const Buffers &b, int sms, cudaStream_t s) {
  for (int i = 0; i < b.chain.count; ++i) {
    const Product &p = b.chain.p[i];
    void (*kernel)(Product) = tileOf(p) == 4 ? overlapProduct<4, WORDS, PER_SM>
                                             : overlapProduct<1, WORDS, PER_SM>;
    launchKernel(kernel,
                 LaunchShape{std::min(PER_SM * sms, productBlocks(p)), kThreads, 0, i > 0},
                 s, p);
  }
}

template <int PER_SM>
void launchOverlapProducts(const Buffers &b, int words, int sms, cudaStream_t s) {
  if (words == 0)
    launchOverlapProducts<0, PER_SM>(b, sms, s);
  else if (words == 4)
    launchOverlapProducts<4, PER_SM>(b, sms, s);
  else
    launchOverlapProducts<8, PER_SM>(b, sms, s);
}

// A dependent product whose blocks, once their own columns are done (the
// grid's drain), fetch the first `words` 16-byte words of the next
// product's weight (a module constant) into L2, each block its share: the
// drain's idle memory time spent on the next product's first lines.
// FORM 0: `prefetch.global.L2::evict_last` a 128-byte line; 1: a 4-byte
// load with a 256-byte L2 fetch (`ld.global.L2::256B`) a 256-byte span,
// kept by a conditional store no weight triggers; 2: `prefetch.global.L2`
// (normal eviction priority) a line.
template <int FORM>
__global__ void __launch_bounds__(kThreads) prefetchingProduct(Product p, const uint4 *next,
                                                               size_t words, unsigned *sink) {
  waitForPrevious();
  productColumns(p);
  constexpr size_t kWordsPerFetch = FORM == 1 ? 16 : 8;
  const size_t fetches = words / kWordsPerFetch;
  const size_t share = (fetches + gridDim.x - 1) / gridDim.x;
  const size_t begin = size_t(blockIdx.x) * share;
  const size_t end = begin + share < fetches ? begin + share : fetches;
  unsigned x = 0;
  for (size_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    const uint4 *address = next + i * kWordsPerFetch;
    if constexpr (FORM == 0) {
      asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(address));
    } else if constexpr (FORM == 2) {
      asm volatile("prefetch.global.L2 [%0];" ::"l"(address));
    } else {
      unsigned v;
      asm volatile("ld.global.L2::256B.u32 %0, [%1];" : "=r"(v) : "l"(address));
      x ^= v;
    }
  }
  if (x == 0x9e3779b9u)
    sink[blockIdx.x] = x;
}

template <int FORM>
void launchPrefetching(const Buffers &b, size_t bytes, unsigned *sink, cudaStream_t s) {
  for (int i = 0; i < b.chain.count; ++i) {
    const Product &p = b.chain.p[i];
    const Product &next = b.chain.p[(i + 1) % b.chain.count];
    const size_t words = std::min(bytes, size_t(next.k) * next.n * 2) / 16;
    launchKernel(prefetchingProduct<FORM>, LaunchShape{productBlocks(p), kThreads, 0, i > 0}, s,
                 p, reinterpret_cast<const uint4 *>(next.weight), words, sink);
  }
}

} // namespace

int main(int argc, char **argv) {
  // `./overlap prefetch`: the dependent chain and the prefetching rows only.
  const bool prefetchOnly = argc > 1 && std::strcmp(argv[1], "prefetch") == 0;
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  Buffers b = makeChain();
  const ChainFloor measured = chainFloor(b);
  const double bandwidth = measured.bandwidth, floorUs = measured.us;
  std::printf("%s, %d SMs; copy bandwidth %.2f TB/s; %zu MB of weights in %d products\n",
              prop.name, sms, bandwidth / 1e12, b.bytes >> 20, b.chain.count);
  std::printf("| form | us | us over the floor | output equal to the dependent chain's |\n"
              "|---|---|---|---|\n");
  std::printf("| floor (weights / copy bandwidth) | %.1f | 0 | |\n", floorUs);

  // The dependent chain as the backend launches it: full grids, each
  // waiting first.
  auto dependentChain = [&](cudaStream_t s) { launchKernels(b, s, /*dependent=*/true); };
  dependentChain(0);
  const std::vector<__nv_bfloat16> reference = output(b);
  const double dependent = timeGraph(dependentChain);
  std::printf("| products, full grids, dependent (Stride's launches) | %.1f | %.1f | yes |\n",
              dependent, dependent - floorUs);

  unsigned *sink;
  CHECK_CUDA(cudaMalloc(&sink, size_t(64) * sms * 4));
  if (!prefetchOnly) {
    auto reads = [&](void (*kernel)(const uint4 *, size_t, unsigned *), int blocks) {
      return timeGraph([&](cudaStream_t s) {
        for (int i = 0; i < b.chain.count; ++i) {
          const Product &p = b.chain.p[i];
          launchKernel(kernel, LaunchShape{blocks, 256, 0, i > 0}, s,
                       reinterpret_cast<const uint4 *>(p.weight), size_t(p.k) * p.n * 2 / 16,
                       sink);
        }
      });
    };
    const double fullReads = reads(readKernel<>, 8 * sms);
    std::printf("| reads, 8 blocks of 256 a multiprocessor, dependent | %.1f | %.1f | |\n",
                fullReads, fullReads - floorUs);
    const double unwaited = reads(readKernel<true, false>, 8 * sms);
    std::printf("| reads that do not wait (the bound) | %.1f | %.1f | |\n", unwaited,
                unwaited - floorUs);
    for (int perSm : {2, 3, 4})
      for (int early : {0, 4, 8}) {
        void (*kernel)(const uint4 *, size_t, unsigned *) =
            early == 0   ? readKernel<false, true, 0, true>
            : early == 4 ? readKernel<false, true, 4, true>
                         : readKernel<false, true, 8, true>;
        const double us = reads(kernel, perSm * sms);
        std::printf("| reads, %d blocks of 256 a multiprocessor, triggering at start, %d "
                    "words before the wait | %.1f | %.1f | |\n",
                    perSm, early, us, us - floorUs);
      }
  }
  // A products row: the chain timed, its output checked against the
  // dependent chain's.
  auto productsRow = [&](const std::string &form,
                         const std::function<void(cudaStream_t)> &enqueue) {
    const double us = timeGraph(enqueue);
    const std::vector<__nv_bfloat16> got = output(b);
    const bool same = memcmp(got.data(), reference.data(), got.size() * 2) == 0;
    std::printf("| products, %s | %.1f | %.1f | %s |\n", form.c_str(), us, us - floorUs,
                same ? "yes" : "NO");
  };
  if (!prefetchOnly)
    for (int perSm : {4, 6, 8})
      for (int early : {0, 4, 8})
        productsRow(std::to_string(perSm) + " blocks of 128 a multiprocessor, triggering at "
                    "start, " + std::to_string(early) + " words a lane before the wait",
                    [&](cudaStream_t s) {
                      if (perSm == 4)
                        launchOverlapProducts<4>(b, early, sms, s);
                      else if (perSm == 6)
                        launchOverlapProducts<6>(b, early, sms, s);
                      else
                        launchOverlapProducts<8>(b, early, sms, s);
                    });
  const char *forms[] = {"prefetch.global.L2::evict_last", "ld.global.L2::256B",
                         "prefetch.global.L2"};
  for (int form : {0, 1, 2})
    for (int megabytes : {2, 4, 8, 16}) {
      const size_t bytes = size_t(megabytes) << 20;
      productsRow("full grids, dependent, each block then fetching its share of the next "
                  "weight's first " + std::to_string(megabytes) + " MiB into L2 (" +
                  forms[form] + ")",
                  [&](cudaStream_t s) {
                    if (form == 0)
                      launchPrefetching<0>(b, bytes, sink, s);
                    else if (form == 1)
                      launchPrefetching<1>(b, bytes, sink, s);
                    else
                      launchPrefetching<2>(b, bytes, sink, s);
                  });
    }
  return 0;
}
