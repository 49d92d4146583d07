//===- CudaEmulation.h - Run emitted CUDA kernels on the CPU, for tests ---===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Just enough of CUDA for the code Stride's emitter generates to compile as
// host C++ and run, so that machines without a GPU can check what the
// kernels compute (test/Emu/CMakeLists.txt and emulate.sh say how the
// tests use it). Force-included before the emitted
// source (`g++ -include CudaEmulation.h`); stub cuda_fp16.h/cuda_bf16.h
// headers next to this file satisfy its #includes.
//
// Execution model: a launch runs its blocks one after another, first to last
// or, with STRIDE_EMU_BLOCKS=reverse, last to first (the blocks of a
// thread-block cluster together); the threads of a block run as fibers
// (EmuFibers.h says how and why), each until it waits at a barrier, so
// __syncthreads is a real barrier and __shared__ (a function-local static)
// is shared by exactly the threads of one block. The
// blocks of a cluster run together: each gets its own STRIDE_SHARED
// arrays, stride_cluster_sync is a barrier over the cluster's threads and
// stride_cluster_read reads another block's array. A block's array read
// that way must hold, until the next cluster barrier, what the last one
// left in it: a write between the two would race with the read on a GPU
// (say, the next row's partial result written before a slower block read
// this row's, where a barrier is missing), so the barrier checks it and the
// run ends with an error; so does a read after a cluster's last barrier
// (its block may have left). Warp shuffles exchange values through a per-warp
// barrier: a shuffle that not all 32 lanes reach deadlocks, which the
// emulator reports as an error (on a GPU it would be undefined behaviour).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_EMU_CUDAEMULATION_H
#define STRIDE_TEST_EMU_CUDAEMULATION_H

#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "EmuFibers.h"
#include "HalfBits.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __cluster_dims__(...)
#define __shared__ static

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};

namespace stride_emu {

struct Warp {
  FiberBarrier<> barrier{32};
  uint64_t slots[32];
};

struct Cluster;

/// A STRIDE_SHARED array: its bytes, and whether a block of the cluster
/// read it through stride_cluster_read since the last cluster barrier.
struct SharedArray {
  std::vector<unsigned char> bytes;
  std::atomic<bool> readByCluster{false};
};

struct Block {
  explicit Block(unsigned threads)
      : barrier(threads), warps((threads + 31) / 32) {
    for (auto &w : warps)
      w = std::make_unique<Warp>();
  }
  FiberBarrier<> barrier;
  std::vector<std::unique_ptr<Warp>> warps;
  /// The block's STRIDE_SHARED arrays by name, made by its first thread to
  /// reach the declaration.
  std::map<std::string, SharedArray> shared;
  std::mutex sharedMutex;
  Cluster *cluster = nullptr;
};

/// Runs when every thread of a cluster has reached a cluster barrier.
struct ClusterBarrierCheck {
  Cluster *cluster;
  void operator()() noexcept;
};

/// The blocks of one thread-block cluster, in rank order, a barrier over
/// all their threads, and each block's arrays as the last barrier left
/// them.
struct Cluster {
  explicit Cluster(unsigned threads)
      : barrier(threads, ClusterBarrierCheck{this}) {}
  FiberBarrier<ClusterBarrierCheck> barrier;
  std::vector<Block *> blocks;
  std::vector<std::map<std::string, std::vector<unsigned char>>> atBarrier;

  /// Every array read through stride_cluster_read since the last barrier
  /// still holds what that barrier left (or the reads came after the last
  /// barrier, `atEnd`); else the run ends with an error. Then this
  /// barrier's contents are the reference for the next interval.
  void checkReads(bool atEnd) {
    for (size_t rank = 0; rank < blocks.size(); ++rank)
      for (auto &[name, array] : blocks[rank]->shared) {
        if (!array.readByCluster.exchange(false))
          continue;
        bool unchanged = !atEnd && rank < atBarrier.size() &&
                         atBarrier[rank].count(name) &&
                         atBarrier[rank].at(name) == array.bytes;
        if (unchanged)
          continue;
        std::fprintf(stderr, "stride_cluster_read: block %zu's array '%s' %s\n",
                     rank, name.c_str(),
                     atEnd ? "was read by the cluster after its last cluster "
                             "barrier (its block may have left)"
                           : "changed between two cluster barriers while the "
                             "cluster read it (a cluster barrier is missing "
                             "between the write and the reads)");
        std::fflush(stderr);
        std::_Exit(4);
      }
    if (atEnd)
      return;
    atBarrier.assign(blocks.size(), {});
    for (size_t rank = 0; rank < blocks.size(); ++rank)
      for (auto &[name, array] : blocks[rank]->shared)
        atBarrier[rank][name] = array.bytes;
  }
};

inline void ClusterBarrierCheck::operator()() noexcept {
  cluster->checkReads(/*atEnd=*/false);
}

inline thread_local dim3 threadIdx, blockIdx;
inline thread_local Block *currentBlock = nullptr;
inline dim3 blockDim, gridDim;
/// The launch's dynamic shared memory, bytes per block.
inline unsigned dynamicSharedBytes = 0;
inline std::mutex atomicMutex;

inline unsigned linearThread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

} // namespace stride_emu

using stride_emu::blockDim;
using stride_emu::gridDim;
using stride_emu::threadIdx;
using stride_emu::blockIdx;

inline void __syncthreads() { stride_emu::currentBlock->barrier.arrive_and_wait(); }

namespace stride_emu {
/// The calling block's shared array `name` of `count` elements.
template <typename T> T *blockShared(const char *name, size_t count) {
  std::lock_guard<std::mutex> lock(currentBlock->sharedMutex);
  std::vector<unsigned char> &bytes = currentBlock->shared[name].bytes;
  if (bytes.empty())
    bytes.resize(count * sizeof(T));
  return reinterpret_cast<T *>(bytes.data());
}
} // namespace stride_emu

#define STRIDE_SHARED(type, name, count)                                       \
  type *name = stride_emu::blockShared<type>(#name, count)
/// The block's dynamic shared memory: the launch's bytes, 16-byte aligned
/// (a vector's bytes past them are out of the array, which ASan reports).
#define STRIDE_DYNAMIC_SHARED(name)                                            \
  unsigned char *name = stride_emu::blockShared<unsigned char>(                \
      #name, stride_emu::dynamicSharedBytes)

inline void stride_cluster_sync() {
  stride_emu::currentBlock->cluster->barrier.arrive_and_wait();
}
/// The element at `p`, in a STRIDE_SHARED array of the calling block, in the
/// same array of the cluster's block `rank`, which is marked as read for the
/// next barrier's check. Called after a cluster barrier, which every thread
/// reaches after its declarations: the blocks' maps no longer change, so
/// they are read without their locks.
template <typename T> T stride_cluster_read(const T *p, unsigned rank) {
  const stride_emu::Block &own = *stride_emu::currentBlock;
  const auto *at = reinterpret_cast<const unsigned char *>(p);
  for (const auto &[name, array] : own.shared)
    if (at >= array.bytes.data() && at < array.bytes.data() + array.bytes.size()) {
      stride_emu::SharedArray &other =
          own.cluster->blocks.at(rank)->shared.at(name);
      other.readByCluster.store(true, std::memory_order_relaxed);
      T value;
      std::memcpy(&value, other.bytes.data() + (at - array.bytes.data()),
                  sizeof(T));
      return value;
    }
  std::fprintf(stderr, "stride_cluster_read: not a STRIDE_SHARED array\n");
  std::_Exit(4);
}

namespace stride_emu {
/// Every lane of the calling thread's warp publishes `value`; each gets the
/// value of lane `sourceOf(lane)` (its own when that lane is outside its
/// segment of `width` lanes).
template <typename T, typename SourceFn>
T exchange(T value, int width, SourceFn sourceOf) {
  static_assert(sizeof(T) <= 8, "shuffles move at most 8 bytes");
  unsigned linear = linearThread();
  Warp &w = *currentBlock->warps[linear / 32];
  unsigned lane = linear % 32;
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  w.slots[lane] = bits;
  w.barrier.arrive_and_wait();
  int source = sourceOf(static_cast<int>(lane));
  if (source < 0 || static_cast<unsigned>(source) / width != lane / width)
    source = static_cast<int>(lane);
  T result;
  std::memcpy(&result, &w.slots[source], sizeof(T));
  w.barrier.arrive_and_wait();
  return result;
}
} // namespace stride_emu

template <typename T>
T __shfl_xor_sync(unsigned, T value, int laneMask, int width = 32) {
  return stride_emu::exchange(value, width,
                              [&](int lane) { return lane ^ laneMask; });
}
template <typename T>
T __shfl_up_sync(unsigned, T value, unsigned delta, int width = 32) {
  return stride_emu::exchange(value, width, [&](int lane) {
    return lane % width >= static_cast<int>(delta) ? lane - static_cast<int>(delta)
                                                   : lane;
  });
}
template <typename T>
T __shfl_sync(unsigned, T value, int srcLane, int width = 32) {
  return stride_emu::exchange(value, width, [&](int lane) {
    return lane - lane % width + srcLane % width;
  });
}

namespace stride_emu {
/// Every lane of the calling thread's warp publishes `value`; each gets all
/// the lanes' values, in lane order (the prelude's emulated tensor-core
/// fragments: one exchange where shuffles would take one a register).
template <typename T> std::array<T, 32> gather(T value) {
  static_assert(sizeof(T) <= 8, "a lane publishes at most 8 bytes");
  unsigned linear = linearThread();
  Warp &w = *currentBlock->warps[linear / 32];
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  w.slots[linear % 32] = bits;
  w.barrier.arrive_and_wait();
  std::array<T, 32> all;
  for (int lane = 0; lane < 32; ++lane)
    std::memcpy(&all[lane], &w.slots[lane], sizeof(T));
  w.barrier.arrive_and_wait();
  return all;
}

/// Every lane of the calling thread's warp publishes `value`; returns the
/// mask of the lanes whose value equals it.
inline unsigned matchAny(int value) {
  unsigned linear = linearThread();
  Warp &w = *currentBlock->warps[linear / 32];
  w.slots[linear % 32] = static_cast<uint32_t>(value);
  w.barrier.arrive_and_wait();
  unsigned peers = 0;
  for (unsigned lane = 0; lane < 32; ++lane)
    if (w.slots[lane] == static_cast<uint32_t>(value))
      peers |= 1u << lane;
  w.barrier.arrive_and_wait();
  return peers;
}
} // namespace stride_emu

inline unsigned __match_any_sync(unsigned, int value) {
  return stride_emu::matchAny(value);
}
/// The mask of the warp's lanes whose `predicate` is nonzero.
inline unsigned __ballot_sync(unsigned, int predicate) {
  unsigned linear = stride_emu::linearThread();
  stride_emu::Warp &w = *stride_emu::currentBlock->warps[linear / 32];
  w.slots[linear % 32] = predicate != 0;
  w.barrier.arrive_and_wait();
  unsigned set = 0;
  for (unsigned lane = 0; lane < 32; ++lane)
    if (w.slots[lane] != 0)
      set |= 1u << lane;
  w.barrier.arrive_and_wait();
  return set;
}
inline void __syncwarp(unsigned = 0xffffffffu) {
  unsigned linear = stride_emu::linearThread();
  stride_emu::currentBlock->warps[linear / 32]->barrier.arrive_and_wait();
}
inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline int __ffs(int v) { return __builtin_ffs(v); }

// Bit casts.
inline float __int_as_float(int v) { return std::bit_cast<float>(v); }
inline unsigned __float_as_uint(float v) { return std::bit_cast<unsigned>(v); }
inline float __uint_as_float(unsigned v) { return std::bit_cast<float>(v); }
inline double __longlong_as_double(long long v) {
  return std::bit_cast<double>(v);
}

// 16-bit floats: round to nearest even from float and double.
struct __half {
  uint16_t bits;
};
struct __nv_bfloat16 {
  uint16_t bits;
};


inline float __half2float(__half h) {
  return static_cast<float>(stride_emu::halfBitsToDouble(h.bits));
}
inline __half __float2half_rn(float f) { return {stride_emu::doubleToHalfBits(f)}; }
inline __half __double2half(double d) { return {stride_emu::doubleToHalfBits(d)}; }
inline __half __ll2half_rn(long long v) {
  // Exact: |v| < 2^53 in practice for the tests; beyond, rounding twice.
  return {stride_emu::doubleToHalfBits(static_cast<double>(v))};
}
inline float __bfloat162float(__nv_bfloat16 h) {
  return static_cast<float>(stride_emu::bf16BitsToDouble(h.bits));
}
inline __nv_bfloat16 __float2bfloat16_rn(float f) {
  return {stride_emu::doubleToBf16Bits(f)};
}
inline __nv_bfloat16 __double2bfloat16(double d) {
  return {stride_emu::doubleToBf16Bits(d)};
}
inline __nv_bfloat16 __ll2bfloat16_rn(long long v) {
  return {stride_emu::doubleToBf16Bits(static_cast<double>(v))};
}

// Atomics.
inline float atomicAdd(float *p, float v) { return std::atomic_ref<float>(*p).fetch_add(v); }
inline double atomicAdd(double *p, double v) {
  return std::atomic_ref<double>(*p).fetch_add(v);
}
inline int atomicAdd(int *p, int v) {
  // Wrapping, as on a GPU.
  return static_cast<int>(std::atomic_ref<unsigned>(*reinterpret_cast<unsigned *>(p))
                              .fetch_add(static_cast<unsigned>(v)));
}
inline unsigned atomicAdd(unsigned *p, unsigned v) {
  return std::atomic_ref<unsigned>(*p).fetch_add(v);
}
inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  return std::atomic_ref<unsigned long long>(*p).fetch_add(v);
}
inline __half atomicAdd(__half *p, __half v) {
  std::lock_guard<std::mutex> lock(stride_emu::atomicMutex);
  __half old = *p;
  *p = __float2half_rn(__half2float(old) + __half2float(v));
  return old;
}
inline __nv_bfloat16 atomicAdd(__nv_bfloat16 *p, __nv_bfloat16 v) {
  std::lock_guard<std::mutex> lock(stride_emu::atomicMutex);
  __nv_bfloat16 old = *p;
  *p = __float2bfloat16_rn(__bfloat162float(old) + __bfloat162float(v));
  return old;
}
inline unsigned atomicCAS(unsigned *p, unsigned compare, unsigned value) {
  std::atomic_ref<unsigned>(*p).compare_exchange_strong(compare, value);
  return compare;
}
inline unsigned atomicOr(unsigned *p, unsigned v) {
  return std::atomic_ref<unsigned>(*p).fetch_or(v);
}
inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long compare,
                                    unsigned long long value) {
  std::atomic_ref<unsigned long long>(*p).compare_exchange_strong(compare, value);
  return compare;
}
inline int atomicExch(int *p, int v) { return std::atomic_ref<int>(*p).exchange(v); }
// A load through the L2 (the emulator has no caches).
template <typename T> T __ldcg(const T *p) { return *p; }
// Blocks may run concurrently: a sequentially consistent fence.
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// A failed device-side assertion ends the run, as it ends the CUDA context.
extern "C" inline void __assertfail(const char *message, const char *, unsigned,
                                    const char *, size_t) {
  std::fprintf(stderr, "device assertion failed: %s\n", message);
  std::fflush(stderr);
  std::_Exit(3);
}

#endif // STRIDE_TEST_EMU_CUDAEMULATION_H
