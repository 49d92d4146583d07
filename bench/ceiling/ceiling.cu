// What the GPU allows: the fastest kernels we could write for the memory
// traffic of each class of graph that issues 16 and 17 hold to a share of
// the copy floor, timed as `stride-run-gpu --bench` times a module (a CUDA
// graph replayed 10 times back to back per sample, the median of 40
// samples). Each figure is also a share of the floor the benchmarks use:
// the case's minimal bytes at the bandwidth of a copy of 1 GiB, measured
// first (bench/torch_bench.py's copy_bandwidth does the same with
// PyTorch's copy_). No result is checked against a reference: these kernels
// compute nothing the benchmarks compare; the gather is checked against a
// CPU sum because it stands for Stride's index_add rows.
//
// Built with nvcc by bench/ceiling/build.sh (not part of the product; CUDA
// C++ only). bench/ceiling/README.md says what each case stands for;
// bench/NOTES.md section 36 has the figures.
#include <cmath>
#include <random>
#include <string>

#include "timing.h"

namespace {

constexpr long long kMiB = 1LL << 20;

// --- Kernels --------------------------------------------------------------

// Sums n float4s into *out: U independent 16-byte loads in flight per
// thread, a warp and block reduction, one atomic per block.
template <int U>
__global__ void __launch_bounds__(256)
    sumKernel(const float4 *__restrict__ x, float *out, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  float acc = 0;
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      v[u] = x[i + u * stride];
#pragma unroll
    for (int u = 0; u < U; ++u)
      acc += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  for (; i < n; i += stride) {
    float4 v = x[i];
    acc += v.x + v.y + v.z + v.w;
  }
  for (int o = 16; o; o /= 2)
    acc += __shfl_xor_sync(~0u, acc, o);
  __shared__ float warpSums[8];
  if (threadIdx.x % 32 == 0)
    warpSums[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0;
    for (int w = 0; w < 8; ++w)
      total += warpSums[w];
    atomicAdd(out, total);
  }
}

// A launch that does next to nothing: the cost of a second launch.
__global__ void tinyKernel(float *p) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    p[1] = p[0];
}

// c = a + b, one float4 per thread.
__global__ void __launch_bounds__(256)
    addKernel(const float4 *__restrict__ a, const float4 *__restrict__ b,
              float4 *__restrict__ c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

// The rows pass of a segmented index_add with its index analysis given:
// output row r (`width` floats, a multiple of 128) is the sum of the source
// rows at positions[r * bucket .. + counts[r]). A warp per row; each lane
// reads the row's positions with the count (one load each, no dependence),
// then width / 128 float4s of each source row. The fastest of six forms
// tried (bench/NOTES.md section 36).
template <int kGroups>
__global__ void __launch_bounds__(256)
    gatherRowsKernel(const float *__restrict__ src, float *__restrict__ out,
                     const int *__restrict__ counts,
                     const int *__restrict__ positions, int rows, int bucket) {
  const int lane = threadIdx.x % 32;
  const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (row >= rows)
    return;
  const int count = counts[row];
  const int mine = lane < bucket ? positions[row * bucket + lane] : 0;
  float4 acc[kGroups];
#pragma unroll
  for (int g = 0; g < kGroups; ++g)
    acc[g] = make_float4(0, 0, 0, 0);
#pragma unroll 2
  for (int j = 0; j < count; ++j) {
    const int k = __shfl_sync(~0u, mine, j);
    const float4 *p =
        reinterpret_cast<const float4 *>(src + (long long)k * kGroups * 128) +
        lane;
    float4 v[kGroups];
#pragma unroll
    for (int g = 0; g < kGroups; ++g)
      v[g] = p[g * 32];
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      acc[g].x += v[g].x;
      acc[g].y += v[g].y;
      acc[g].z += v[g].z;
      acc[g].w += v[g].w;
    }
  }
  float4 *o = reinterpret_cast<float4 *>(out + row * kGroups * 128) + lane;
#pragma unroll
  for (int g = 0; g < kGroups; ++g)
    o[g * 32] = acc[g];
}

// --- Timing ---------------------------------------------------------------

double copyBandwidth; // bytes per second, read + write

void report(const std::string &name, double bytes,
            const std::function<void(cudaStream_t)> &enqueue) {
  double us = timeGraph(enqueue);
  double floorUs = bytes / copyBandwidth * 1e6;
  std::printf("| %s | %.1f | %.2f | %.2f | %.1f%% |\n", name.c_str(),
              bytes / kMiB, floorUs, us, 100.0 * floorUs / us);
}

// --- The index_add rows pass ----------------------------------------------

struct Scatter {
  int rows, updates, width, bucket;
  std::vector<float> source;
  std::vector<int> counts, positions;
  std::vector<double> reference;
};

// idx[k] uniform in [0, rows), sorted when `sorted` (the source rows of one
// output row are then adjacent and the output rows read the source in
// order); the buckets as Stride's ranks leave them.
Scatter makeScatter(bool sorted) {
  Scatter s{50257, 65536, 768, 32, {}, {}, {}, {}};
  std::mt19937_64 gen(16);
  std::vector<int> idx(s.updates);
  std::uniform_int_distribution<int> uniform(0, s.rows - 1);
  for (int &i : idx)
    i = uniform(gen);
  if (sorted)
    std::sort(idx.begin(), idx.end());
  s.source.resize((size_t)s.updates * s.width);
  std::uniform_real_distribution<float> value(-1, 1);
  for (float &v : s.source)
    v = value(gen);
  s.counts.assign(s.rows, 0);
  s.positions.assign((size_t)s.rows * s.bucket, 0);
  s.reference.assign((size_t)s.rows * s.width, 0.0);
  for (int k = 0; k < s.updates; ++k) {
    int r = idx[k], rank = s.counts[r]++;
    if (rank >= s.bucket) {
      std::fprintf(stderr, "ceiling: row %d has more than %d positions\n", r,
                   s.bucket);
      std::exit(1);
    }
    s.positions[(size_t)r * s.bucket + rank] = k;
    for (int e = 0; e < s.width; ++e)
      s.reference[(size_t)r * s.width + e] += s.source[(size_t)k * s.width + e];
  }
  return s;
}

void reportGather(const char *name, bool sorted) {
  Scatter s = makeScatter(sorted);
  float *src, *out;
  int *counts, *positions;
  size_t outBytes = (size_t)s.rows * s.width * 4;
  CHECK_CUDA(cudaMalloc(&src, s.source.size() * 4));
  CHECK_CUDA(cudaMalloc(&out, outBytes));
  CHECK_CUDA(cudaMalloc(&counts, s.counts.size() * 4));
  CHECK_CUDA(cudaMalloc(&positions, s.positions.size() * 4));
  CHECK_CUDA(cudaMemcpy(src, s.source.data(), s.source.size() * 4,
                        cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(counts, s.counts.data(), s.counts.size() * 4,
                        cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(positions, s.positions.data(),
                        s.positions.size() * 4, cudaMemcpyHostToDevice));
  auto enqueue = [&](cudaStream_t stream) {
    gatherRowsKernel<6><<<(s.rows + 7) / 8, 256, 0, stream>>>(
        src, out, counts, positions, s.rows, s.bucket);
  };
  enqueue(0);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> got((size_t)s.rows * s.width);
  CHECK_CUDA(cudaMemcpy(got.data(), out, outBytes, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::fabs(got[i] - s.reference[i]));
  if (worst > 1e-4) {
    std::fprintf(stderr, "ceiling: the gather is wrong (error %g)\n", worst);
    std::exit(1);
  }
  // The floor counts what index_add must move: the source, the index
  // (int64) and the output.
  double bytes = s.source.size() * 4.0 + s.updates * 8.0 + outBytes;
  report(name, bytes, enqueue);
  CHECK_CUDA(cudaFree(src));
  CHECK_CUDA(cudaFree(out));
  CHECK_CUDA(cudaFree(counts));
  CHECK_CUDA(cudaFree(positions));
}

} // namespace

int main() {
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const long long bufferBytes = 1024 * kMiB;
  float4 *a, *b, *c;
  float *scalar;
  CHECK_CUDA(cudaMalloc(&a, bufferBytes));
  CHECK_CUDA(cudaMalloc(&b, bufferBytes));
  CHECK_CUDA(cudaMalloc(&c, bufferBytes));
  CHECK_CUDA(cudaMalloc(&scalar, 16));
  CHECK_CUDA(cudaMemset(a, 0, bufferBytes));
  CHECK_CUDA(cudaMemset(b, 0, bufferBytes));
  CHECK_CUDA(cudaMemset(scalar, 0, 16));

  copyBandwidth = copyBandwidthOf(a, b, bufferBytes);
  std::printf("%s, %d multiprocessors; copy bandwidth %.3f TB/s (a 1 GiB "
              "copy kernel, read + write)\n\n",
              prop.name, prop.multiProcessorCount, copyBandwidth / 1e12);
  std::printf("| case | MiB moved | floor us | us | %% of floor |\n");
  std::printf("|---|---|---|---|---|\n");

  for (long long mib : {64LL, 256LL}) {
    long long n = mib * kMiB / 16;
    std::string size = std::to_string(mib) + " MiB";
    for (int perSM : {4, 8}) {
      report("sum of " + size + ", one launch, " + std::to_string(perSM) +
                 " blocks per SM",
             mib * kMiB, [&](cudaStream_t s) {
               sumKernel<4><<<prop.multiProcessorCount * perSM, 256, 0, s>>>(
                   a, scalar, n);
             });
    }
    report("sum of " + size + ", then a second launch of one block",
           mib * kMiB, [&](cudaStream_t s) {
             sumKernel<4><<<prop.multiProcessorCount * 8, 256, 0, s>>>(
                 a, scalar, n);
             tinyKernel<<<1, 32, 0, s>>>(scalar);
           });
    report("copy of " + size, 2.0 * mib * kMiB, [&](cudaStream_t s) {
      copyKernel<<<(n + 255) / 256, 256, 0, s>>>(a, b, n);
    });
  }
  for (long long mib : {32LL, 64LL}) {
    long long n = mib * kMiB / 16;
    report("c = a + b, " + std::to_string(mib) + " MiB each", 3.0 * mib * kMiB,
           [&](cudaStream_t s) {
             addKernel<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n);
           });
  }
  // issue 16's index_add: 65,536 source rows of 768 f32, 50,257 output rows.
  long long scatterBytes = (65536LL + 50257LL) * 768 * 4 + 65536LL * 8;
  long long n = scatterBytes / 2 / 16;
  report("copy of index_add's bytes (178 MB + 178 MB)", 2.0 * n * 16,
         [&](cudaStream_t s) {
           copyKernel<<<(n + 255) / 256, 256, 0, s>>>(a, b, n);
         });
  reportGather("index_add rows pass alone, uniform indices", false);
  reportGather("index_add rows pass alone, sorted indices", true);
  return 0;
}
