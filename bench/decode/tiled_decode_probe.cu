// Tiled split-KV decode attention probe (bench/NOTES.md section 74): a
// form a decode step's attention could take at batch 1, hand-written at
// bench/decode's dims (decode_probe.h) to time it before the backend
// would print it.
//
// A unit is one key/value head of one batch with its G query heads; a
// block takes a unit and a tile of CHUNK consecutive valid keys (the
// valid count read at run time, so blocks past it return at once). The
// block copies its key and value rows into shared memory with 16-byte
// cp.async (one memory round trip for the whole tile, zeros past the
// count), scores a key a thread against the queries, takes each row's
// softmax over the tile a warp a row, and sums the weighted values four
// dims a thread. Its partial state goes to scratch; the unit's last block
// (a ticket per unit) combines them, so it is one launch.
//
// Build and run on the GPU machine, from this folder:
//   nvcc -O3 -arch=sm_90 -o tiled tiled_decode_probe.cu && ./tiled
#include "decode_probe.h"

template <int CHUNK, int THREADS, bool PDL>
__global__ void __launch_bounds__(THREADS)
    tiledDecode(const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                const __nv_bfloat16 *v, const long long *kvLength,
                __nv_bfloat16 *out, float *scratch, unsigned *tickets,
                float scale) {
  constexpr int SLICES = CAPACITY / CHUNK;
  constexpr int KPAD = D + 8; // 16 bytes a row: conflict-free 16-byte reads
  constexpr int ROW_GROUPS = THREADS / CHUNK;
  constexpr int ROWS_PER_THREAD = G / ROW_GROUPS;
  constexpr int STATE = 4 + DV; // m, l, two pads (16-byte rows), acc[DV]
  __shared__ __align__(16) __nv_bfloat16 keyTile[CHUNK * KPAD];
  __shared__ __align__(16) __nv_bfloat16 valueTile[CHUNK * DV];
  __shared__ float queryOf[G * D];
  __shared__ float scoreOf[G * CHUNK];
  __shared__ float rowMax[G], rowSum[G];
  __shared__ float sliceWeight[G * SLICES]; // the combine's weights, [row][slice]
  __shared__ unsigned ticket;

  if (PDL) // as the backend's kernels start (Prelude.h)
    asm volatile("griddepcontrol.wait;" ::: "memory");
  const int unit = blockIdx.x / SLICES, slice = blockIdx.x % SLICES;
  const int b = unit / KV_HEADS, g = unit % KV_HEADS;
  const long long valid = min(kvLength[b], (long long)CAPACITY);
  const int busy = int((valid + CHUNK - 1) / CHUNK);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int heads = KV_HEADS * G;
  if (slice >= max(busy, 1))
    return;
  const int keyBegin = slice * CHUNK;
  const int n = int(min((long long)CHUNK, valid - keyBegin));

  const __nv_bfloat16 *keyBase = k + (size_t(unit) * CAPACITY + keyBegin) * D;
  const __nv_bfloat16 *valueBase = v + (size_t(unit) * CAPACITY + keyBegin) * DV;
  for (int o = threadIdx.x; o < CHUNK * D / 8; o += THREADS) {
    int j = o / (D / 8), c = o % (D / 8);
    copyAsync16(keyTile + j * KPAD + c * 8, keyBase + min(j, n - 1) * D + c * 8,
                j < n ? 16 : 0);
  }
  for (int o = threadIdx.x; o < CHUNK * DV / 8; o += THREADS) {
    int j = o / (DV / 8), c = o % (DV / 8);
    copyAsync16(valueTile + j * DV + c * 8, valueBase + min(j, n - 1) * DV + c * 8,
                j < n ? 16 : 0);
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
  const __nv_bfloat16 *queryBase = q + (size_t(b) * heads + g * G) * D;
  for (int o = threadIdx.x; o < G * D; o += THREADS)
    queryOf[o] = __bfloat162float(queryBase[o]);
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();

  // Scores: a key a thread, ROWS_PER_THREAD rows.
  {
    const int j = threadIdx.x % CHUNK, r0 = threadIdx.x / CHUNK * ROWS_PER_THREAD;
    float s[ROWS_PER_THREAD] = {};
    scoreKey(keyTile + j * KPAD, queryOf + r0 * D, s);
#pragma unroll
    for (int r = 0; r < ROWS_PER_THREAD; ++r)
      scoreOf[(r0 + r) * CHUNK + j] = j < n ? s[r] * scale : -INFINITY;
  }
  __syncthreads();

  // Softmax over the tile: a warp a row.
  for (int r = warp; r < G; r += THREADS / 32) {
    float m, l;
    warpSoftmax(scoreOf + r * CHUNK, CHUNK, m, l);
    if (lane == 0) {
      rowMax[r] = m;
      rowSum[r] = l;
    }
  }
  __syncthreads();

  // Weighted values: four dims a thread.
  for (int o = threadIdx.x; o < G * DV / 4; o += THREADS) {
    int r = o / (DV / 4), d0 = o % (DV / 4) * 4;
    float acc[4] = {};
#pragma unroll 16
    for (int j = 0; j < CHUNK; ++j) { // zero weights and zero rows past n
      addWeighted4(valueTile + j * DV + d0, scoreOf[r * CHUNK + j], acc);
    }
    __nv_bfloat16 *outRow = out + (size_t(b) * heads + g * G + r) * DV + d0;
    if (busy <= 1) {
      float inv = rowSum[r] > 0.0f ? 1.0f / rowSum[r] : 0.0f;
      for (int e = 0; e < 4; ++e)
        outRow[e] = __float2bfloat16(busy == 1 ? acc[e] * inv : 0.0f);
      continue;
    }
    float *state = scratch + ((size_t(unit) * SLICES + slice) * G + r) * STATE;
    if (d0 == 0) {
      state[0] = rowMax[r];
      state[1] = rowSum[r];
    }
    for (int e = 0; e < 4; ++e)
      state[4 + d0 + e] = acc[e];
  }
  if (busy <= 1)
    return;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0)
    ticket = atomicAdd(tickets + unit, 1u);
  __syncthreads();
  if (ticket != unsigned(busy - 1))
    return;
  __threadfence();
  // The unit's last block: combine the busy slices' states.
  float *unitState = scratch + size_t(unit) * SLICES * G * STATE;
  for (int r = warp; r < G; r += THREADS / 32) {
    float m = -INFINITY;
    for (int s = lane; s < busy; s += 32)
      m = fmaxf(m, __ldcg(unitState + (s * G + r) * STATE));
    m = warpMax(m);
    float l = 0.0f;
    for (int s = lane; s < busy; s += 32) {
      float w = weightOf(__ldcg(unitState + (s * G + r) * STATE), m);
      l += w * __ldcg(unitState + (s * G + r) * STATE + 1);
      sliceWeight[r * SLICES + s] = w;
    }
    l = warpSum(l);
    if (lane == 0)
      rowSum[r] = l;
  }
  __syncthreads();
  for (int o = threadIdx.x; o < G * DV / 4; o += THREADS) {
    int r = o / (DV / 4), d0 = o % (DV / 4) * 4;
    float acc[4] = {};
    for (int s0 = 0; s0 < busy; s0 += 8) { // 8 slices' loads in flight
      float4 a[8];
#pragma unroll
      for (int i = 0; i < 8; ++i)
        a[i] = s0 + i < busy ? __ldcg(reinterpret_cast<const float4 *>(
                                   unitState + ((s0 + i) * G + r) * STATE + 4 + d0))
                             : make_float4(0, 0, 0, 0);
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float w = s0 + i < busy ? sliceWeight[r * SLICES + s0 + i] : 0.0f;
        acc[0] += w * a[i].x;
        acc[1] += w * a[i].y;
        acc[2] += w * a[i].z;
        acc[3] += w * a[i].w;
      }
    }
    float inv = rowSum[r] > 0.0f ? 1.0f / rowSum[r] : 0.0f;
    __nv_bfloat16 *outRow = out + (size_t(b) * heads + g * G + r) * DV + d0;
    for (int e = 0; e < 4; ++e)
      outRow[e] = __float2bfloat16(acc[e] * inv);
  }
  if (threadIdx.x == 0)
    tickets[unit] = 0;
}

template <int CHUNK, int THREADS, bool PDL>
void run(int batch, long long position) {
  DecodeCase c(batch, position);
  int slices = CAPACITY / CHUNK;
  float *scratch;
  unsigned *tickets;
  CHECK_CUDA(cudaMalloc(&scratch, size_t(c.units) * slices * G * (4 + DV) * 4));
  CHECK_CUDA(cudaMalloc(&tickets, c.units * 4));
  CHECK_CUDA(cudaMemset(tickets, 0, c.units * 4));
  float scale = 1.0f / std::sqrt(float(D));
  auto launch = [&](cudaStream_t s, int copy) {
    launchKernel(tiledDecode<CHUNK, THREADS, PDL>,
                 LaunchShape{c.units * slices, THREADS, 0, PDL}, s,
                 (const __nv_bfloat16 *)c.q,
                 (const __nv_bfloat16 *)c.k[copy],
                 (const __nv_bfloat16 *)c.v[copy], (const long long *)c.len,
                 c.o, scratch, tickets, scale);
  };
  launch(0, 0);
  CHECK_CUDA(cudaDeviceSynchronize());
  double diff = c.maxDiff();
  double us = timePerLaunch(launch);
  std::printf("| %d | %lld | %d | %d | %s | %.2f | %.4f |\n", batch, position,
              CHUNK, THREADS, PDL ? "yes" : "no", us, diff);
  cudaFree(scratch);
  cudaFree(tickets);
}

int main() {
  std::printf("| batch | position | keys a block | threads | dependent launch "
              "| us per launch | max |diff| vs f64 |\n"
              "|---|---|---|---|---|---|---|\n");
  for (long long position : {1024LL, 4000LL, 100LL, 0LL}) {
    run<64, 128, false>(1, position);
    run<64, 128, true>(1, position);
    run<32, 128, true>(1, position);
  }
  run<64, 128, true>(8, 1024);
  run<64, 128, true>(8, 4000);
  return 0;
}
