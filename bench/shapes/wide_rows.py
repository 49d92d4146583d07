#!/usr/bin/env python3
"""Candidate kernel shapes for wide rows with few rows (issue 17 item 2;
bench/NOTES.md section 26): LayerNorm and softmax over rows of 32,768 and
65,536 f32, each timed against Stride's generated kernel and torch.compile
in the same process.

A variant is (C, T, E, V, H): a row split over a thread-block cluster of C
blocks (sm_90; the blocks' partial results combined through distributed
shared memory), T threads per block, E elements per thread held across the
phases, V elements per load, H where the row is held: `reg` (registers) or
`smem` (dynamic shared memory; C = 1). Element k of a thread is the vector
lane + k * C * T, lane = cluster rank * T + threadIdx.x, so each warp's loads
are coalesced. Arithmetic as Stride's (IEEE division, expf), so the outputs
are compared with the generated kernel's bitwise and with PyTorch in f64.

On the GPU machine, beside the generated kernels (`stridec --emit=cuda`
of `gen.sh NAME`, written as gen_NAME.cu before the change and new_NAME.cu
after it; Stride's grid there: a block or cluster per row) and
bench/torch_bench.py:

  python3 wide_rows.py
"""
import os, sys
import cupy as cp
import torch

here = os.path.dirname(os.path.abspath(__file__))
# bench/torch_bench.py: its timing (back-to-back calls, CUDA events) and
# the sweep's torch functions; beside this file or one folder up.
sys.path[:0] = [here, os.path.join(here, "..")]
from torch_bench import layernorm, softmax, time_ms

KERNEL = r'''
#define WL (WLEN)
#define WCT (WC * WT)
#define WNV (WE / WV)
template <int N> struct alignas(4 * N) vecf { float v[N]; };
__device__ __forceinline__ unsigned cluster_rank() {
#if WC > 1
  unsigned r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r;
#else
  return 0;
#endif
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ float cluster_read(float *p, unsigned rank) {
  unsigned a = (unsigned)__cvta_generic_to_shared(p), r; float v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(r) : "memory");
  return v;
}
struct Max { __device__ float operator()(float a, float b) const { return fmaxf(a, b); } };
struct Add { __device__ float operator()(float a, float b) const { return a + b; } };
// `acc` over the row: a warp's butterfly, the block's warps in order
// through `sh`, then the cluster's blocks in rank order through `cl`.
template <typename Op> __device__ float row_all(float acc, float *sh, float *cl, Op op) {
  for (int o = 16; o > 0; o /= 2) acc = op(acc, __shfl_xor_sync(0xffffffffu, acc, o));
  if (WT > 32) {
    if (threadIdx.x % 32 == 0) sh[threadIdx.x / 32] = acc;
    __syncthreads();
    acc = sh[0];
    for (int w = 1; w < WT / 32; ++w) acc = op(acc, sh[w]);
    __syncthreads();
  }
#if WC > 1
  if (threadIdx.x == 0) *cl = acc;
  cluster_sync();
  acc = cluster_read(cl, 0);
  for (int r = 1; r < WC; ++r) acc = op(acc, cluster_read(cl, r));
#endif
  return acc;
}
#if WSMEM
extern __shared__ vecf<WV> held[];
#define HELD(k) held[(k) * WT + threadIdx.x]
#else
#define HELD(k) z[k]
#endif
#if WC > 1
#define CLUSTER __cluster_dims__(WC, 1, 1)
#else
#define CLUSTER
#endif
extern "C" __global__ void __launch_bounds__(WT) CLUSTER
layernorm(const float *__restrict__ in0, const float *__restrict__ in1, const float *__restrict__ in2, float *__restrict__ out0, int rows) {
  __shared__ float sh[32], cl[2];
  const int lane = cluster_rank() * WT + threadIdx.x;
#if !WSMEM
  vecf<WV> z[WNV];
#endif
  for (int row = blockIdx.x / WC; row < rows; row += gridDim.x / WC) {
    const vecf<WV> *x = reinterpret_cast<const vecf<WV> *>(in0 + (size_t)row * WL);
    float acc = 0.0f;
    #pragma unroll
    for (int k = 0; k < WNV; ++k) {
      HELD(k) = x[lane + k * WCT];
      #pragma unroll
      for (int e = 0; e < WV; ++e) acc += HELD(k).v[e];
    }
    const float mean = row_all(acc, sh, cl + 0, Add()) / (float)WL;
    acc = 0.0f;
    #pragma unroll
    for (int k = 0; k < WNV; ++k) {
      vecf<WV> h = HELD(k);
      #pragma unroll
      for (int e = 0; e < WV; ++e) { h.v[e] -= mean; acc += h.v[e] * h.v[e]; }
      HELD(k) = h;
    }
    const float var = row_all(acc, sh, cl + 1, Add()) / (float)WL;
    const float rs = rsqrtf(var + 1e-05f);
    const vecf<WV> *w = reinterpret_cast<const vecf<WV> *>(in1);
    const vecf<WV> *b = reinterpret_cast<const vecf<WV> *>(in2);
    vecf<WV> *y = reinterpret_cast<vecf<WV> *>(out0 + (size_t)row * WL);
    #pragma unroll
    for (int k = 0; k < WNV; ++k) {
      vecf<WV> h = HELD(k), wk = w[lane + k * WCT], bk = b[lane + k * WCT], o;
      #pragma unroll
      for (int e = 0; e < WV; ++e) o.v[e] = h.v[e] * rs * wk.v[e] + bk.v[e];
      y[lane + k * WCT] = o;
    }
#if WC > 1
    cluster_sync(); // cl is reused by the next row; no block leaves while read
#endif
  }
}
extern "C" __global__ void __launch_bounds__(WT) CLUSTER
softmax(const float *__restrict__ in0, float *__restrict__ out0, int rows) {
  __shared__ float sh[32], cl[2];
  const int lane = cluster_rank() * WT + threadIdx.x;
#if !WSMEM
  vecf<WV> z[WNV];
#endif
  for (int row = blockIdx.x / WC; row < rows; row += gridDim.x / WC) {
    const vecf<WV> *x = reinterpret_cast<const vecf<WV> *>(in0 + (size_t)row * WL);
    float acc = __int_as_float(0xff800000); // -inf (NVRTC has no INFINITY)
    #pragma unroll
    for (int k = 0; k < WNV; ++k) {
      HELD(k) = x[lane + k * WCT];
      #pragma unroll
      for (int e = 0; e < WV; ++e) acc = fmaxf(acc, HELD(k).v[e]);
    }
    const float m = row_all(acc, sh, cl + 0, Max());
    acc = 0.0f;
    #pragma unroll
    for (int k = 0; k < WNV; ++k) {
      vecf<WV> h = HELD(k);
      #pragma unroll
      for (int e = 0; e < WV; ++e) { h.v[e] = expf(h.v[e] - m); acc += h.v[e]; }
      HELD(k) = h;
    }
    const float s = row_all(acc, sh, cl + 1, Add());
    vecf<WV> *y = reinterpret_cast<vecf<WV> *>(out0 + (size_t)row * WL);
    #pragma unroll
    for (int k = 0; k < WNV; ++k) {
      vecf<WV> h = HELD(k), o;
      #pragma unroll
      for (int e = 0; e < WV; ++e) o.v[e] = h.v[e] / s;
      y[lane + k * WCT] = o;
    }
#if WC > 1
    cluster_sync();
#endif
  }
}
'''

GRAPHS = [("layernorm", 512, 32768), ("layernorm", 256, 65536),
          ("softmax", 512, 32768), ("softmax", 256, 65536)]
# (C, T, V, held); E = L / (C * T).
VARIANTS = {
    32768: [(1, 1024, 4, "smem"), (1, 1024, 4, "reg"), (2, 1024, 1, "reg"), (2, 1024, 4, "reg"),
            (4, 512, 1, "reg"), (4, 512, 4, "reg"), (4, 1024, 4, "reg"), (8, 256, 4, "reg"),
            (8, 512, 4, "reg"), (8, 1024, 4, "reg")],
    65536: [(4, 1024, 1, "reg"), (4, 1024, 4, "reg"), (8, 512, 1, "reg"), (8, 512, 4, "reg"),
            (8, 1024, 4, "reg"), (2, 1024, 4, "smem")],
}


def generated_kernel(path):
    """The kernel of a `stridec --emit=cuda` file: its name (the line after
    its signature's first), threads per block and cluster blocks."""
    lines = open(path).read().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith('extern "C" __global__'))
    head = lines[at]
    block = int(head.split("__launch_bounds__(")[1].split(")")[0])
    blocks = int(head.split("__cluster_dims__(")[1].split(",")[0]) if "__cluster_dims__" in head else 1
    return lines[at + 1].split("(")[0], block, blocks


def rel_err(out, ref):
    return float((out.double() - ref).norm() / ref.norm())


def main():
    torch.manual_seed(1)
    a = torch.empty(1 << 28, device="cuda"); b = torch.empty_like(a)
    bw = 2 * a.numel() * 4 / (time_ms(lambda: b.copy_(a)) * 1e-3)
    del a, b
    print(f"copy bandwidth {bw / 1e12:.2f} TB/s")
    stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
    rows_out = []
    for form, rows, length in GRAPHS:
        x = torch.randn(rows, length, device="cuda") * 3 + 1
        args = [x]
        if form == "layernorm":
            args += [torch.rand(length, device="cuda") + 0.5, torch.randn(length, device="cuda")]
        out = torch.empty_like(x)
        nbytes = sum(t.numel() * 4 for t in args) + out.numel() * 4
        floor = nbytes / bw * 1e3
        fn = layernorm if form == "layernorm" else softmax
        ref = fn(*[t.double() for t in args])
        compiled = torch.compile(fn, dynamic=False)
        tc = time_ms(lambda: compiled(*args))
        name = f"{form}_f32_{rows}x{length}"
        results = [("torch.compile", tc, rel_err(compiled(*args), ref), "")]
        ptrs = [cp.asarray(t) for t in args] + [cp.asarray(out)]
        gen_out = None
        for label, prefix in (("Stride before", "gen"), ("Stride after", "new")):
            path = os.path.join(here, f"{prefix}_{name}.cu")
            if not os.path.exists(path):
                continue
            try:
                kname, block, blocks = generated_kernel(path)
                k = cp.RawModule(code=open(path).read(), options=("-std=c++17", "-arch=sm_90")).get_function(kname)
                launch = lambda: k((rows * blocks,), (block,), tuple(ptrs), stream=stream)
                out.fill_(float("nan")); launch(); torch.cuda.synchronize()
            except Exception as ex:  # reported, not fatal
                results.append((label, float("nan"), float("nan"), str(ex)[:80]))
                continue
            if gen_out is None:
                gen_out = out.clone()
            same = f", differ from before: {int((out != gen_out).sum())}"
            results.append((f"{label} ({blocks} x {block} threads per row)", time_ms(launch), rel_err(out, ref),
                            f"regs {k.num_regs}, local {k.local_size_bytes}{same}"))
        for C, T, V, held in VARIANTS[length]:
            E = length // (C * T)
            opts = ["-std=c++17", "-arch=sm_90", f"-DWLEN={length}", f"-DWC={C}", f"-DWT={T}",
                    f"-DWE={E}", f"-DWV={V}", f"-DWSMEM={int(held == 'smem')}"]
            try:
                k = cp.RawModule(code=KERNEL, options=tuple(opts)).get_function(form)
            except Exception as ex:  # a variant that does not compile is reported, not fatal
                results.append((f"C={C} T={T} E={E} V={V} {held}", float("nan"), float("nan"), str(ex)[:60]))
                continue
            smem = 4 * length // C if held == "smem" else 0
            grid = rows * C
            launch = lambda: k((grid,), (T,), tuple(ptrs) + (cp.int32(rows),), shared_mem=smem, stream=stream)
            out.fill_(float("nan"))
            try:
                if smem:
                    k.max_dynamic_shared_size_bytes = smem
                launch(); torch.cuda.synchronize()
            except Exception as ex:
                results.append((f"C={C} T={T} E={E} V={V} {held}", float("nan"), float("nan"), str(ex)[:60]))
                continue
            same = "" if gen_out is None else f", differ from generated: {int((out != gen_out).sum())}"
            err = rel_err(out, ref)
            results.append((f"C={C} T={T} E={E} V={V} {held}", time_ms(launch), err,
                            f"regs {k.num_regs}, local {k.local_size_bytes}{same}"))
        print(f"\n{name}: floor {floor:.4f} ms")
        print("| variant | ms | % floor | rel err | notes |")
        print("|---|---|---|---|---|")
        for v, ms, err, note in results:
            print(f"| {v} | {ms:.4f} | {100 * floor / ms:.0f}% | {err:.1e} | {note} |", flush=True)
        del x, args, out, ptrs, ref


main()
