// Times the default-mode index_add kernel's variants (make-variants.py, which
// says how to build) side by side on one GPU: 65,536 x 768 f32 into 50,257
// rows under the four index patterns of issue 16. For each variant and
// pattern: the median of 50 replays of its launches as a CUDA graph, each
// launch's median (events around each, 30 runs), and the norm-wise relative
// error against a double reference over 3 runs (output poisoned before each).
// The launch shapes are the schedule's at 06ae130 (block b for phases 2, 4, 5).
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)
typedef void (*LaunchFn)(int, unsigned, unsigned, unsigned, const long long *, const float *, float *, int **, cudaStream_t);
void base_launch(int, unsigned, unsigned, unsigned, const long long *, const float *, float *, int **, cudaStream_t);
void match_launch(int, unsigned, unsigned, unsigned, const long long *, const float *, float *, int **, cudaStream_t);
void match_il_launch(int, unsigned, unsigned, unsigned, const long long *, const float *, float *, int **, cudaStream_t);
const int ROWS = 50257, UPD = 65536, W = 768, LONGROWS = 65536 / 33;
struct Launch { int phase; unsigned grid, bx; };
struct Variant { const char *name; LaunchFn fn; std::vector<Launch> launches; };

std::vector<long long> indices(const std::string &p, std::mt19937_64 &g) {
  std::vector<long long> idx(UPD);
  if (p == "uniform") { std::uniform_int_distribution<long long> d(0, ROWS - 1); for (auto &i : idx) i = d(g); }
  else if (p == "one_row") { for (auto &i : idx) i = 7; }
  else if (p == "two_rows") { std::uniform_int_distribution<int> d(0, 1); for (auto &i : idx) i = d(g) ? 41 : 3; }
  else { std::vector<double> w(ROWS); for (int r = 0; r < ROWS; ++r) w[r] = std::pow(r + 1.0, -1.1);
    std::discrete_distribution<int> d(w.begin(), w.end()); std::vector<int> perm(ROWS);
    for (int r = 0; r < ROWS; ++r) perm[r] = r; std::shuffle(perm.begin(), perm.end(), g);
    for (auto &i : idx) i = perm[d(g)]; }
  return idx;
}

int main() {
  std::mt19937_64 g(16);
  std::vector<float> src((size_t)UPD * W);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto &x : src) x = u(g);
  float *dsrc, *dout; long long *didx;
  CK(cudaMalloc(&dsrc, src.size() * 4)); CK(cudaMalloc(&dout, (size_t)ROWS * W * 4)); CK(cudaMalloc(&didx, UPD * 8));
  CK(cudaMemcpy(dsrc, src.data(), src.size() * 4, cudaMemcpyHostToDevice));
  size_t sizes[8] = {4ull * ROWS, 4ull * ROWS * 32, 4ull * UPD, 8ull * ROWS, 8ull * UPD, 4ull * LONGROWS, 8, 4ull * LONGROWS * W};
  int *s[8];
  for (int i = 0; i < 8; ++i) { CK(cudaMalloc(&s[i], sizes[i])); CK(cudaMemset(s[i], 0, sizes[i])); }
  auto plan = [](unsigned b) { return std::vector<Launch>{{1, 256, 256}, {2, ROWS, b}, {3, 256, 256}, {4, 1041, b}, {5, 1056, b}}; };
  auto short2 = [](unsigned b) { return std::vector<Launch>{{1, 256, 256}, {2, ROWS, b}}; };
  std::vector<Variant> vs = {
    {"base b128", base_launch, plan(128)},
    {"base b96", base_launch, plan(96)},
    {"match b128", match_launch, plan(128)},
    {"match b96", match_launch, plan(96)},
    {"match_il b96", match_il_launch, plan(96)},
    {"match_il b128", match_il_launch, plan(128)},
    {"match b96 2 launches (uniform only)", match_launch, short2(96)},
  };
  // copy bandwidth
  { float *a, *b; size_t n = 256ull << 20; CK(cudaMalloc(&a, n)); CK(cudaMalloc(&b, n));
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1); std::vector<float> t;
    for (int i = 0; i < 20; ++i) { cudaEventRecord(e0); cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice); cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms); }
    std::sort(t.begin(), t.end()); printf("copy bandwidth %.0f GB/s; floor %.4f ms\n", 2.0 * n / t[10] / 1e6, ((double)UPD * W * 4 + UPD * 8 + (double)ROWS * W * 4) / (2.0 * n / t[10] / 1e6) / 1e6);
    cudaFree(a); cudaFree(b); }
  cudaStream_t st; CK(cudaStreamCreate(&st));
  cudaEvent_t ev[7]; for (auto &e : ev) cudaEventCreate(&e);
  printf("| variant | pattern | graph median ms | launches median us | max rel err |\n|---|---|---|---|---|\n");
  for (std::string p : {"uniform", "zipf", "one_row", "two_rows"}) {
    std::vector<long long> idx = indices(p, g);
    CK(cudaMemcpy(didx, idx.data(), UPD * 8, cudaMemcpyHostToDevice));
    std::vector<double> ref((size_t)ROWS * W, 0.0);
    for (int k = 0; k < UPD; ++k) for (int c = 0; c < W; ++c) ref[(size_t)idx[k] * W + c] += src[(size_t)k * W + c];
    double rn = 0; for (double x : ref) rn += x * x; rn = std::sqrt(rn);
    for (auto &v : vs) {
      bool onlyUniform = v.launches.size() == 2;
      if (onlyUniform && p != "uniform") continue;
      auto run = [&](bool timed) { for (size_t i = 0; i < v.launches.size(); ++i) { if (timed) cudaEventRecord(ev[i], st); auto &l = v.launches[i]; v.fn(l.phase, l.grid, l.bx, 1, didx, dsrc, dout, s, st); } if (timed) cudaEventRecord(ev[v.launches.size()], st); };
      double worst = 0; std::vector<float> out((size_t)ROWS * W);
      for (int r = 0; r < 3; ++r) {
        CK(cudaMemset(dout, 0xff, out.size() * 4)); run(false); CK(cudaStreamSynchronize(st)); CK(cudaGetLastError());
        CK(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
        double en = 0; for (size_t i = 0; i < out.size(); ++i) { double d = out[i] - ref[i]; en += d * d; }
        worst = std::max(worst, std::isnan(en) ? 1e9 : std::sqrt(en) / rn);
      }
      std::vector<std::vector<float>> per(v.launches.size());
      for (int r = 0; r < 30; ++r) { run(true); CK(cudaStreamSynchronize(st));
        for (size_t i = 0; i < v.launches.size(); ++i) { float ms; cudaEventElapsedTime(&ms, ev[i], ev[i + 1]); per[i].push_back(ms * 1000); } }
      cudaGraph_t gr; cudaGraphExec_t ge;
      CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal)); run(false); CK(cudaStreamEndCapture(st, &gr)); CK(cudaGraphInstantiate(&ge, gr, 0));
      for (int r = 0; r < 5; ++r) cudaGraphLaunch(ge, st);
      std::vector<float> t;
      for (int r = 0; r < 50; ++r) { cudaEventRecord(ev[0], st); cudaGraphLaunch(ge, st); cudaEventRecord(ev[1], st); cudaEventSynchronize(ev[1]); float ms; cudaEventElapsedTime(&ms, ev[0], ev[1]); t.push_back(ms); }
      std::sort(t.begin(), t.end());
      printf("| %s | %s | %.4f |", v.name, p.c_str(), t[25]);
      for (auto &x : per) { std::sort(x.begin(), x.end()); printf(" %.1f", x[15]); }
      printf(" | %.2e |\n", worst); fflush(stdout);
      cudaGraphExecDestroy(ge); cudaGraphDestroy(gr);
    }
  }
  return 0;
}
