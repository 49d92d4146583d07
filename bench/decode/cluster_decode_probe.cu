// Cluster decode attention probe (bench/NOTES.md section 74): the
// tiled_decode_probe's body with the combine through distributed shared
// memory instead of scratch and a ticket, and each block's whole share of
// the valid keys loaded into shared memory at once.
//
// A unit (one key/value head of one batch, its G query heads) is one
// thread-block cluster of CL blocks; the valid keys (the count read at run
// time) are split evenly between them, at most MAXKEYS a block. Each block
// issues every 16-byte cp.async of its keys and values before it waits
// (one memory round trip), scores a key a thread, takes each row's
// softmax a warp a row, sums the weighted values four dims a thread (the
// keys split in two halves of the block), and leaves its state (m, l,
// acc) in shared memory; after a cluster barrier each block combines its
// share of the unit's outputs from every block's state.
//
// Build and run on the GPU machine, from this folder:
//   nvcc -O3 -arch=sm_90 -o cluster cluster_decode_probe.cu && ./cluster
#include "decode_probe.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

template <int MAXKEYS> struct Layout {
  static constexpr int KPAD = D + 8;
  static constexpr int STATE = 4 + DV;
  static constexpr size_t keyBytes = size_t(MAXKEYS) * KPAD * 2;
  static constexpr size_t valueBytes = size_t(MAXKEYS) * DV * 2;
  static constexpr size_t weightBytes = size_t(G) * MAXKEYS * 4;
  static constexpr size_t queryBytes = size_t(G) * D * 4;
  static constexpr size_t stateBytes = size_t(G) * STATE * 4;
  static constexpr size_t halfBytes = size_t(G) * DV * 4; // the second half's acc
  static constexpr size_t total =
      keyBytes + valueBytes + weightBytes + queryBytes + stateBytes + halfBytes;
};

template <int MAXKEYS, int THREADS, bool TRIGGER>
__global__ void __launch_bounds__(THREADS, 1)
    clusterDecode(const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                  const __nv_bfloat16 *v, const long long *kvLength,
                  __nv_bfloat16 *out, float scale) {
  using L = Layout<MAXKEYS>;
  extern __shared__ __align__(16) unsigned char smem[];
  __nv_bfloat16 *keyTile = reinterpret_cast<__nv_bfloat16 *>(smem);
  __nv_bfloat16 *valueTile = reinterpret_cast<__nv_bfloat16 *>(smem + L::keyBytes);
  float *scoreOf = reinterpret_cast<float *>(smem + L::keyBytes + L::valueBytes);
  float *queryOf = scoreOf + G * MAXKEYS;
  float *stateOf = queryOf + G * D; // [row]: m, l, pad, pad, acc[DV]
  float *halfAcc = stateOf + G * L::STATE;

  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (TRIGGER)
    asm volatile("griddepcontrol.launch_dependents;");
  cg::cluster_group cluster = cg::this_cluster();
  const int CL = int(cluster.num_blocks());
  const int rank = int(cluster.block_rank());
  const int unit = blockIdx.x / CL;
  const int b = unit / KV_HEADS, g = unit % KV_HEADS;
  const int heads = KV_HEADS * G;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  const __nv_bfloat16 *queryBase = q + (size_t(b) * heads + g * G) * D;
  float queryPart[(G * D + THREADS - 1) / THREADS];
#pragma unroll
  for (int i = 0; i < (G * D + THREADS - 1) / THREADS; ++i) {
    int o = threadIdx.x + i * THREADS;
    queryPart[i] = o < G * D ? __bfloat162float(queryBase[o]) : 0.0f;
  }
  const long long valid = min(kvLength[b], (long long)CAPACITY);
  const int per = int((valid + CL - 1) / CL);
  const int keyBegin = min(rank * per, int(valid));
  const int n = min(per, int(valid) - keyBegin);

  const __nv_bfloat16 *keyBase = k + (size_t(unit) * CAPACITY + keyBegin) * D;
  const __nv_bfloat16 *valueBase = v + (size_t(unit) * CAPACITY + keyBegin) * DV;
  for (int o = threadIdx.x; o < n * (D / 8); o += THREADS) {
    int j = o / (D / 8), c = o % (D / 8);
    copyAsync16(keyTile + j * L::KPAD + c * 8, keyBase + j * D + c * 8, 16);
  }
  for (int o = threadIdx.x; o < n * (DV / 8); o += THREADS) {
    int j = o / (DV / 8), c = o % (DV / 8);
    copyAsync16(valueTile + j * DV + c * 8, valueBase + j * DV + c * 8, 16);
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
#pragma unroll
  for (int i = 0; i < (G * D + THREADS - 1) / THREADS; ++i) {
    int o = threadIdx.x + i * THREADS;
    if (o < G * D)
      queryOf[o] = queryPart[i];
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();

  // Scores: a key a thread, every row.
  for (int j = threadIdx.x; j < n; j += THREADS) {
    float s[G] = {};
    scoreKey(keyTile + j * L::KPAD, queryOf, s);
#pragma unroll
    for (int r = 0; r < G; ++r)
      scoreOf[r * MAXKEYS + j] = s[r] * scale;
  }
  __syncthreads();

  // Softmax over the block's keys: a warp a row.
  for (int r = warp; r < G; r += THREADS / 32) {
    float m, l;
    warpSoftmax(scoreOf + r * MAXKEYS, n, m, l);
    if (lane == 0) {
      stateOf[r * L::STATE] = m;
      stateOf[r * L::STATE + 1] = l;
    }
  }
  __syncthreads();

  // Weighted values: four dims a thread, the keys in two halves.
  constexpr int SLOTS = G * DV / 4;
  static_assert(THREADS == 2 * SLOTS, "two halves of the keys");
  {
    const int slot = threadIdx.x % SLOTS, half = threadIdx.x / SLOTS;
    const int r = slot / (DV / 4), d0 = slot % (DV / 4) * 4;
    const int mid = (n + 1) / 2;
    const int j0 = half ? mid : 0, j1 = half ? n : mid;
    float acc[4] = {};
#pragma unroll 8
    for (int j = j0; j < j1; ++j) {
      addWeighted4(valueTile + j * DV + d0, scoreOf[r * MAXKEYS + j], acc);
    }
    if (half)
      *reinterpret_cast<float4 *>(halfAcc + r * DV + d0) =
          make_float4(acc[0], acc[1], acc[2], acc[3]);
    __syncthreads();
    if (!half) {
      float4 other = *reinterpret_cast<const float4 *>(halfAcc + r * DV + d0);
      *reinterpret_cast<float4 *>(stateOf + r * L::STATE + 4 + d0) =
          make_float4(acc[0] + other.x, acc[1] + other.y, acc[2] + other.z,
                      acc[3] + other.w);
    }
  }
  cluster.sync();

  // The block's share of the unit's outputs, from every block's state.
  for (int o = threadIdx.x + rank * THREADS; o < G * DV; o += CL * THREADS) {
    int r = o / DV, d = o % DV;
    float m = -INFINITY;
    for (int c = 0; c < CL; ++c)
      m = fmaxf(m, cluster.map_shared_rank(stateOf, c)[r * L::STATE]);
    float l = 0.0f, acc = 0.0f;
    for (int c = 0; c < CL; ++c) {
      const float *peer = cluster.map_shared_rank(stateOf, c) + r * L::STATE;
      float w = weightOf(peer[0], m);
      l += w * peer[1];
      acc += w * peer[4 + d];
    }
    out[(size_t(b) * heads + g * G + r) * DV + d] =
        __float2bfloat16(l > 0.0f ? acc / l : 0.0f);
  }
  cluster.sync(); // no block leaves while the others read its state
}

constexpr int THREADS = 2 * G * DV / 4;

template <int CL, bool TRIGGER>
void run(int batch, long long position, bool dependent) {
  constexpr int MAXKEYS = CAPACITY / CL;
  using Lay = Layout<MAXKEYS>;
  auto kernel = clusterDecode<MAXKEYS, THREADS, TRIGGER>;
  CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  int(Lay::total)));
  if (CL > 8)
    CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  DecodeCase c(batch, position);
  float scale = 1.0f / std::sqrt(float(D));
  auto launch = [&](cudaStream_t s, int copy) {
    launchKernel(kernel, LaunchShape{c.units * CL, THREADS, Lay::total, dependent, CL},
                 s, (const __nv_bfloat16 *)c.q, (const __nv_bfloat16 *)c.k[copy],
                 (const __nv_bfloat16 *)c.v[copy], (const long long *)c.len,
                 c.o, scale);
  };
  launch(0, 0);
  CHECK_CUDA(cudaDeviceSynchronize());
  double diff = c.maxDiff();
  double us = timePerLaunch(launch);
  std::printf("| %d | %lld | %d | %s | %.2f | %.4f | %zu |\n", batch, position,
              CL, dependent ? (TRIGGER ? "yes, and early" : "yes") : "no", us,
              diff, Lay::total);
}

int main() {
  std::printf("| batch | position | cluster | dependent launch | us per launch "
              "| max |diff| vs f64 | shared bytes |\n"
              "|---|---|---|---|---|---|---|\n");
  for (long long position : {1024LL, 4000LL, 100LL, 0LL}) {
    run<16, false>(1, position, false);
    run<16, false>(1, position, true);
    run<16, true>(1, position, true);
  }
  run<16, false>(8, 1024, true);
  run<16, false>(8, 4000, true);
  return 0;
}
