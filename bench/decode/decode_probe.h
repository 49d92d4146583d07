// What the decode probes (tiled_decode_probe.cu, cluster_decode_probe.cu,
// persistent_chain_probe.cu) share: bench/decode's attention dims, a
// case's inputs and their f64 reference, the 16-byte asynchronous copy,
// how a probe launches a kernel, and the timing of bench/ceiling/timing.h.
// bench/NOTES.md section 74.
#ifndef STRIDE_BENCH_DECODE_DECODE_PROBE_H
#define STRIDE_BENCH_DECODE_DECODE_PROBE_H

#include "../ceiling/timing.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <random>

// One layer of bench/decode's decoder: 32 query heads on 8 key/value
// heads of 128, a static cache of 4096 positions.
constexpr int G = 4, D = 128, DV = 128, KV_HEADS = 8, CAPACITY = 4096;
// Launches in a timed graph, each with a cache of its own, so that no
// launch finds its keys and values in L2 (as attention_sweep.py).
constexpr int COPIES = 32;

// 16 bytes into shared memory, or 16 zero bytes (nothing read) where
// `bytes` is 0.
__device__ inline void copyAsync16(void *shared, const void *global,
                                   unsigned bytes) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s),
               "l"(global), "r"(bytes)
               : "memory");
}

// A thread's scores of one key row (D bf16 in shared memory, 16-byte
// aligned) against ROWS query rows (f32 in shared memory, D apart), added
// into `s`.
template <int ROWS>
__device__ inline void scoreKey(const __nv_bfloat16 *keyRow,
                                const float *query, float (&s)[ROWS]) {
#pragma unroll
  for (int d = 0; d < D; d += 8) {
    uint4 raw = *reinterpret_cast<const uint4 *>(keyRow + d);
    const __nv_bfloat162 *pair = reinterpret_cast<const __nv_bfloat162 *>(&raw);
    float kf[8];
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      float2 f = __bfloat1622float2(pair[e]);
      kf[2 * e] = f.x;
      kf[2 * e + 1] = f.y;
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
#pragma unroll
      for (int e = 0; e < 8; ++e)
        s[r] += query[r * D + d + e] * kf[e];
  }
}

// Adds weight `p` times 4 consecutive bf16 values at `value` (8-byte
// aligned, in shared memory) into `acc`.
__device__ inline void addWeighted4(const __nv_bfloat16 *value, float p,
                                    float (&acc)[4]) {
  uint2 raw = *reinterpret_cast<const uint2 *>(value);
  const __nv_bfloat162 *pair = reinterpret_cast<const __nv_bfloat162 *>(&raw);
  float2 a = __bfloat1622float2(pair[0]), c = __bfloat1622float2(pair[1]);
  acc[0] += p * a.x;
  acc[1] += p * a.y;
  acc[2] += p * c.x;
  acc[3] += p * c.y;
}

// The warp's maximum and sum of each lane's `x`, in every lane.
__device__ inline float warpMax(float x) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, off));
  return x;
}
// The sum of the products of two groups of 8 bf16 elements (16-byte
// loads), in f32.
__device__ inline float dot8(uint4 w, uint4 x) {
  const __nv_bfloat162 *a = reinterpret_cast<const __nv_bfloat162 *>(&w);
  const __nv_bfloat162 *b = reinterpret_cast<const __nv_bfloat162 *>(&x);
  float s = 0.0f;
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    float2 fa = __bfloat1622float2(a[e]), fb = __bfloat1622float2(b[e]);
    s += fa.x * fb.x + fa.y * fb.y;
  }
  return s;
}

__device__ inline float warpSum(float x) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    x += __shfl_xor_sync(0xffffffffu, x, off);
  return x;
}

// The weight of a state or score `x` against the maximum `m`: 0 for -inf.
__device__ inline float weightOf(float x, float m) {
  return x == -INFINITY ? 0.0f : __expf(x - m);
}

// A warp's softmax of the `n` scores at `w` in place (a score of -inf
// weighs 0), into their maximum and sum of weights.
__device__ inline void warpSoftmax(float *w, int n, float &m, float &l) {
  const int lane = threadIdx.x % 32;
  m = -INFINITY;
  for (int j = lane; j < n; j += 32)
    m = fmaxf(m, w[j]);
  m = warpMax(m);
  l = 0.0f;
  for (int j = lane; j < n; j += 32) {
    w[j] = weightOf(w[j], m);
    l += w[j];
  }
  l = warpSum(l);
}

// A decode step's attention at `position`: random queries, keys and values
// (N(0, 1) in bf16), the positions past the valid ones NaN (a kernel that
// reads them fails the check), COPIES caches on the device.
struct DecodeCase {
  int batch, units;
  long long valid;
  size_t qElems, kvElems;
  std::vector<__nv_bfloat16> hq, hk, hv;
  __nv_bfloat16 *q = nullptr, *o = nullptr;
  long long *len = nullptr;
  __nv_bfloat16 *k[COPIES], *v[COPIES];

  DecodeCase(int batch, long long position)
      : batch(batch), units(batch * KV_HEADS), valid(position + 1),
        qElems(size_t(batch) * KV_HEADS * G * D),
        kvElems(size_t(batch) * KV_HEADS * CAPACITY * D), hq(qElems),
        hk(kvElems), hv(kvElems) {
    std::mt19937 rng(7);
    std::normal_distribution<float> normal;
    for (auto *h : {&hq, &hk, &hv})
      for (auto &x : *h)
        x = __float2bfloat16(normal(rng));
    for (int u = 0; u < units; ++u)
      for (long long j = valid; j < CAPACITY; ++j)
        for (int d = 0; d < D; ++d) {
          hk[(size_t(u) * CAPACITY + j) * D + d] = __float2bfloat16(NAN);
          hv[(size_t(u) * CAPACITY + j) * DV + d] = __float2bfloat16(NAN);
        }
    CHECK_CUDA(cudaMalloc(&q, qElems * 2));
    CHECK_CUDA(cudaMalloc(&o, qElems * 2));
    CHECK_CUDA(cudaMalloc(&len, batch * 8));
    CHECK_CUDA(cudaMemcpy(q, hq.data(), qElems * 2, cudaMemcpyHostToDevice));
    std::vector<long long> lengths(batch, valid);
    CHECK_CUDA(cudaMemcpy(len, lengths.data(), batch * 8, cudaMemcpyHostToDevice));
    for (int c = 0; c < COPIES; ++c) {
      CHECK_CUDA(cudaMalloc(&k[c], kvElems * 2));
      CHECK_CUDA(cudaMalloc(&v[c], kvElems * 2));
      CHECK_CUDA(cudaMemcpy(k[c], hk.data(), kvElems * 2, cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemcpy(v[c], hv.data(), kvElems * 2, cudaMemcpyHostToDevice));
    }
  }
  ~DecodeCase() {
    cudaFree(q);
    cudaFree(o);
    cudaFree(len);
    for (int c = 0; c < COPIES; ++c) {
      cudaFree(k[c]);
      cudaFree(v[c]);
    }
  }

  // The largest |difference| of the device's output from softmax(q k^T /
  // sqrt(D)) v in f64 over the valid keys (0 where there is none).
  double maxDiff() const {
    std::vector<__nv_bfloat16> ho(qElems);
    CHECK_CUDA(cudaMemcpy(ho.data(), o, qElems * 2, cudaMemcpyDeviceToHost));
    double scale = 1.0 / std::sqrt(double(D)), worst = 0;
    for (int u = 0; u < units; ++u)
      for (int r = 0; r < G; ++r) {
        const __nv_bfloat16 *qr = hq.data() + (size_t(u) * G + r) * D;
        std::vector<double> p(valid);
        double m = -1e300, l = 0;
        for (long long j = 0; j < valid; ++j) {
          double s = 0;
          for (int d = 0; d < D; ++d)
            s += double(__bfloat162float(qr[d])) *
                 __bfloat162float(hk[(size_t(u) * CAPACITY + j) * D + d]);
          p[j] = s * scale;
          m = std::max(m, p[j]);
        }
        for (auto &x : p)
          l += (x = std::exp(x - m));
        for (int d = 0; d < DV; ++d) {
          double acc = 0;
          for (long long j = 0; j < valid; ++j)
            acc += p[j] * __bfloat162float(hv[(size_t(u) * CAPACITY + j) * DV + d]);
          double got = __bfloat162float(ho[(size_t(u) * G + r) * DV + d]);
          worst = std::max(worst, std::fabs(got - (valid ? acc / l : 0.0)));
        }
      }
    return worst;
  }
};

// Microseconds a launch of `launch(stream, copy)`: COPIES launches, a
// cache each, in one graph (timeGraph), over COPIES.
template <typename Launch> double timePerLaunch(Launch launch) {
  return timeGraph([&](cudaStream_t s) {
           for (int c = 0; c < COPIES; ++c)
             launch(s, c);
         }) /
         COPIES;
}

// How a probe launches a kernel: `grid` x `block` threads with `shared`
// dynamic bytes; as a dependent launch (programmatic stream
// serialization, as the backend launches its kernels); in clusters of
// `cluster` blocks where it is above 1; cooperatively (every block
// resident at once); with an L2 access-policy window where `window` has
// bytes (l2_resident_probe.cu).
struct LaunchShape {
  int grid, block;
  size_t shared = 0;
  bool dependent = false;
  int cluster = 1;
  bool cooperative = false;
  cudaAccessPolicyWindow window = {};
};

template <typename... Params, typename... Args>
void launchKernel(void (*kernel)(Params...), const LaunchShape &shape,
                  cudaStream_t stream, Args... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(shape.grid);
  config.blockDim = dim3(shape.block);
  config.dynamicSmemBytes = shape.shared;
  config.stream = stream;
  cudaLaunchAttribute attrs[4];
  unsigned count = 0;
  if (shape.dependent) {
    attrs[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[count++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (shape.cluster > 1) {
    attrs[count].id = cudaLaunchAttributeClusterDimension;
    attrs[count].val.clusterDim.x = shape.cluster;
    attrs[count].val.clusterDim.y = 1;
    attrs[count++].val.clusterDim.z = 1;
  }
  if (shape.cooperative) {
    attrs[count].id = cudaLaunchAttributeCooperative;
    attrs[count++].val.cooperative = 1;
  }
  if (shape.window.num_bytes > 0) {
    attrs[count].id = cudaLaunchAttributeAccessPolicyWindow;
    attrs[count++].val.accessPolicyWindow = shape.window;
  }
  config.attrs = attrs;
  config.numAttrs = count;
  CHECK_CUDA(cudaLaunchKernelEx(&config, kernel, args...));
}

#endif // STRIDE_BENCH_DECODE_DECODE_PROBE_H
