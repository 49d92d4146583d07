// Tiled split-KV decode attention probe (bench/NOTES.md sections 74 and
// 78): forms a decode step's attention could take at batch 1, hand-written
// at bench/decode's dims (decode_probe.h) to time them before the backend
// would print them.
//
// A unit is one key/value head of one batch with its G query heads.
//
// The tiled form: a block takes a unit and a tile of CHUNK consecutive
// valid keys (the valid count read at run time, so blocks past it return
// at once). The block copies its key and value rows into shared memory
// with 16-byte cp.async (one memory round trip for the whole tile, zeros
// past the count), scores a key a thread against the queries, takes each
// row's softmax over the tile a warp a row, and sums the weighted values
// four dims a thread. Its partial state goes to scratch; the unit's last
// block (a ticket per unit) combines them, so it is one launch. The
// combine reads one state per tile: 63 at position 4000.
//
// The sliced form: SLICES blocks a unit whatever the position, each
// taking an equal share of the valid keys in chunks of at most CHUNK (two
// chunks' copies in flight, an online softmax across them), so the
// combine reads at most SLICES states.
//
// Build and run on the GPU machine, from this folder:
//   nvcc -O3 -arch=sm_90 -o tiled tiled_decode_probe.cu && ./tiled
#include "decode_probe.h"

constexpr int STATE = 4 + DV; // a slice's state: m, l, two pads, acc[DV]

// A block's partial state of each row (its maximum, sum of weights and
// weighted values `acc`, four dims `d0` a thread) into the unit's scratch
// (combineSlices reads it).
__device__ inline void storeState(float *state, float m, float l, int d0,
                                  const float (&acc)[4]) {
  if (d0 == 0) {
    state[0] = m;
    state[1] = l;
  }
  for (int e = 0; e < 4; ++e)
    state[4 + d0 + e] = acc[e];
}

// The unit's last block: combines the `busy` slices' states at
// `unitState` ([slice][row]) into the unit's G output rows at `outBase`.
// `sliceWeight` (G * SLICES) and `rowSum` (G) are shared memory.
template <int SLICES, int THREADS, int IN_FLIGHT = 8>
__device__ void combineSlices(const float *unitState, int busy,
                              __nv_bfloat16 *outBase, float *sliceWeight,
                              float *rowSum) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
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
    for (int s0 = 0; s0 < busy; s0 += IN_FLIGHT) { // a round trip each
      float4 a[IN_FLIGHT];
#pragma unroll
      for (int i = 0; i < IN_FLIGHT; ++i)
        a[i] = s0 + i < busy ? __ldcg(reinterpret_cast<const float4 *>(
                                   unitState + ((s0 + i) * G + r) * STATE + 4 + d0))
                             : make_float4(0, 0, 0, 0);
#pragma unroll
      for (int i = 0; i < IN_FLIGHT; ++i) {
        float w = s0 + i < busy ? sliceWeight[r * SLICES + s0 + i] : 0.0f;
        acc[0] += w * a[i].x;
        acc[1] += w * a[i].y;
        acc[2] += w * a[i].z;
        acc[3] += w * a[i].w;
      }
    }
    float inv = rowSum[r] > 0.0f ? 1.0f / rowSum[r] : 0.0f;
    __nv_bfloat16 *outRow = outBase + size_t(r) * DV + d0;
    for (int e = 0; e < 4; ++e)
      outRow[e] = __float2bfloat16(acc[e] * inv);
  }
}

// Whether this block is its unit's last to finish (a ticket per unit,
// after the block's state is written); the last one resets the ticket.
template <int THREADS>
__device__ bool lastOfUnit(unsigned *tickets, int unit, int busy,
                           unsigned &ticket) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0)
    ticket = atomicAdd(tickets + unit, 1u);
  __syncthreads();
  if (ticket != unsigned(busy - 1))
    return false;
  if (threadIdx.x == 0)
    tickets[unit] = 0;
  return true;
}

template <int CHUNK, int THREADS, bool PDL, int IN_FLIGHT>
__global__ void __launch_bounds__(THREADS)
    tiledDecode(const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                const __nv_bfloat16 *v, const long long *kvLength,
                __nv_bfloat16 *out, float *scratch, unsigned *tickets,
                float scale) {
  constexpr int SLICES = CAPACITY / CHUNK;
  constexpr int KPAD = D + 8; // 16 bytes a row: conflict-free 16-byte reads
  constexpr int ROW_GROUPS = THREADS / CHUNK;
  constexpr int ROWS_PER_THREAD = G / ROW_GROUPS;
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
    storeState(scratch + ((size_t(unit) * SLICES + slice) * G + r) * STATE,
               rowMax[r], rowSum[r], d0, acc);
  }
  if (busy <= 1 || !lastOfUnit<THREADS>(tickets, unit, busy, ticket))
    return;
  __threadfence();
  combineSlices<SLICES, THREADS, IN_FLIGHT>(
      scratch + size_t(unit) * SLICES * G * STATE, busy,
      out + (size_t(b) * heads + g * G) * DV, sliceWeight, rowSum);
}

// The sliced form: a fixed SLICES blocks a unit share its valid keys
// (`per` = ceil(valid / SLICES) each, the count read at run time), so the
// combine reads at most SLICES states at every position. A block walks its
// keys in chunks of at most CHUNK, two chunks' copies in flight (double
// buffering), with the online softmax across its chunks (FlashAttention's
// running maximum, sum and weighted values, rescaled per chunk).
template <int SLICES, int CHUNK, int BUFFERS>
constexpr size_t slicedSharedBytes() {
  return BUFFERS * CHUNK * (D + 8) * 2 + BUFFERS * CHUNK * DV * 2 +
         (G * D + G * CHUNK + 3 * G + G * SLICES) * 4;
}

template <int SLICES, int CHUNK, int THREADS, int IN_FLIGHT, int BUFFERS>
__global__ void __launch_bounds__(THREADS)
    slicedDecode(const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                 const __nv_bfloat16 *v, const long long *kvLength,
                 __nv_bfloat16 *out, float *scratch, unsigned *tickets,
                 float scale) {
  constexpr int KPAD = D + 8;
  constexpr int ROW_GROUPS = THREADS / CHUNK;
  constexpr int ROWS_PER_THREAD = G / ROW_GROUPS;
  static_assert(THREADS % CHUNK == 0 && G % ROW_GROUPS == 0 &&
                    G * DV / 4 == THREADS,
                "a key a thread for the scores, four dims of a row a thread "
                "for the values");
  extern __shared__ __align__(16) unsigned char shared[];
  __nv_bfloat16 *keyTiles = reinterpret_cast<__nv_bfloat16 *>(shared);
  __nv_bfloat16 *valueTiles = keyTiles + BUFFERS * CHUNK * KPAD;
  float *queryOf = reinterpret_cast<float *>(valueTiles + BUFFERS * CHUNK * DV);
  float *scoreOf = queryOf + G * D;    // [row][key of the chunk]
  float *rowMax = scoreOf + G * CHUNK; // the running state's m, l, and the
  float *rowSum = rowMax + G;          // chunk's rescale of the old state
  float *rowScale = rowSum + G;
  float *sliceWeight = rowScale + G;
  __shared__ unsigned ticket;

  asm volatile("griddepcontrol.wait;" ::: "memory");
  const int unit = blockIdx.x / SLICES, slice = blockIdx.x % SLICES;
  const int b = unit / KV_HEADS, g = unit % KV_HEADS;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int heads = KV_HEADS * G;
  const int valid = int(min(kvLength[b], (long long)CAPACITY));
  const int per = max((valid + SLICES - 1) / SLICES, 1);
  const int busy = (valid + per - 1) / per;
  if (slice >= max(busy, 1))
    return;
  const int keyBegin = slice * per;
  const int keyEnd = min(keyBegin + per, valid);
  const int chunks = max((keyEnd - keyBegin + CHUNK - 1) / CHUNK, 1);
  const int chunkKeys = (keyEnd - keyBegin + chunks - 1) / chunks;

  const __nv_bfloat16 *keyBase = k + size_t(unit) * CAPACITY * D;
  const __nv_bfloat16 *valueBase = v + size_t(unit) * CAPACITY * DV;
  // Chunk `c`'s keys and values into buffer c % BUFFERS (zeros past its
  // end).
  auto copyChunk = [&](int c) {
    const int first = keyBegin + c * chunkKeys;
    const int n = max(min(chunkKeys, keyEnd - first), 0);
    __nv_bfloat16 *keyTile = keyTiles + (c % BUFFERS) * CHUNK * KPAD;
    __nv_bfloat16 *valueTile = valueTiles + (c % BUFFERS) * CHUNK * DV;
    for (int o = threadIdx.x; o < CHUNK * D / 8; o += THREADS) {
      int j = o / (D / 8), e = o % (D / 8);
      copyAsync16(keyTile + j * KPAD + e * 8,
                  keyBase + size_t(first + min(j, max(n - 1, 0))) * D + e * 8,
                  j < n ? 16 : 0);
    }
    for (int o = threadIdx.x; o < CHUNK * DV / 8; o += THREADS) {
      int j = o / (DV / 8), e = o % (DV / 8);
      copyAsync16(valueTile + j * DV + e * 8,
                  valueBase + size_t(first + min(j, max(n - 1, 0))) * DV + e * 8,
                  j < n ? 16 : 0);
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };
  for (int c = 0; c < BUFFERS && c < chunks; ++c)
    copyChunk(c);
  const __nv_bfloat16 *queryBase = q + (size_t(b) * heads + g * G) * D;
  for (int o = threadIdx.x; o < G * D; o += THREADS)
    queryOf[o] = __bfloat162float(queryBase[o]);
  if (threadIdx.x < G) {
    rowMax[threadIdx.x] = -INFINITY;
    rowSum[threadIdx.x] = 0.0f;
  }
  const int r = threadIdx.x / (DV / 4), d0 = threadIdx.x % (DV / 4) * 4;
  float acc[4] = {};

  for (int c = 0; c < chunks; ++c) {
    // Chunk c's group done; the later chunks' copies may still be in flight.
    switch (min(chunks - 1 - c, BUFFERS - 1)) {
    case 0: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
    case 1: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
    }
    __syncthreads();
    const int n = min(chunkKeys, keyEnd - (keyBegin + c * chunkKeys));
    const __nv_bfloat16 *keyTile = keyTiles + (c % BUFFERS) * CHUNK * KPAD;
    const __nv_bfloat16 *valueTile = valueTiles + (c % BUFFERS) * CHUNK * DV;
    { // scores: a key a thread, ROWS_PER_THREAD rows
      const int j = threadIdx.x % CHUNK,
                r0 = threadIdx.x / CHUNK * ROWS_PER_THREAD;
      float s[ROWS_PER_THREAD] = {};
      scoreKey(keyTile + j * KPAD, queryOf + r0 * D, s);
#pragma unroll
      for (int i = 0; i < ROWS_PER_THREAD; ++i)
        scoreOf[(r0 + i) * CHUNK + j] = j < n ? s[i] * scale : -INFINITY;
    }
    __syncthreads();
    // The online softmax step: a warp a row.
    for (int row = warp; row < G; row += THREADS / 32) {
      float *w = scoreOf + row * CHUNK;
      float m = -INFINITY;
      for (int j = lane; j < CHUNK; j += 32)
        m = fmaxf(m, w[j]);
      m = fmaxf(warpMax(m), rowMax[row]);
      float l = 0.0f;
      for (int j = lane; j < CHUNK; j += 32) {
        w[j] = weightOf(w[j], m);
        l += w[j];
      }
      l = warpSum(l);
      if (lane == 0) {
        float rescale = weightOf(rowMax[row], m);
        rowScale[row] = rescale;
        rowSum[row] = rowSum[row] * rescale + l;
        rowMax[row] = m;
      }
    }
    __syncthreads();
    const float rescale = rowScale[r];
#pragma unroll
    for (int e = 0; e < 4; ++e)
      acc[e] *= rescale;
#pragma unroll 16
    for (int j = 0; j < CHUNK; ++j) // zero weights and zero rows past n
      addWeighted4(valueTile + j * DV + d0, scoreOf[r * CHUNK + j], acc);
    __syncthreads(); // every thread is done with buffer c % BUFFERS
    if (c + BUFFERS < chunks)
      copyChunk(c + BUFFERS);
  }

  __nv_bfloat16 *outBase = out + (size_t(b) * heads + g * G) * DV;
  if (busy <= 1) {
    float inv = rowSum[r] > 0.0f ? 1.0f / rowSum[r] : 0.0f;
    for (int e = 0; e < 4; ++e)
      outBase[size_t(r) * DV + d0 + e] =
          __float2bfloat16(busy == 1 ? acc[e] * inv : 0.0f);
    return;
  }
  storeState(scratch + ((size_t(unit) * SLICES + slice) * G + r) * STATE,
             rowMax[r], rowSum[r], d0, acc);
  if (!lastOfUnit<THREADS>(tickets, unit, busy, ticket))
    return;
  __threadfence();
  combineSlices<SLICES, THREADS, IN_FLIGHT>(
      scratch + size_t(unit) * SLICES * G * STATE, busy, outBase, sliceWeight,
      rowSum);
}

// A kernel's figures at `batch` and `position`: its scratch (a state per
// unit, slice and row) and tickets, one checked launch, then the timing.
template <typename Launch>
void measure(const DecodeCase &c, int slices, const char *form, int chunk,
             bool dependent, int inFlight, Launch launch) {
  float *scratch;
  unsigned *tickets;
  CHECK_CUDA(cudaMalloc(&scratch, size_t(c.units) * slices * G * STATE * 4));
  CHECK_CUDA(cudaMalloc(&tickets, c.units * 4));
  CHECK_CUDA(cudaMemset(tickets, 0, c.units * 4));
  auto bound = [&](cudaStream_t s, int copy) {
    launch(s, copy, scratch, tickets);
  };
  bound(0, 0);
  CHECK_CUDA(cudaDeviceSynchronize());
  double diff = c.maxDiff();
  double us = timePerLaunch(bound);
  std::printf("| %d | %lld | %s | %d | %d | %s | %d | %.2f | %.4f |\n",
              c.batch, c.valid - 1, form, slices, chunk,
              dependent ? "yes" : "no", inFlight, us, diff);
  cudaFree(scratch);
  cudaFree(tickets);
}

const float kScale = 1.0f / std::sqrt(float(D));

// IN_FLIGHT: the states a thread of the combine loads before it uses any
// (each such batch a round trip through L2).
template <int CHUNK, int THREADS, bool PDL, int IN_FLIGHT>
void runTiled(const DecodeCase &c) {
  constexpr int slices = CAPACITY / CHUNK;
  measure(c, slices, "tiled", CHUNK, PDL, IN_FLIGHT,
          [&](cudaStream_t s, int copy, float *scratch, unsigned *tickets) {
            launchKernel(tiledDecode<CHUNK, THREADS, PDL, IN_FLIGHT>,
                         LaunchShape{c.units * slices, THREADS, 0, PDL}, s,
                         (const __nv_bfloat16 *)c.q,
                         (const __nv_bfloat16 *)c.k[copy],
                         (const __nv_bfloat16 *)c.v[copy],
                         (const long long *)c.len, c.o, scratch, tickets,
                         kScale);
          });
}

template <int SLICES, int CHUNK, int THREADS, int IN_FLIGHT, int BUFFERS = 2>
void runSliced(const DecodeCase &c) {
  static_assert(BUFFERS >= 1 && BUFFERS <= 4, "cp.async.wait_group's cases");
  constexpr size_t bytes = slicedSharedBytes<SLICES, CHUNK, BUFFERS>();
  auto kernel = slicedDecode<SLICES, CHUNK, THREADS, IN_FLIGHT, BUFFERS>;
  CHECK_CUDA(cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  char form[32];
  std::snprintf(form, sizeof form, "sliced, %d buffers", BUFFERS);
  measure(c, SLICES, form, CHUNK, true, IN_FLIGHT,
          [&](cudaStream_t s, int copy, float *scratch, unsigned *tickets) {
            launchKernel(kernel, LaunchShape{c.units * SLICES, THREADS, bytes, true},
                         s, (const __nv_bfloat16 *)c.q,
                         (const __nv_bfloat16 *)c.k[copy],
                         (const __nv_bfloat16 *)c.v[copy],
                         (const long long *)c.len, c.o, scratch, tickets,
                         kScale);
          });
}

#ifndef TILED_DECODE_PROBE_NO_MAIN // printed_attention_probe.cu has its own
int main() {
  std::printf("| batch | position | form | slices a unit | keys a chunk | "
              "dependent launch | combine loads in flight | us per launch | "
              "max |diff| vs f64 |\n|---|---|---|---|---|---|---|---|---|\n");
  for (long long position : {1024LL, 4000LL, 2000LL, 100LL, 0LL}) {
    DecodeCase c(1, position);
    runTiled<64, 128, true, 8>(c);
    runSliced<16, 64, 128, 8, 2>(c);
    runSliced<16, 64, 128, 8, 3>(c);
    runSliced<16, 64, 128, 8, 4>(c);
    runSliced<8, 64, 128, 8, 4>(c);
    runSliced<16, 32, 128, 8, 4>(c);
    runSliced<32, 64, 128, 8, 2>(c);
    runSliced<12, 64, 128, 8, 4>(c);
  }
  for (long long position : {1024LL, 4000LL}) {
    DecodeCase c(8, position);
    runTiled<64, 128, true, 8>(c);
    runSliced<16, 64, 128, 8, 4>(c);
  }
  return 0;
}
#endif
