// Conditional graph probe (bench/NOTES.md section 85): what does a CUDA
// graph conditional node cost in the decode step's chain of dependent
// launches? A run-time choice of the attention by the valid length (the
// staged kernel on short caches, cuDNN on long ones; sections 79-85) would
// put each layer's attention in an if/else node whose condition a kernel
// of the step sets on the device (`cudaGraphSetConditional`).
//
// A stand-in of 4 layers, each: a product (its weight, 50 MB, read by a
// full grid), an attention (128 blocks of 128 threads, each reading 32 KB
// of a cache in two round trips and spinning about 5 us), a product (33.5
// MB); every launch dependent (griddepcontrol.wait first), as Stride's are.
// Rows:
//   plain         the chain as Stride launches it
//   cuDNN-like    the attention and the product after it launched plain,
//                 as a library call and the kernel after it are
//   conditional   the attention in an if/else node (the else body a second
//                 attention kernel), its condition `valid <= threshold` set
//                 by a one-block kernel before the node, or by block 0 of
//                 the product before it; each body taken in turn
// against the chain. The per-layer cost of the node is the difference
// over 4.
//
// Build and run on the GPU machine, from this folder:
//   nvcc -O3 -arch=sm_90 -o conditional conditional_graph_probe.cu && ./conditional
// `cudaGraphSetConditional` comes from the device runtime; nvcc resolves it
// without -rdc (bench/NOTES.md section 85: its cubin leaves the symbol to
// the driver).
#include "decode_probe.h"

namespace {

constexpr int kLayers = 4;
constexpr int kAttentionBlocks = 128, kAttentionThreads = 128;
constexpr size_t kCacheWords = size_t(kAttentionBlocks) * 2048; // 32 KB a block

__device__ inline void waitForPrevious() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

// A product's stand-in: its weight read by the grid, 16-byte words, with
// SET, block 0 sets the conditional `handle` to `*valid <= threshold`.
template <bool SET>
__global__ void __launch_bounds__(256)
    productRead(const uint4 *weight, size_t words, unsigned *sink,
                cudaGraphConditionalHandle handle, const long long *valid,
                long long threshold) {
  waitForPrevious();
  if (SET && blockIdx.x == 0 && threadIdx.x == 0)
    cudaGraphSetConditional(handle, *valid <= threshold ? 1u : 0u);
  unsigned x = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
       i += size_t(gridDim.x) * blockDim.x) {
    const uint4 w = __ldg(weight + i);
    x ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (x == 0x9e3779b9u)
    sink[blockIdx.x] = x;
}

// The condition alone, a kernel of one thread.
__global__ void setCondition(cudaGraphConditionalHandle handle, const long long *valid,
                             long long threshold) {
  waitForPrevious();
  cudaGraphSetConditional(handle, *valid <= threshold ? 1u : 0u);
}

// An attention's stand-in: each block reads its 32 KB of the cache in two
// dependent round trips and spins for `cycles`.
template <int WHICH>
__global__ void __launch_bounds__(kAttentionThreads)
    attention(const uint4 *cache, unsigned *sink, long long cycles) {
  waitForPrevious();
  const uint4 *mine = cache + size_t(blockIdx.x) * 2048;
  unsigned x = WHICH;
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    x ^= __ldcg(mine + i).x;
  __syncthreads();
  for (int i = 1024 + threadIdx.x + (x & 1); i < 2048; i += blockDim.x)
    x ^= __ldcg(mine + i).y;
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  if (x == 0x9e3779b9u)
    sink[blockIdx.x] = x;
}

struct Buffers {
  uint4 *weights[2 * kLayers];
  size_t words[2 * kLayers];
  uint4 *cache;
  unsigned *sink;
  long long *valid;
};

enum class Form { Plain, LibraryLike, ConditionalKernel, ConditionalFolded };

// The if/else node after the capture's current nodes, its bodies captured
// on `side`; the capture continues after it.
void conditionalAttention(cudaStream_t s, cudaStream_t side, cudaGraphConditionalHandle handle,
                          const Buffers &b, long long cycles) {
  cudaStreamCaptureStatus status;
  cudaGraph_t graph;
  const cudaGraphNode_t *deps;
  const cudaGraphEdgeData *edges;
  size_t count;
  CHECK_CUDA(cudaStreamGetCaptureInfo(s, &status, nullptr, &graph, &deps, &edges, &count));
  cudaGraphNodeParams params = {};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = handle;
  params.conditional.type = cudaGraphCondTypeIf;
  params.conditional.size = 2;
  cudaGraphNode_t node;
  CHECK_CUDA(cudaGraphAddNode(&node, graph, deps, edges, count, &params));
  CHECK_CUDA(cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1,
                                                 cudaStreamSetCaptureDependencies));
  for (int body = 0; body < 2; ++body) {
    CHECK_CUDA(cudaStreamBeginCaptureToGraph(side, params.conditional.phGraph_out[body],
                                             nullptr, nullptr, 0,
                                             cudaStreamCaptureModeRelaxed));
    // The else body (index 1) runs the other kernel, as cuDNN would.
    launchKernel(body == 0 ? attention<0> : attention<1>,
                 LaunchShape{kAttentionBlocks, kAttentionThreads}, side,
                 static_cast<const uint4 *>(b.cache), b.sink, cycles);
    cudaGraph_t captured;
    CHECK_CUDA(cudaStreamEndCapture(side, &captured));
  }
}

double timeChain(const Buffers &b, Form form, long long cycles, long long threshold) {
  cudaStream_t s, side;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  cudaGraph_t graph;
  CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  cudaStreamCaptureStatus status;
  cudaGraph_t captured;
  CHECK_CUDA(cudaStreamGetCaptureInfo(s, &status, nullptr, &captured, nullptr, nullptr,
                                      nullptr));
  const bool conditional = form == Form::ConditionalKernel || form == Form::ConditionalFolded;
  for (int layer = 0; layer < kLayers; ++layer) {
    cudaGraphConditionalHandle handle = 0;
    if (conditional)
      CHECK_CUDA(cudaGraphConditionalHandleCreate(&handle, captured, 0, 0));
    const bool fold = form == Form::ConditionalFolded;
    launchKernel(fold ? productRead<true> : productRead<false>,
                 LaunchShape{8 * 132, 256, 0, layer > 0}, s,
                 static_cast<const uint4 *>(b.weights[2 * layer]), b.words[2 * layer], b.sink,
                 handle, static_cast<const long long *>(b.valid), threshold);
    if (form == Form::ConditionalKernel)
      launchKernel(setCondition, LaunchShape{1, 32, 0, true}, s, handle,
                   static_cast<const long long *>(b.valid), threshold);
    if (conditional)
      conditionalAttention(s, side, handle, b, cycles);
    else
      launchKernel(attention<0>,
                   LaunchShape{kAttentionBlocks, kAttentionThreads, 0, form == Form::Plain}, s,
                   static_cast<const uint4 *>(b.cache), b.sink, cycles);
    // After a library call or a conditional node a kernel cannot be a
    // dependent launch: its predecessor is no kernel.
    launchKernel(productRead<false>, LaunchShape{8 * 132, 256, 0, form == Form::Plain}, s,
                 static_cast<const uint4 *>(b.weights[2 * layer + 1]), b.words[2 * layer + 1],
                 b.sink, cudaGraphConditionalHandle(0), static_cast<const long long *>(b.valid),
                 threshold);
  }
  CHECK_CUDA(cudaStreamEndCapture(s, &graph));
  const double us = timeAndDestroyGraph(graph, s);
  CHECK_CUDA(cudaStreamDestroy(side));
  CHECK_CUDA(cudaStreamDestroy(s));
  return us;
}

} // namespace

int main() {
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  Buffers b;
  for (int i = 0; i < 2 * kLayers; ++i) {
    const size_t bytes = i % 2 == 0 ? size_t(50) << 20 : size_t(67) << 19; // 50, 33.5 MB
    b.words[i] = bytes / 16;
    CHECK_CUDA(cudaMalloc(&b.weights[i], bytes));
    CHECK_CUDA(cudaMemset(b.weights[i], 1, bytes));
  }
  CHECK_CUDA(cudaMalloc(&b.cache, kCacheWords * 16));
  CHECK_CUDA(cudaMemset(b.cache, 2, kCacheWords * 16));
  CHECK_CUDA(cudaMalloc(&b.sink, 8 * 132 * 4));
  CHECK_CUDA(cudaMalloc(&b.valid, 8));
  const long long valid = 1025;
  CHECK_CUDA(cudaMemcpy(b.valid, &valid, 8, cudaMemcpyHostToDevice));
  const long long cycles = 10000; // about 5 us at 1.98 GHz
  std::printf("%s: %d layers of product (50 MB), attention stand-in (%d blocks), product "
              "(33.5 MB); us a chain\n",
              prop.name, kLayers, kAttentionBlocks);
  std::printf("| form | us | us a layer over the plain chain |\n|---|---|---|\n");
  const double plain = timeChain(b, Form::Plain, cycles, 2048);
  std::printf("| plain (every launch dependent) | %.1f | 0 |\n", plain);
  struct Row {
    const char *name;
    Form form;
    long long threshold;
  };
  for (Row row : {Row{"attention and the product after it plain (cuDNN-like)",
                      Form::LibraryLike, 2048},
                  Row{"if/else node, the if body taken, set by a kernel of its own",
                      Form::ConditionalKernel, 2048},
                  Row{"if/else node, the else body taken, set by a kernel of its own",
                      Form::ConditionalKernel, 512},
                  Row{"if/else node, the if body taken, set by the product before it",
                      Form::ConditionalFolded, 2048},
                  Row{"if/else node, the else body taken, set by the product before it",
                      Form::ConditionalFolded, 512}}) {
    const double us = timeChain(b, row.form, cycles, row.threshold);
    std::printf("| %s | %.1f | %.2f |\n", row.name, us, (us - plain) / kLayers);
  }
  return 0;
}
