// L2-resident weights probe (bench/NOTES.md section 86): does a decode
// step, replayed back to back, read part of its weights from L2 when the
// launches that read them carry an access-policy window whose hits
// persist, inside the L2 the context sets aside for persisting lines
// (cudaLimitPersistingL2CacheSize)?
//
// Every weight of the step is read once a step and the step reads 1.9 GB,
// so without a window nothing of one step's weights is left in L2 for the
// next (sections 74-85 measured every form against the bytes over the
// copy bandwidth). Persisting lines keep the set-aside part of L2 against
// the normal lines streaming through the rest, so up to the set-aside's
// bytes of the weights would come from L2 at every step after the first:
// about 8 us at 33.5 MB over 4.2 TB/s, the size of what batch 1 still
// needs at position 1024.
//
// The chain (chain_products.h): the step's 17 products at bench/decode's
// dims, bf16, one row, dependent launches, captured once and replayed
// (timeGraphExec: 5 replays to warm up, then the median of 40 samples of
// 10). Rows, at each set-aside (the device's largest, and less):
//   no window                     the set-aside alone
//   first Q/K/V product           a window over the first set-aside bytes
//                                 of layer 0's Q/K/V weight (50 MB)
//   first O projection            layer 0's O weight (33.5 MB), whole or
//                                 its first set-aside bytes
//   O projections, a share each   each layer's O weight, its first quarter
//                                 of the set-aside
//   first gate/up product         its first set-aside bytes (235 MB)
//   LM head                       its first set-aside bytes (262 MB)
//   whole Q/K/V, a hit ratio      the window over all 50 MB, hitRatio the
//                                 set-aside over 50 MB
// and the same windows on the read ceiling's kernel (the bytes alone).
// Each row's output must equal the chain's without a window. The captured
// kernel nodes' windows are read back from the graph, to show the capture
// kept them.
//
// Build and run on the GPU machine, from this folder:
//   nvcc -O3 -arch=sm_90 -o l2resident l2_resident_probe.cu && ./l2resident
#include "chain_products.h"

#include <cstring>
#include <functional>
#include <string>

namespace {

struct Window {
  int product; // the chain's product whose weight it covers, -1 for none
  size_t bytes;
  float hitRatio;
};
using Placement = std::vector<Window>;

cudaAccessPolicyWindow policyOf(const Product &p, const Window &w) {
  cudaAccessPolicyWindow window = {};
  window.base_ptr = const_cast<__nv_bfloat16 *>(p.weight);
  window.num_bytes = w.bytes;
  window.hitRatio = w.hitRatio;
  window.hitProp = cudaAccessPropertyPersisting;
  window.missProp = cudaAccessPropertyStreaming;
  return window;
}

// The chain's products as dependent launches, each with its window of
// `placement` (none for the others).
void launchWindowedChain(const Buffers &b, const Placement &placement, cudaStream_t s) {
  for (int i = 0; i < b.chain.count; ++i) {
    const Product &p = b.chain.p[i];
    LaunchShape shape{productBlocks(p), kThreads, 0, i > 0};
    for (const Window &w : placement)
      if (w.product == i)
        shape.window = policyOf(p, w);
    launchKernel(productKernel<false>, shape, s, p);
  }
}

// The same windows on the read ceiling's kernel.
void launchWindowedReads(const Buffers &b, const Placement &placement, int blocks,
                         unsigned *sink, cudaStream_t s) {
  for (int i = 0; i < b.chain.count; ++i) {
    const Product &p = b.chain.p[i];
    LaunchShape shape{blocks, 256, 0, i > 0};
    for (const Window &w : placement)
      if (w.product == i)
        shape.window = policyOf(p, w);
    launchKernel(readKernel<>, shape, s, reinterpret_cast<const uint4 *>(p.weight),
                 size_t(p.k) * p.n * 2 / 16, sink);
  }
}

// Captures `enqueue`, prints the windows its kernel nodes hold (once per
// set-aside: whether a capture keeps a launch's window), and times the
// replays.
double timeCaptured(const std::function<void(cudaStream_t)> &enqueue, bool showWindow) {
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = captureGraph(enqueue, stream);
  if (showWindow) {
    size_t count = 0;
    CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &count));
    std::vector<cudaGraphNode_t> nodes(count);
    CHECK_CUDA(cudaGraphGetNodes(graph, nodes.data(), &count));
    int windowed = 0;
    size_t bytes = 0;
    for (cudaGraphNode_t node : nodes) {
      cudaGraphNodeType type;
      CHECK_CUDA(cudaGraphNodeGetType(node, &type));
      if (type != cudaGraphNodeTypeKernel)
        continue;
      cudaKernelNodeAttrValue value = {};
      CHECK_CUDA(cudaGraphKernelNodeGetAttribute(
          node, cudaKernelNodeAttributeAccessPolicyWindow, &value));
      if (value.accessPolicyWindow.num_bytes > 0) {
        ++windowed;
        bytes += value.accessPolicyWindow.num_bytes;
      }
    }
    std::printf("(the capture's kernel nodes: %d of %zu with a window, %zu bytes in all)\n",
                windowed, count, bytes);
  }
  const double us = timeAndDestroyGraph(graph, stream);
  CHECK_CUDA(cudaStreamDestroy(stream));
  return us;
}

size_t weightBytes(const Product &p) { return size_t(p.k) * p.n * 2; }

} // namespace

int main() {
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  std::printf("%s, %d SMs; L2 %d MB, largest persisting set-aside %d bytes, largest "
              "window %d bytes\n",
              prop.name, sms, prop.l2CacheSize >> 20, prop.persistingL2CacheMaxSize,
              prop.accessPolicyMaxWindowSize);
  if (prop.persistingL2CacheMaxSize <= 0) {
    std::printf("this device sets no L2 aside for persisting lines\n");
    return 0;
  }
  Buffers b = makeChain();
  const ChainFloor measured = chainFloor(b);
  const double bandwidth = measured.bandwidth, floorUs = measured.us;
  std::printf("copy bandwidth %.2f TB/s; %zu MB of weights in %d products; floor %.1f us\n",
              bandwidth / 1e12, b.bytes >> 20, b.chain.count, floorUs);
  unsigned *sink;
  CHECK_CUDA(cudaMalloc(&sink, size_t(8) * sms * 4));

  const Placement none = {};
  launchWindowedChain(b, none, 0);
  const std::vector<__nv_bfloat16> reference = output(b);
  const double plain = timeCaptured([&](cudaStream_t s) { launchWindowedChain(b, none, s); },
                                    false);
  const double plainReads = timeCaptured(
      [&](cudaStream_t s) { launchWindowedReads(b, none, 8 * sms, sink, s); }, false);
  std::printf("no set-aside: products %.1f us, reads %.1f us\n\n", plain, plainReads);
  std::printf("| set-aside MB | window | products us | saved us | reads us | saved us | "
              "output equal |\n|---|---|---|---|---|---|---|\n");

  const size_t largest = size_t(prop.persistingL2CacheMaxSize);
  const size_t maxWindow = size_t(prop.accessPolicyMaxWindowSize);
  for (size_t setAside : {largest, largest * 3 / 4, largest / 2, largest / 4}) {
    CHECK_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, setAside));
    size_t granted = 0;
    CHECK_CUDA(cudaDeviceGetLimit(&granted, cudaLimitPersistingL2CacheSize));
    auto prefix = [&](int product) {
      return Window{product, std::min({setAside, weightBytes(b.chain.p[product]), maxWindow}),
                    1.0f};
    };
    const std::vector<std::pair<std::string, Placement>> placements = {
        {"none", none},
        {"first Q/K/V product", {prefix(0)}},
        {"first O projection", {prefix(1)}},
        {"O projections, a quarter each",
         {Window{1, setAside / 4, 1.0f}, Window{5, setAside / 4, 1.0f},
          Window{9, setAside / 4, 1.0f}, Window{13, setAside / 4, 1.0f}}},
        {"first gate/up product", {prefix(2)}},
        {"LM head", {prefix(16)}},
        {"whole Q/K/V, hit ratio",
         {Window{0, std::min(weightBytes(b.chain.p[0]), maxWindow),
                 float(double(setAside) / double(weightBytes(b.chain.p[0])))}}},
    };
    bool first = true;
    for (const auto &entry : placements) {
      const std::string &name = entry.first;
      const Placement &placement = entry.second;
      // Each row starts from an L2 with no persisting lines.
      CHECK_CUDA(cudaCtxResetPersistingL2Cache());
      launchWindowedChain(b, placement, 0);
      const bool equal = output(b) == reference;
      const double us = timeCaptured(
          [&](cudaStream_t s) { launchWindowedChain(b, placement, s); },
          first && !placement.empty());
      CHECK_CUDA(cudaCtxResetPersistingL2Cache());
      const double reads = timeCaptured(
          [&](cudaStream_t s) { launchWindowedReads(b, placement, 8 * sms, sink, s); }, false);
      std::printf("| %.1f | %s | %.1f | %.1f | %.1f | %.1f | %s |\n", granted / 1048576.0,
                  name.c_str(), us, plain - us, reads, plainReads - reads,
                  equal ? "yes" : "NO");
      first = first && placement.empty();
    }
  }
  CHECK_CUDA(cudaCtxResetPersistingL2Cache());
  CHECK_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
  std::printf("\nfloor %.1f us (weights / copy bandwidth)\n", floorUs);
  return 0;
}
