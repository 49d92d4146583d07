//===- EmuLaunch.h - The launch entry point of an emulated kernel library -===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Included by the table that emulate.sh generates after the emitted source:
//
//   #include "EmuLaunch.h"
//   STRIDE_EMU_KERNELS(STRIDE_EMU_KERNEL(full_0, 1), STRIDE_EMU_KERNEL(max_1, 4))
//
// (each kernel with its thread-block cluster's blocks, 1 without), which
// defines `stride_emu_launch`, the one symbol stride-emu looks up in the
// shared library: it runs one launch of the plan, block after block (a
// cluster's blocks together; last to first with STRIDE_EMU_BLOCKS=reverse),
// each block's threads as fibers (EmuFibers.h).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_EMU_EMULAUNCH_H
#define STRIDE_TEST_EMU_EMULAUNCH_H

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

namespace stride_emu {

template <typename P> P argument(uint64_t v) {
  if constexpr (std::is_pointer_v<P>)
    return reinterpret_cast<P>(static_cast<uintptr_t>(v));
  else
    return static_cast<P>(v);
}

template <typename... Ps, size_t... I>
void callWith(void (*f)(Ps...), const uint64_t *args, std::index_sequence<I...>) {
  f(argument<Ps>(args[I])...);
}

template <typename... Ps>
constexpr int arity(void (*)(Ps...)) {
  return sizeof...(Ps);
}

template <auto F> void invoke(const uint64_t *args) {
  callWith(F, args, std::make_index_sequence<arity(F)>{});
}

struct KernelEntry {
  const char *name;
  int arity;
  void (*invoke)(const uint64_t *args);
  unsigned clusterBlocks;
};

/// The calling thread's fiber scheduler, whose stacks serve every launch.
inline FiberScheduler &fiberScheduler() {
  static thread_local FiberScheduler scheduler;
  return scheduler;
}

/// Runs the blocks `first`.. of a cluster of `blocks` blocks along x, each
/// of `block` threads, all together (a fiber per thread).
inline void runCluster(const KernelEntry &kernel, dim3 first, unsigned blocks,
                       const unsigned *block, const uint64_t *args) {
  unsigned threads = block[0] * block[1] * block[2];
  Cluster cluster(threads * blocks);
  std::vector<std::unique_ptr<Block>> members;
  for (unsigned b = 0; b < blocks; ++b) {
    members.push_back(std::make_unique<Block>(threads));
    members.back()->cluster = &cluster;
    cluster.blocks.push_back(members.back().get());
  }
  std::vector<Fiber> fibers(threads * blocks);
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < threads; ++t) {
      Fiber &fiber = fibers[b * threads + t];
      fiber.enter = [&, b, t] {
        stride_emu::blockIdx = {first.x + b, first.y, first.z};
        stride_emu::threadIdx = {t % block[0], t / block[0] % block[1],
                                 t / (block[0] * block[1])};
        stride_emu::currentBlock = members[b].get();
      };
      fiber.body = [&] { kernel.invoke(args); };
    }
  fiberScheduler().run(fibers);
  cluster.checkReads(/*atEnd=*/true);
}

inline int launch(const KernelEntry *table, int count, const char *name,
                  const unsigned *grid, const unsigned *block, unsigned shared,
                  const uint64_t *args, int numArgs) {
  const KernelEntry *kernel = nullptr;
  for (int i = 0; i < count; ++i)
    if (std::strcmp(table[i].name, name) == 0)
      kernel = &table[i];
  if (!kernel)
    return 1;
  if (kernel->arity != numArgs)
    return 2;
  unsigned blocks = kernel->clusterBlocks;
  if (grid[0] % blocks != 0)
    return 3; // a grid of whole clusters, as a GPU requires
  gridDim = {grid[0], grid[1], grid[2]};
  blockDim = {block[0], block[1], block[2]};
  dynamicSharedBytes = shared;
  std::vector<dim3> firsts;
  for (unsigned bz = 0; bz < grid[2]; ++bz)
    for (unsigned by = 0; by < grid[1]; ++by)
      for (unsigned bx = 0; bx < grid[0]; bx += blocks)
        firsts.push_back({bx, by, bz});
  // A GPU runs blocks in any order: the tests run them first to last and,
  // with STRIDE_EMU_BLOCKS=reverse, last to first.
  const char *order = std::getenv("STRIDE_EMU_BLOCKS");
  if (order && std::strcmp(order, "reverse") == 0)
    std::reverse(firsts.begin(), firsts.end());
  for (dim3 first : firsts)
    runCluster(*kernel, first, blocks, block, args);
  return 0;
}

} // namespace stride_emu

#define STRIDE_EMU_KERNEL(name, clusterBlocks)                                 \
  stride_emu::KernelEntry {                                                    \
    #name, stride_emu::arity(&name), &stride_emu::invoke<&name>, clusterBlocks \
  }

#define STRIDE_EMU_KERNELS(...)                                                \
  static const stride_emu::KernelEntry strideEmuTable[] = {__VA_ARGS__};       \
  extern "C" int stride_emu_launch(const char *name, const unsigned *grid,     \
                                   const unsigned *block, unsigned shared,     \
                                   const uint64_t *args, int numArgs) {        \
    return stride_emu::launch(strideEmuTable,                                  \
                              sizeof(strideEmuTable) /                         \
                                  sizeof(strideEmuTable[0]),                   \
                              name, grid, block, shared, args, numArgs);       \
  }

#endif // STRIDE_TEST_EMU_EMULAUNCH_H
