#!/usr/bin/env python3
"""Hand variants of Stride's causal-softmax row kernel (GPT-2's attention
softmax, 96x1024x1024 bf16; bench/NOTES.md section 21): elements per access
(SV_W), threads per row (SV_T), division through the row's reciprocal
(RCPDIV), fast exp/div, no intermediate rounding; each timed with CuPy events
and compared bitwise with the generated kernel. Beside this script, on the
GPU machine:

  stridec --emit=cuda <(bench/shapes/gen.sh causal_softmax_bf16_98304x1024) > causal_gen.cu
  python3 causal_variants.py          (ONLY="8,64,RCPDIV" runs one variant, for ncu)
"""
import os, sys, statistics
import cupy as cp
import numpy as np
here = os.path.dirname(os.path.abspath(__file__))
gen = open(os.path.join(here, "causal_gen.cu")).read()
prelude = gen[:gen.index('extern "C" __global__')]
ROWS, L = 98304, 1024
KERNEL = r'''
template <int N> struct alignas(2 * N) vecb { __nv_bfloat16 v[N]; };
#ifdef NOROUND
#define RND(x) (x)
#else
#define RND(x) stride_round_bf16(x)
#endif
#ifdef FASTEXP
#define EXPF(x) __expf(x)
#else
#define EXPF(x) stride_exp(x)
#endif
#ifdef FASTDIV
#define DIVF(a, b) __fdividef(a, b)
#elif defined(RCPDIV)
// a / b from b's IEEE reciprocal y, computed once per row: q = a*y, then one
// Newton step on the exact remainder (Markstein); test of exactness below.
#define DIVF(a, b) (__fmaf_rn(__fmaf_rn(-(b), (a) * rcp, (a)), rcp, (a) * rcp))
#else
#define DIVF(a, b) stride_div(a, b)
#endif
#define SV_E (SV_L / SV_T)
struct Max { __device__ float operator()(float a, float b) const { return stride_maximum(a, b); } };
struct Add { __device__ float operator()(float a, float b) const { return stride_add(a, b); } };
// `acc` combined over the row's SV_T threads: a warp's shuffles, then the
// warps' values through `sh` in warp order.
template <typename Op> __device__ float row_all(float acc, float *sh, Op op) {
  for (int o = 16; o > 0; o /= 2) acc = op(acc, __shfl_xor_sync(0xffffffffu, acc, o));
  if (SV_T > 32) {
    if (threadIdx.x % 32 == 0) sh[threadIdx.x / 32] = acc;
    __syncthreads();
    acc = sh[0];
    for (int w = 1; w < SV_T / 32; ++w) acc = op(acc, sh[w]);
  }
  return acc;
}
extern "C" __global__ void __launch_bounds__(256)
variant(const __nv_bfloat16 *__restrict__ in0, const __nv_bfloat16 *__restrict__ in1, __nv_bfloat16 *__restrict__ out0) {
  constexpr int RPB = (SV_T > 32 ? 1 : 256 / SV_T);
  __shared__ float sh0[SV_T / 32 + 1], sh1[SV_T / 32 + 1];
  const int lane = threadIdx.x % SV_T;
  for (int row = blockIdx.x * RPB + threadIdx.x / SV_T; row < SV_ROWS; row += gridDim.x * RPB) {
    const int i1 = row % SV_L, i2 = row / SV_L;
    const __nv_bfloat16 *x = in0 + (size_t)i2 * SV_L * SV_L + i1 * SV_L;
    const __nv_bfloat16 *mk = in1 + i1 * SV_L;
    float z[SV_E];
    float acc0 = -STRIDE_INF_F;
    #pragma unroll
    for (int c = 0; c < SV_E / SV_W; ++c) {
      const int pos = (lane + c * SV_T) * SV_W;
      vecb<SV_W> a = *reinterpret_cast<const vecb<SV_W> *>(x + pos);
      vecb<SV_W> b = *reinterpret_cast<const vecb<SV_W> *>(mk + pos);
      #pragma unroll
      for (int e = 0; e < SV_W; ++e) {
        float s = RND(stride_mul(stride_ld(&a.v[e]), 0.125f));
        z[c * SV_W + e] = RND(stride_add(s, stride_ld(&b.v[e])));
        acc0 = stride_maximum(acc0, z[c * SV_W + e]);
      }
    }
    acc0 = row_all(acc0, sh0, Max());
    const float m = RND(acc0);
    float acc1 = 0.0f;
    #pragma unroll
    for (int k = 0; k < SV_E; ++k) {
      z[k] = RND(EXPF(RND(stride_sub(z[k], m))));
      acc1 = stride_add(acc1, z[k]);
    }
    acc1 = row_all(acc1, sh1, Add());
    const float s = RND(acc1);
    const float rcp = 1.0f / s;
    __nv_bfloat16 *y = out0 + (size_t)i2 * SV_L * SV_L + i1 * SV_L;
    #pragma unroll
    for (int c = 0; c < SV_E / SV_W; ++c) {
      vecb<SV_W> o;
      #pragma unroll
      for (int e = 0; e < SV_W; ++e) stride_st(&o.v[e], stride_round_bf16(DIVF(z[c * SV_W + e], s)));
      *reinterpret_cast<vecb<SV_W> *>(y + (lane + c * SV_T) * SV_W) = o;
    }
    if (SV_T > 32) __syncthreads();
  }
}
'''

def bf16(a):
    return (cp.asarray(a, dtype=cp.float32).view(cp.uint32) >> 16).astype(cp.uint16)

def time_ms(f, reps=30):
    for _ in range(3): f()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); f(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return statistics.median(ts)

def grid_of(T, sms=132):
    block = T if T > 32 else 256
    return min(ROWS // (block // T), sms * (16 * 2048 // block)), block

def main():
    cp.random.seed(1)
    x = bf16(cp.random.uniform(-8, 8, (ROWS * L,), dtype=cp.float32))
    maskf = cp.triu(cp.full((L, L), -cp.inf, dtype=cp.float32), 1)
    mask = bf16(maskf.ravel())
    out = cp.empty_like(x)
    a = cp.empty(1 << 28, dtype=cp.float32); b = cp.empty_like(a)
    copy = time_ms(lambda: b.__setitem__(slice(None), a))
    bw = 2 * a.nbytes / (copy * 1e-3)
    floor = (2 * ROWS * L * 2 + L * L * 2) / bw * 1e3
    print(f"copy bandwidth {bw/1e12:.2f} TB/s; floor {floor:.4f} ms")
    ref_mod = cp.RawModule(code=gen, options=("-std=c++17",), name_expressions=None)
    ref_k = ref_mod.get_function("full_mul_add_max_sub_div")
    g, blk = grid_of(64)
    ref_k((g,), (blk,), (x, mask, out))
    ref = out.copy()
    ms = time_ms(lambda: ref_k((g,), (blk,), (x, mask, out)), reps=1 if os.environ.get("ONLY") else 30)
    print(f"| generated (V=1, T=64) | {ms:.4f} | {100*floor/ms:.0f}% | - |")
    configs = [(1, 64, ""), (8, 64, ""), (1, 32, ""), (8, 32, ""), (8, 128, ""), (4, 64, ""),
               (1, 64, "RCPDIV"), (8, 64, "RCPDIV"), (8, 32, "RCPDIV"),
               (8, 64, "FASTEXP"), (8, 64, "FASTDIV"), (8, 64, "FASTEXP FASTDIV"),
               (8, 64, "NOROUND FASTEXP FASTDIV"), (8, 32, "NOROUND FASTEXP FASTDIV")]
    only = os.environ.get("ONLY")
    if only:
        configs = [c for c in configs if f"{c[0]},{c[1]},{c[2]}" == only]
    for V, T, flags in configs:
        opts = ["-std=c++17", f"-DSV_W={V}", f"-DSV_T={T}", f"-DSV_ROWS={ROWS}", f"-DSV_L={L}"] + [f"-D{f}" for f in flags.split()]
        src = prelude + KERNEL
        mod = cp.RawModule(code=src, options=tuple(opts))
        k = mod.get_function("variant")
        g, blk = grid_of(T)
        out.fill(0xFFFF)
        k((g,), (blk,), (x, mask, out))
        diff = int((out != ref).sum())
        f32 = lambda u: (u.astype(cp.uint32) << 16).view(cp.float32)
        maxdiff = float(cp.abs(f32(out) - f32(ref)).max())
        ms = time_ms(lambda: k((g,), (blk,), (x, mask, out)))
        print(f"| V={V} T={T} {flags} | {ms:.4f} | {100*floor/ms:.0f}% | {diff} elements differ (max {maxdiff:.3g}) | regs {k.num_regs} |", flush=True)

main()
