// What a row split over a thread-block cluster can reach (issue 17's wide
// rows: softmax and LayerNorm over rows of 32,768 and 65,536), probed with
// hand-written variants of Stride's cluster-row kernel, each timed next to
// the kernel stridec emits for the same graph (rows_generated.cu, written by
// build.sh) and a copy of the same bytes, by stride-run-gpu --bench's
// method (timing.h). bench/NOTES.md section 39 has the H100's figures.
//
// rowsKernel<T, L, C, NT, MODE, LN, MINB, VAR>: rows of L elements of T,
// one per cluster of C blocks of NT threads (__launch_bounds__(NT, MINB)),
// each thread L / (C * NT) elements in registers, softmax or (LN) LayerNorm
// with weight and bias, f32 math. A grid of fewer clusters than rows is
// persistent (each cluster loops over rows). MODE: how the row arrives:
//   0  loads into registers (Stride's kernel),
//   1  cp.async of each thread's elements of the next row into shared
//      memory while this row is reduced (4 bytes each),
//   2  bulk copies (TMA) of the next row into shared memory, issued by one
//      thread, completing on an mbarrier.
// VAR: bits of the other variants:
//   kChunks           each block a contiguous chunk of the row, 16-byte
//                     accesses (softmax only),
//   kNoExchange       the blocks do not combine their partial values (a
//                     wrong result: what the exchange costs),
//   kCopyOnly         load and store the row only,
//   kOnePair          one exchange per row of each block's pair (max, sum
//                     of exp(x - max)) or (mean, sum of squared
//                     deviations), combined exactly (online softmax,
//                     Chan's formula) in place of one exchange per
//                     reduction,
//   kNoRowEndBarrier  slots alternate between rows, no barrier ends a row,
//   kPush             thread 0 of each block pushes its value into every
//                     block's slot with st.async, which completes bytes on
//                     that block's mbarrier; each block waits on its own
//                     mbarrier (acquire at cluster scope) in place of a
//                     cluster barrier (release + acquire of all memory).
// wide16<L, NT, LN, IN_SHARED>: bf16 rows in one block, the row held as
// bf16 pairs in registers or in shared memory (intermediates rounded to
// bf16 and written back in place).
#include <cmath>
#include <cstdint>
#include <cuda_bf16.h>
#include <string>

#include "timing.h"

enum : int {
  kChunks = 1,
  kNoExchange = 2,
  kCopyOnly = 4,
  kOnePair = 8,
  kNoRowEndBarrier = 16,
  kPush = 32,
};

// --- PTX ------------------------------------------------------------------

__device__ __forceinline__ unsigned smem_addr(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void cp_async4(void *s, const void *g) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem_addr(s)), "l"(g) : "memory");
}
__device__ __forceinline__ void cp_async16(void *s, const void *g) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_addr(s)), "l"(g) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }
__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bulk_g2s(void *dst, const void *src, unsigned bytes, uint64_t *bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(smem_addr(dst)), "l"(src), "r"(bytes), "r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity) {
  unsigned done;
  do {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
  } while (!done);
}
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

template <typename T> __global__ void fillKernel(T *p, long long n, unsigned seed) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = (T)((h & 0xffffff) / float(0x1000000) * 8.0f - 4.0f);
  }
}

// How many clusters of `kernel` (blocks, for a cluster of 1) the device
// holds at once: the size of a persistent grid.
template <typename K> int activeClusters(K kernel, int grid, int threads, int cluster, size_t smem) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = cluster > 1 ? 1 : 0;
  int n = 0;
  if (cluster > 1) CHECK_CUDA(cudaOccupancyMaxActiveClusters(&n, (void *)kernel, &cfg));
  else {
    int multiprocessors = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, 0));
    CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, smem));
    n *= multiprocessors;
  }
  return n;
}

template <typename T> double maxDiff(const T *a, const T *b, long long n) {
  std::vector<T> x(n), y(n);
  CHECK_CUDA(cudaMemcpy(x.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(y.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (long long i = 0; i < n; ++i) {
    double d = std::fabs((double)(float)x[i] - (double)(float)y[i]);
    if (!(d <= worst)) worst = d; // NaN propagates
  }
  return worst;
}

// --- Kernels --------------------------------------------------------------

__device__ __forceinline__ void cl_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
template <typename V> __device__ __forceinline__ V cl_read(const V *p, unsigned rank) {
  const V *remote;
  asm volatile("mapa.u64 %0, %1, %2;" : "=l"(remote) : "l"(p), "r"(rank));
  return *remote;
}
__device__ __forceinline__ float ld(const float *p) { return *p; }
__device__ __forceinline__ float ld(const __nv_bfloat16 *p) { return __bfloat162float(*p); }
__device__ __forceinline__ void st(float *p, float v) { *p = v; }
__device__ __forceinline__ void st(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }

__device__ __forceinline__ unsigned mapa32(const void *p, unsigned rank) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem_addr(p)), "r"(rank));
  return r;
}
__device__ __forceinline__ void st_async(unsigned raddr, float v, unsigned rbar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(raddr), "r"(__float_as_uint(v)), "r"(rbar) : "memory");
}
__device__ __forceinline__ void mbar_wait_cluster(uint64_t *bar, unsigned parity) {
  unsigned done;
  do {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
  } while (!done);
}
__device__ __forceinline__ void st_async(unsigned raddr, float2 v, unsigned rbar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];" ::"r"(raddr), "f"(v.x), "f"(v.y), "r"(rbar) : "memory");
}
// Each block's thread 0 pushes its value into slot [rank] of every block's
// buffer round % 2 (st.async, completing bytes on that block's mbarrier);
// every thread waits on its block's mbarrier and gets the C values.
template <int C, typename V>
__device__ __forceinline__ V *pushAll(V v, V (*slots)[C], uint64_t *bars, int round, int rank) {
  const int b = round & 1;
  const unsigned parity = (round >> 1) & 1;
  if (threadIdx.x == 0) {
    mbar_expect_tx(&bars[b], C * sizeof(V));
#pragma unroll
    for (int c = 0; c < C; ++c) st_async(mapa32(&slots[b][rank], c), v, mapa32(&bars[b], c));
  }
  mbar_wait_cluster(&bars[b], parity);
  return slots[b];
}
template <int C, bool MAX>
__device__ __forceinline__ float pushCombine(float acc, float (*slots)[C], uint64_t *bars, int round, int rank) {
  const float *all = pushAll<C>(acc, slots, bars, round, rank);
  acc = all[0];
#pragma unroll
  for (int c = 1; c < C; ++c) acc = MAX ? fmaxf(acc, all[c]) : acc + all[c];
  return acc;
}

template <int NT, int C, bool MAX, bool NOCLUSTER = false>
__device__ __forceinline__ float rowCombine(float acc, float *shared, float *slot) {
  for (int o = 16; o > 0; o /= 2) {
    float x = __shfl_xor_sync(0xffffffffu, acc, o);
    acc = MAX ? fmaxf(acc, x) : acc + x;
  }
  if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = acc;
  __syncthreads();
  acc = shared[0];
  for (int w = 1; w < NT / 32; ++w) acc = MAX ? fmaxf(acc, shared[w]) : acc + shared[w];
  __syncthreads();
  if (C > 1 && !NOCLUSTER) {
    if (threadIdx.x == 0) slot[0] = acc;
    cl_sync();
    acc = cl_read(slot, 0u);
    for (unsigned b = 1; b < C; ++b) acc = MAX ? fmaxf(acc, cl_read(slot, b)) : acc + cl_read(slot, b);
  }
  return acc;
}

// LN: layernorm with weight w and bias b (else softmax).
template <typename T, int L, int C, int NT, int MODE, bool LN, int MINB, int VAR>
__global__ void __launch_bounds__(NT, MINB) rowsKernel(const T *__restrict__ in, const T *__restrict__ w,
                                                 const T *__restrict__ bias, T *__restrict__ out, int R) {
  constexpr int K = L / (C * NT);
  extern __shared__ __align__(128) unsigned char dyn[];
  T *stage = reinterpret_cast<T *>(dyn);
  __shared__ float shared0[NT / 32], shared1[NT / 32];
  __shared__ float slot0[1], slot1[1];
  __shared__ __align__(8) uint64_t bar;
  const int rank = C > 1 ? blockIdx.x % C : 0;
  const int t = threadIdx.x;
  const int first = blockIdx.x / C, step = gridDim.x / C;
  auto elem = [&](int k) { return (rank * NT + t) + k * C * NT; };
  auto prefetch = [&](int row) {
    if (MODE == 1) {
#pragma unroll
      for (int k = 0; k < K; ++k) cp_async4(&stage[k * NT + t], &in[(long long)row * L + elem(k)]);
      cp_async_commit();
    } else if (MODE == 2 && t == 0) {
      mbar_expect_tx(&bar, K * NT * sizeof(T));
      for (int k = 0; k < K; ++k)
        bulk_g2s(&stage[k * NT], &in[(long long)row * L + rank * NT + k * C * NT], NT * sizeof(T), &bar);
    }
  };
  if (MODE == 2) {
    if (t == 0) mbar_init(&bar, 1);
    __syncthreads();
  }
  __shared__ float pslots[2][C];
  __shared__ __align__(8) float2 ppairs[2][C];
  __shared__ __align__(8) uint64_t pbars[2];
  int round = 0;
  if constexpr ((VAR & kPush) != 0) {
    if (t == 0) { mbar_init(&pbars[0], 1); mbar_init(&pbars[1], 1); }
    cl_sync();
  }
  if (MODE != 0 && first < R) prefetch(first);
  unsigned parity = 0;
  int iter = 0;
  for (int row = first; row < R; row += step) {
    float v[K];
    if constexpr ((VAR & kChunks) != 0) {
      // each block a contiguous chunk of L / C elements, float4 accesses
      constexpr int K4 = L / C / NT / 4;
      const float4 *src = reinterpret_cast<const float4 *>(in + (long long)row * L + rank * (L / C));
      float4 *dst = reinterpret_cast<float4 *>(out + (long long)row * L + rank * (L / C));
      float4 q[K4];
      float a0 = -INFINITY;
#pragma unroll
      for (int k = 0; k < K4; ++k) { q[k] = src[t + k * NT]; a0 = fmaxf(a0, fmaxf(fmaxf(q[k].x, q[k].y), fmaxf(q[k].z, q[k].w))); }
      if constexpr ((VAR & kCopyOnly) == 0) {
        a0 = rowCombine<NT, C, true, (VAR & kNoExchange) != 0>(a0, shared0, slot0);
        float a1 = 0;
#pragma unroll
        for (int k = 0; k < K4; ++k) {
          q[k].x = __expf(q[k].x - a0); q[k].y = __expf(q[k].y - a0); q[k].z = __expf(q[k].z - a0); q[k].w = __expf(q[k].w - a0);
          a1 += q[k].x + q[k].y + q[k].z + q[k].w;
        }
        a1 = 1.0f / rowCombine<NT, C, false, (VAR & kNoExchange) != 0>(a1, shared1, slot1);
#pragma unroll
        for (int k = 0; k < K4; ++k) { q[k].x *= a1; q[k].y *= a1; q[k].z *= a1; q[k].w *= a1; }
      }
#pragma unroll
      for (int k = 0; k < K4; ++k) dst[t + k * NT] = q[k];
      if (C > 1 && (VAR & (kNoExchange | kCopyOnly)) == 0) cl_sync();
      continue;
    }
    if constexpr ((VAR & kCopyOnly) != 0) {
#pragma unroll
      for (int k = 0; k < K; ++k) v[k] = ld(&in[(long long)row * L + elem(k)]);
#pragma unroll
      for (int k = 0; k < K; ++k) st(&out[(long long)row * L + elem(k)], v[k]);
      continue;
    }
    if constexpr ((VAR & kOnePair) != 0) {
      // one exchange per row: each block's (max, sum of exp) or (sum, M2)
      __shared__ float2 pairSlot[2][1];
      const int par = (VAR & kNoRowEndBarrier) ? (iter & 1) : 0;
      ++iter;
      float a = LN ? 0.0f : -INFINITY;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        v[k] = ld(&in[(long long)row * L + elem(k)]);
        a = LN ? a + v[k] : fmaxf(a, v[k]);
      }
      a = rowCombine<NT, 1, !LN>(a, shared0, slot0); // block-local
      const float mb = LN ? a / (K * NT) : a;
      float b2 = 0;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        float d = v[k] - mb;
        b2 += LN ? d * d : __expf(d);
      }
      b2 = rowCombine<NT, 1, false>(b2, shared1, slot1);
      const float2 *pairs;
      if constexpr ((VAR & kPush) != 0) {
        pairs = pushAll<C>(make_float2(mb, b2), ppairs, pbars, round++, rank);
      } else {
        if (threadIdx.x == 0) pairSlot[par][0] = make_float2(mb, b2);
        cl_sync();
      }
      auto pairAt = [&](int c) -> float2 {
        if constexpr ((VAR & kPush) != 0) return pairs[c];
        else return cl_read(&pairSlot[par][0], (unsigned)c);
      };
      float M, S;
      if (LN) {
        float sum = 0;
        for (int c = 0; c < C; ++c) sum += pairAt(c).x;
        M = sum / C; // equal counts
        S = 0;
        for (int c = 0; c < C; ++c) { float2 q = pairAt(c); float d = q.x - M; S += q.y + (K * NT) * d * d; }
        S = rsqrtf(S / L + 1e-5f);
      } else {
        M = -INFINITY;
        for (int c = 0; c < C; ++c) M = fmaxf(M, pairAt(c).x);
        S = 0;
        for (int c = 0; c < C; ++c) { float2 q = pairAt(c); S += q.y * __expf(q.x - M); }
        S = 1.0f / S;
      }
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int e = elem(k);
        float y = LN ? (v[k] - M) * S * ld(&w[e]) + ld(&bias[e]) : __expf(v[k] - M) * S;
        st(&out[(long long)row * L + e], y);
      }
      if ((VAR & kNoRowEndBarrier) == 0) cl_sync();
      continue;
    }
    if (MODE == 1) cp_async_wait_all();
    if (MODE == 2) { mbar_wait(&bar, parity); parity ^= 1; }
    float acc0 = LN ? 0.0f : -INFINITY;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      v[k] = MODE == 0 ? ld(&in[(long long)row * L + elem(k)]) : ld(&stage[k * NT + t]);
      acc0 = LN ? acc0 + v[k] : fmaxf(acc0, v[k]);
    }
    if (MODE == 1 && row + step < R) prefetch(row + step); // own elements, already consumed
    acc0 = rowCombine<NT, C, !LN, (VAR & (kNoExchange | kPush)) != 0>(acc0, shared0, slot0);
    if constexpr ((VAR & kPush) != 0) acc0 = pushCombine<C, !LN>(acc0, pslots, pbars, round++, rank);
    if (MODE == 2 && row + step < R && t == 0) { fence_proxy_async(); prefetch(row + step); }
    const float m = LN ? acc0 / L : acc0;
    float acc1 = 0.0f;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      v[k] = LN ? v[k] - m : __expf(v[k] - m);
      acc1 += LN ? v[k] * v[k] : v[k];
    }
    acc1 = rowCombine<NT, C, false, (VAR & (kNoExchange | kPush)) != 0>(acc1, shared1, slot1);
    if constexpr ((VAR & kPush) != 0) acc1 = pushCombine<C, false>(acc1, pslots, pbars, round++, rank);
    const float s = LN ? rsqrtf(acc1 / L + 1e-5f) : 1.0f / acc1;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int e = elem(k);
      float y = v[k] * s;
      if (LN) y = y * ld(&w[e]) + ld(&bias[e]);
      st(&out[(long long)row * L + e], y);
    }
    if (C > 1 && (VAR & (kNoExchange | kPush)) == 0) cl_sync();
  }
  if ((VAR & (kNoRowEndBarrier | kPush)) != 0) cl_sync(); // no block leaves while another reads its slots
}

template <typename T, int L, int C, int NT, int MODE, bool LN, int MINB, int VAR>
struct RowsCase {
  static constexpr int K = L / (C * NT);
  static size_t smem() { return MODE == 0 ? 0 : (size_t)K * NT * sizeof(T); }
  static void setup() {
    auto k = rowsKernel<T, L, C, NT, MODE, LN, MINB, VAR>;
    CHECK_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem()));
    CHECK_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    if (C > 8) CHECK_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  }
  static int maxClusters() { setup(); return activeClusters(rowsKernel<T, L, C, NT, MODE, LN, MINB, VAR>, C * 1024, NT, C, smem()); }
  static void launch(cudaStream_t s, int clusters, const T *in, const T *w, const T *b, T *out, int R) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(clusters * C);
    cfg.blockDim = dim3(NT);
    cfg.dynamicSmemBytes = smem();
    cfg.stream = s;
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = C; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = C > 1 ? 1 : 0;
    CHECK_CUDA(cudaLaunchKernelEx(&cfg, rowsKernel<T, L, C, NT, MODE, LN, MINB, VAR>, in, w, b, out, R));
  }
};

// bf16 rows of L in one block of NT threads, f32 math, with the exp values
// (softmax) or x - mean (LayerNorm) rounded to bf16 as Stride's bf16
// semantics round every intermediate. The row is held as bf16 pairs, in
// registers (wide16<..., false>, L / NT elements a thread) or in shared
// memory (wide16<..., true>, each thread its own groups), loaded and
// stored 4 elements (8 bytes) at a time.
__device__ __forceinline__ void unpack(uint2 q, __nv_bfloat162 p[2]) {
  p[0] = *reinterpret_cast<__nv_bfloat162 *>(&q.x);
  p[1] = *reinterpret_cast<__nv_bfloat162 *>(&q.y);
}
__device__ __forceinline__ uint2 pack(const __nv_bfloat162 p[2]) {
  return make_uint2(*reinterpret_cast<const unsigned *>(&p[0]), *reinterpret_cast<const unsigned *>(&p[1]));
}
// The second phase on one pair: exp(x - m) or x - m, rounded; adds the
// values (or their squares) to s.
template <bool LN> __device__ __forceinline__ __nv_bfloat162 centerPair(__nv_bfloat162 x, float m, float &s) {
  float2 f = __bfloat1622float2(x);
  f.x = LN ? f.x - m : __expf(f.x - m);
  f.y = LN ? f.y - m : __expf(f.y - m);
  const __nv_bfloat162 y = __float22bfloat162_rn(f);
  f = __bfloat1622float2(y);
  s += LN ? f.x * f.x + f.y * f.y : f.x + f.y;
  return y;
}
// The result of one pair (elements e and e + 1): scaled, then (LN) times
// the weight plus the bias.
template <bool LN>
__device__ __forceinline__ __nv_bfloat162 outputPair(__nv_bfloat162 x, float scale, const __nv_bfloat16 *w,
                                                     const __nv_bfloat16 *bias, int e) {
  float2 f = __bfloat1622float2(x);
  f.x *= scale;
  f.y *= scale;
  if (LN) {
    const float2 wv = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&w[e]));
    const float2 bv = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&bias[e]));
    f.x = f.x * wv.x + bv.x;
    f.y = f.y * wv.y + bv.y;
  }
  return __float22bfloat162_rn(f);
}

template <int L, int NT, bool LN, bool IN_SHARED>
__global__ void __launch_bounds__(NT, 1) wide16(const __nv_bfloat16 *__restrict__ in, const __nv_bfloat16 *__restrict__ w,
                                               const __nv_bfloat16 *__restrict__ bias, __nv_bfloat16 *__restrict__ out, int R) {
  constexpr int G = L / NT / 4; // groups of 4 per thread
  extern __shared__ __align__(16) uint2 held[];
  __shared__ float shared0[NT / 32], shared1[NT / 32];
  const int t = threadIdx.x;
  __nv_bfloat162 x[IN_SHARED ? 2 : 2 * G]; // the row's pairs, in registers
  auto pairs = [&](int g) -> __nv_bfloat162 * { return IN_SHARED ? x : &x[2 * g]; };
  for (int row = blockIdx.x; row < R; row += gridDim.x) {
    const uint2 *src = reinterpret_cast<const uint2 *>(in + (long long)row * L);
    uint2 *dst = reinterpret_cast<uint2 *>(out + (long long)row * L);
    float a = LN ? 0.0f : -INFINITY;
#pragma unroll
    for (int g = 0; g < G; ++g) {
      const uint2 q = src[t + g * NT];
      if (IN_SHARED) held[t + g * NT] = q;
      __nv_bfloat162 *p = pairs(g);
      unpack(q, p);
      const float2 f0 = __bfloat1622float2(p[0]), f1 = __bfloat1622float2(p[1]);
      a = LN ? a + f0.x + f0.y + f1.x + f1.y : fmaxf(a, fmaxf(fmaxf(f0.x, f0.y), fmaxf(f1.x, f1.y)));
    }
    a = rowCombine<NT, 1, !LN>(a, shared0, nullptr);
    const float m = LN ? a / L : a;
    float s = 0;
#pragma unroll 4
    for (int g = 0; g < G; ++g) {
      __nv_bfloat162 *p = pairs(g);
      if (IN_SHARED) unpack(held[t + g * NT], p);
      p[0] = centerPair<LN>(p[0], m, s);
      p[1] = centerPair<LN>(p[1], m, s);
      if (IN_SHARED) held[t + g * NT] = pack(p);
    }
    s = rowCombine<NT, 1, false>(s, shared1, nullptr);
    const float scale = LN ? rsqrtf(s / L + 1e-5f) : 1.0f / s;
#pragma unroll 4
    for (int g = 0; g < G; ++g) {
      __nv_bfloat162 *p = pairs(g);
      if (IN_SHARED) unpack(held[t + g * NT], p);
      const int e = (t + g * NT) * 4;
      __nv_bfloat162 y[2] = {outputPair<LN>(p[0], scale, w, bias, e), outputPair<LN>(p[1], scale, w, bias, e + 2)};
      dst[t + g * NT] = pack(y);
    }
  }
}

template <int L, int NT, bool LN, bool IN_SHARED> struct Wide16Case {
  static constexpr const char *form = IN_SHARED ? "wide16, row in shared memory" : "wide16, row in registers";
  static constexpr int mode = 0, variants = 0, cluster = 1, threads = NT, minBlocks = 1, K = L / NT;
  static size_t smem() { return IN_SHARED ? (size_t)L * 2 : 0; }
  static int maxClusters() {
    CHECK_CUDA(cudaFuncSetAttribute(wide16<L, NT, LN, IN_SHARED>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)smem()));
    return activeClusters(wide16<L, NT, LN, IN_SHARED>, 1024, NT, 1, smem());
  }
  static void launch(cudaStream_t s, int clusters, const __nv_bfloat16 *in, const __nv_bfloat16 *w,
                     const __nv_bfloat16 *b, __nv_bfloat16 *out, int R) {
    wide16<L, NT, LN, IN_SHARED><<<clusters, NT, smem(), s>>>(in, w, b, out, R);
  }
};

// --- Driver ---------------------------------------------------------------

double copyBandwidth; // bytes per second, read + write

void report(const char *name, double bytes, double us, double diff) {
  double floorUs = bytes / copyBandwidth * 1e6;
  std::printf("| %s | %.2f | %.2f | %.1f%% | %.3g |\n", name, floorUs, us,
              100.0 * floorUs / us, diff);
}

// The kernels stridec emits for the six graphs (rows_generated.cu).
extern "C" __global__ void gen_softmax_f32_256x65536(const float *, float *);
extern "C" __global__ void gen_softmax_f32_512x32768(const float *, float *);
extern "C" __global__ void gen_softmax_bf16_512x65536(const __nv_bfloat16 *, __nv_bfloat16 *);
extern "C" __global__ void gen_layernorm_f32_256x65536(const float *, const float *, const float *, float *);
extern "C" __global__ void gen_layernorm_f32_512x32768(const float *, const float *, const float *, float *);
extern "C" __global__ void gen_layernorm_bf16_512x65536(const __nv_bfloat16 *, const __nv_bfloat16 *,
                                                        const __nv_bfloat16 *, __nv_bfloat16 *);

template <typename T> T *alloc(long long n, unsigned seed) {
  T *p;
  CHECK_CUDA(cudaMalloc(&p, n * sizeof(T)));
  fillKernel<T><<<(n + 255) / 256, 256>>>(p, n, seed);
  return p;
}

// One graph: the kernel stridec emits, a copy of the row bytes, then each
// variant (a grid of one cluster per row, then as many as fit at once),
// checked against the emitted kernel's output.
template <typename T, int R, int L, bool LN, typename Orig, typename... Cases>
void graph(const char *name, Orig generated, int origGrid, int origThreads) {
  const long long n = (long long)R * L;
  T *x = alloc<T>(n, 1), *w = alloc<T>(L, 2), *b = alloc<T>(L, 3);
  T *ref, *out;
  CHECK_CUDA(cudaMalloc(&ref, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&out, n * sizeof(T)));
  double bytes = 2.0 * n * sizeof(T) + (LN ? 2.0 * L * sizeof(T) : 0);
  auto launchOrig = [&](cudaStream_t s) {
    if constexpr (LN) generated<<<origGrid, origThreads, 0, s>>>(x, w, b, ref);
    else generated<<<origGrid, origThreads, 0, s>>>(x, ref);
  };
  launchOrig(0);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("\n%s (R %d, L %d)\n| kernel | floor us | us | %% floor | max diff |\n|---|---|---|---|---|\n", name, R, L);
  report("stride (generated)", bytes, timeGraph(launchOrig), 0.0);
  const double rowBytes = 2.0 * n * sizeof(T);
  report("copy kernel of x", rowBytes,
         rowBytes / copyBandwidthOf((const float4 *)x, (float4 *)out, n * sizeof(T)) * 1e6, 0.0);
  auto one = [&](auto c) {
    using C = decltype(c);
    int most = C::maxClusters();
    // One cluster per row, then persistent grids: as many clusters as fit
    // at once, 7/8 of that, and one more than fit (that one starts when a
    // cluster ends, after its rows).
    std::vector<int> grids = {R};
    if (most < R)
      for (int g : {most, most * 7 / 8, most + 1})
        grids.push_back(g);
    for (int clusters : grids) {
      CHECK_CUDA(cudaMemset(out, 0, n * sizeof(T)));
      auto launch = [&](cudaStream_t s) { C::launch(s, clusters, x, w, b, out, R); };
      launch(0);
      CHECK_CUDA(cudaDeviceSynchronize());
      double diff = maxDiff(ref, out, n);
      char label[256];
      std::snprintf(label, sizeof label, "%s, mode %d, variants %d, %d x %d threads (min %d), K %d, %d clusters (max %d), smem %zu",
                    C::form, C::mode, C::variants, C::cluster, C::threads, C::minBlocks, C::K, clusters, most, C::smem());
      report(label, bytes, timeGraph(launch), diff);
    }
  };
  (one(Cases{}), ...);
  cudaFree(x); cudaFree(w); cudaFree(b); cudaFree(ref); cudaFree(out);
}

template <typename T, int L, int C, int NT, int MODE, bool LN, int MINB = 2048 / NT, int VAR = 0>
struct Case : RowsCase<T, L, C, NT, MODE, LN, MINB, VAR> {
  static constexpr const char *form = "rowsKernel";
  static constexpr int mode = MODE, variants = VAR, cluster = C, threads = NT, minBlocks = MINB;
};

int main() {
  const long long bytes = 1LL << 30;
  float4 *a, *b;
  CHECK_CUDA(cudaMalloc(&a, bytes));
  CHECK_CUDA(cudaMalloc(&b, bytes));
  CHECK_CUDA(cudaMemset(a, 0, bytes));
  copyBandwidth = copyBandwidthOf(a, b, bytes);
  CHECK_CUDA(cudaFree(a));
  CHECK_CUDA(cudaFree(b));
  std::printf("copy bandwidth %.3f TB/s (a 1 GiB copy kernel, read + write)\n", copyBandwidth / 1e12);
  std::printf("each variant: a grid of one cluster per row, then persistent grids of as many clusters as fit at once, 7/8 of that, and one more\n");
  using bf = __nv_bfloat16;
  graph<float, 256, 65536, false, decltype(gen_softmax_f32_256x65536),
        Case<float, 65536, 8, 512, 0, false, 4, 0>, Case<float, 65536, 8, 512, 0, false, 4, kCopyOnly>,
        Case<float, 65536, 8, 512, 0, false, 4, kNoExchange>, Case<float, 65536, 8, 512, 0, false, 4, kChunks>,
        Case<float, 65536, 8, 512, 1, false>, Case<float, 65536, 8, 512, 2, false>,
        Case<float, 65536, 8, 512, 0, false, 4, kOnePair | kNoRowEndBarrier>,
        Case<float, 65536, 8, 512, 0, false, 4, kPush>, Case<float, 65536, 4, 512, 0, false, 2, kPush>,
        Case<float, 65536, 4, 512, 0, false, 2, kPush | kOnePair | kNoRowEndBarrier>>(
      "softmax_f32_256x65536", gen_softmax_f32_256x65536, 2048, 512);
  graph<float, 256, 65536, true, decltype(gen_layernorm_f32_256x65536),
        Case<float, 65536, 8, 512, 0, true, 3, 0>, Case<float, 65536, 8, 512, 0, true, 3, kPush>,
        Case<float, 65536, 8, 512, 0, true, 3, kPush | kOnePair | kNoRowEndBarrier>>(
      "layernorm_f32_256x65536", gen_layernorm_f32_256x65536, 2048, 512);
  graph<float, 512, 32768, true, decltype(gen_layernorm_f32_512x32768),
        Case<float, 32768, 4, 512, 0, true, 3, 0>, Case<float, 32768, 4, 512, 0, true, 3, kPush>,
        Case<float, 32768, 4, 512, 0, true, 3, kPush | kOnePair | kNoRowEndBarrier>>(
      "layernorm_f32_512x32768", gen_layernorm_f32_512x32768, 2048, 512);
  graph<float, 512, 32768, false, decltype(gen_softmax_f32_512x32768),
        Case<float, 32768, 1, 1024, 0, false, 1, 0>, Case<float, 32768, 2, 512, 0, false, 2, kPush>,
        Case<float, 32768, 4, 512, 0, false, 4, kPush | kOnePair | kNoRowEndBarrier>>(
      "softmax_f32_512x32768", gen_softmax_f32_512x32768, 512, 1024);
  graph<bf, 512, 65536, false, decltype(gen_softmax_bf16_512x65536),
        Case<bf, 65536, 8, 512, 0, false, 4, 0>, Case<bf, 65536, 8, 512, 0, false, 4, kPush>,
        Case<bf, 65536, 4, 512, 0, false, 2, kPush | kOnePair | kNoRowEndBarrier>,
        Wide16Case<65536, 1024, false, false>, Wide16Case<65536, 1024, false, true>, Wide16Case<65536, 512, false, true>>(
      "softmax_bf16_512x65536", gen_softmax_bf16_512x65536, 4096, 512);
  graph<bf, 512, 65536, true, decltype(gen_layernorm_bf16_512x65536),
        Case<bf, 65536, 8, 512, 0, true, 3, 0>, Case<bf, 65536, 8, 512, 0, true, 3, kPush>,
        Wide16Case<65536, 1024, true, true>>(
      "layernorm_bf16_512x65536", gen_layernorm_bf16_512x65536, 4096, 512);
  return 0;
}
