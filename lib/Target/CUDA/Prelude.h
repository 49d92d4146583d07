//===- Prelude.h - Device helpers at the top of every emitted source ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Every emitted translation unit starts with this text: loads and stores
// between storage and compute types, PyTorch's pointwise semantics for each
// compute type (wrapping integer arithmetic, NaN-propagating maximum and
// minimum, exact gelu), rounding of f16/bf16 intermediates, atomics for index
// scatters, and the device-side report of run-time errors.
//
// Compute types: f16, bf16 and f32 compute in float, f64 in double, i1 in
// bool, i8 in signed char, i32 in int, i64 in long long. Each op's result is
// rounded to its element type (an f16 add is rounded to f16, as PyTorch's
// eager mode does), integer arithmetic wraps in two's complement.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_TARGET_CUDA_PRELUDE_H
#define STRIDE_LIB_TARGET_CUDA_PRELUDE_H

namespace stride::cuda {

inline constexpr const char *kPrelude = R"CUDA(#include <cuda_fp16.h>
#include <cuda_bf16.h>

// ---- Stride device prelude ------------------------------------------------

#define STRIDE_INF_F __int_as_float(0x7f800000)
#define STRIDE_NAN_F __int_as_float(0x7fc00000)
#define STRIDE_INF_D __longlong_as_double(0x7ff0000000000000LL)
#define STRIDE_NAN_D __longlong_as_double(0x7ff8000000000000LL)
#define STRIDE_DEVICE __device__ __forceinline__

extern "C" __device__ void __assertfail(const char *message, const char *file,
                                        unsigned line, const char *function,
                                        size_t charSize);

// A run-time error (index out of range, integer division by zero): stops the
// kernel with a device-side assertion that names the op; the launch fails
// with CUDA_ERROR_ASSERT and the runtime reports the kernel.
__device__ __noinline__ void stride_fail(const char *message) {
#if STRIDE_RUNTIME_CHECKS
  __assertfail(message, "stride", 0, "stride kernel", 1);
#endif
}

// Quotient and remainder rounded toward negative infinity, for index
// arithmetic whose dividend may be negative (the printer proves most
// dividends non-negative and uses / and %, which round toward zero).
STRIDE_DEVICE long long stride_floordiv(long long a, long long b) {
  long long q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
STRIDE_DEVICE long long stride_floormod(long long a, long long b) {
  long long r = a % b;
  return r < 0 ? r + b : r;
}

// The first statement of every kernel. With STRIDE_DEPENDENT_LAUNCH (sm_90
// and later; python-free-docs/module-format.md, "Dispatch") a kernel may have been
// launched before the grid ahead of it ended: it waits until that grid has
// ended and its writes are visible. It must come before any access to
// global memory and before any return: a grid whose blocks all left without
// waiting could end before its predecessor, and the grid after it would
// then wait for too little. No kernel asks for its successor early
// (griddepcontrol.launch_dependents): each block's exit does, which
// measured faster (bench/NOTES.md, section 27). Elsewhere, and in
// emulation, nothing.
// With STRIDE_EARLY_LAUNCH (stridec --early-launch) each block then lets
// the grid after it launch at once: that grid's blocks run up to their own
// wait (fetching read-only inputs into L2, stride_prefetch_l2) while this
// one works.
__device__ __forceinline__ void stride_begin_kernel() {
#if STRIDE_DEPENDENT_LAUNCH && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#if STRIDE_EARLY_LAUNCH
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
#endif
}

// Let the grid after this one launch now, as this block starts, rather than
// as the blocks exit (printed in the kernels that
// stride-trigger-small-successors marks: the grid after them is small). It
// waits in stride_begin_kernel until this grid has ended, so only where it
// is placed changes.
__device__ __forceinline__ void stride_trigger_dependents() {
#if STRIDE_DEPENDENT_LAUNCH && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// A member of a launch group (stride-group-launches) runs on a range of
// the group's blocks, as a __device__ function whose parameters `blockIdx`
// and `gridDim`, of this type, give the block index and grid size of its
// own launch; the built-in ones would give the group's.
struct stride_part_index {
  unsigned x, y, z;
};

// A hint: fetch the line at `p`, which no step of the plan writes, into L2
// before stride_begin_kernel (with STRIDE_EARLY_LAUNCH only; elsewhere,
// and in emulation, nothing).
__device__ __forceinline__ void stride_prefetch_l2(const void *p) {
#if STRIDE_EARLY_LAUNCH && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#else
  (void)p;
#endif
}

// Four consecutive elements, aligned so that they move as one access.
template <typename T> struct alignas(4 * sizeof(T)) stride_vec4 { T v[4]; };
// N consecutive elements, aligned to move as one access (the skinny
// product's 16-byte loads: 8 f16/bf16 or 4 f32 elements).
template <typename T, int N> struct alignas(N * sizeof(T)) stride_vecn { T v[N]; };

// Storage -> compute.
STRIDE_DEVICE float stride_ld(const __half *p) { return __half2float(*p); }
STRIDE_DEVICE float stride_ld(const __nv_bfloat16 *p) { return __bfloat162float(*p); }
STRIDE_DEVICE float stride_ld(const float *p) { return *p; }
STRIDE_DEVICE double stride_ld(const double *p) { return *p; }
STRIDE_DEVICE bool stride_ld(const unsigned char *p) { return *p != 0; }
STRIDE_DEVICE signed char stride_ld(const signed char *p) { return *p; }
STRIDE_DEVICE int stride_ld(const int *p) { return *p; }
STRIDE_DEVICE long long stride_ld(const long long *p) { return *p; }

// Compute -> storage.
STRIDE_DEVICE void stride_st(__half *p, float v) { *p = __float2half_rn(v); }
STRIDE_DEVICE void stride_st(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }
STRIDE_DEVICE void stride_st(float *p, float v) { *p = v; }
STRIDE_DEVICE void stride_st(double *p, double v) { *p = v; }
STRIDE_DEVICE void stride_st(unsigned char *p, bool v) { *p = v ? 1 : 0; }
STRIDE_DEVICE void stride_st(signed char *p, signed char v) { *p = v; }
STRIDE_DEVICE void stride_st(int *p, int v) { *p = v; }
STRIDE_DEVICE void stride_st(long long *p, long long v) { *p = v; }

// Rounding of f16/bf16 values held in float.
STRIDE_DEVICE float stride_round_f16(float v) { return __half2float(__float2half_rn(v)); }
// A bf16 is a float's upper half, so on sm_80 and later one instruction
// rounds v and leaves it widened: the pair conversion puts bf16(v) in the
// upper half and bf16(0) = 0 in the lower. The same rounding (to nearest
// even, canonical NaN) as __float2bfloat16_rn followed by the widening
// conversion, in one instruction instead of two (bench/NOTES.md, section 37).
STRIDE_DEVICE float stride_round_bf16(float v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned pair;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(pair) : "f"(v), "f"(0.0f));
  return __uint_as_float(pair);
#else
  return __bfloat162float(__float2bfloat16_rn(v));
#endif
}
STRIDE_DEVICE float stride_round_f16(double v) { return __half2float(__double2half(v)); }
STRIDE_DEVICE float stride_round_bf16(double v) { return __bfloat162float(__double2bfloat16(v)); }
STRIDE_DEVICE float stride_int_to_f16(long long v) { return __half2float(__ll2half_rn(v)); }
STRIDE_DEVICE float stride_int_to_bf16(long long v) { return __bfloat162float(__ll2bfloat16_rn(v)); }

// Floating-point ops (PyTorch semantics; maximum/minimum propagate NaN).
#define STRIDE_FLOAT_OPS(T, S)                                                 \
  STRIDE_DEVICE T stride_neg(T a) { return -a; }                               \
  STRIDE_DEVICE T stride_abs(T a) { return fabs##S(a); }                       \
  STRIDE_DEVICE T stride_exp(T a) { return exp##S(a); }                        \
  STRIDE_DEVICE T stride_log(T a) { return log##S(a); }                        \
  STRIDE_DEVICE T stride_sqrt(T a) { return sqrt##S(a); }                      \
  STRIDE_DEVICE T stride_rsqrt(T a) { return T(1) / sqrt##S(a); }              \
  STRIDE_DEVICE T stride_tanh(T a) { return tanh##S(a); }                      \
  STRIDE_DEVICE T stride_erf(T a) { return erf##S(a); }                        \
  STRIDE_DEVICE T stride_sigmoid(T a) { return T(1) / (T(1) + exp##S(-a)); }   \
  STRIDE_DEVICE T stride_relu(T a) { return (a > T(0) || a != a) ? a : T(0); } \
  STRIDE_DEVICE T stride_gelu(T a) {                                           \
    return T(0.5) * a * (T(1) + erf##S(a * T(0.70710678118654752440)));        \
  }                                                                            \
  STRIDE_DEVICE T stride_gelu_tanh(T a) {                                      \
    return T(0.5) * a *                                                        \
           (T(1) + tanh##S(T(0.79788456080286535588) *                         \
                           (a + T(0.044715) * a * a * a)));                    \
  }                                                                            \
  STRIDE_DEVICE T stride_sin(T a) { return sin##S(a); }                        \
  STRIDE_DEVICE T stride_cos(T a) { return cos##S(a); }                        \
  STRIDE_DEVICE T stride_tan(T a) { return tan##S(a); }                        \
  STRIDE_DEVICE T stride_asin(T a) { return asin##S(a); }                      \
  STRIDE_DEVICE T stride_acos(T a) { return acos##S(a); }                      \
  STRIDE_DEVICE T stride_atan(T a) { return atan##S(a); }                      \
  STRIDE_DEVICE T stride_sinh(T a) { return sinh##S(a); }                      \
  STRIDE_DEVICE T stride_cosh(T a) { return cosh##S(a); }                      \
  STRIDE_DEVICE T stride_asinh(T a) { return asinh##S(a); }                    \
  STRIDE_DEVICE T stride_acosh(T a) { return acosh##S(a); }                    \
  STRIDE_DEVICE T stride_atanh(T a) { return atanh##S(a); }                    \
  STRIDE_DEVICE T stride_expm1(T a) { return expm1##S(a); }                    \
  STRIDE_DEVICE T stride_log1p(T a) { return log1p##S(a); }                    \
  STRIDE_DEVICE T stride_log2(T a) { return log2##S(a); }                      \
  STRIDE_DEVICE T stride_log10(T a) { return log10##S(a); }                    \
  STRIDE_DEVICE T stride_floor(T a) { return floor##S(a); }                    \
  STRIDE_DEVICE T stride_ceil(T a) { return ceil##S(a); }                      \
  STRIDE_DEVICE T stride_round(T a) { return rint##S(a); }                     \
  STRIDE_DEVICE T stride_trunc(T a) { return trunc##S(a); }                    \
  STRIDE_DEVICE T stride_sign(T a) { return T((T(0) < a) - (a < T(0))); }      \
  STRIDE_DEVICE T stride_atan2(T a, T b) { return atan2##S(a, b); }            \
  STRIDE_DEVICE T stride_fmod(T a, T b) { return fmod##S(a, b); }              \
  STRIDE_DEVICE T stride_remainder(T a, T b) {                                 \
    T m = fmod##S(a, b);                                                       \
    return (m != T(0) && ((b < T(0)) != (m < T(0)))) ? m + b : m;              \
  }                                                                            \
  STRIDE_DEVICE T stride_add(T a, T b) { return a + b; }                       \
  STRIDE_DEVICE T stride_sub(T a, T b) { return a - b; }                       \
  STRIDE_DEVICE T stride_mul(T a, T b) { return a * b; }                       \
  STRIDE_DEVICE T stride_div(T a, T b) { return a / b; }                       \
  STRIDE_DEVICE T stride_pow(T a, T b) { return pow##S(a, b); }                \
  STRIDE_DEVICE T stride_maximum(T a, T b) { return (a != a || a > b) ? a : b; } \
  STRIDE_DEVICE T stride_minimum(T a, T b) { return (a != a || a < b) ? a : b; }
STRIDE_FLOAT_OPS(float, f)
STRIDE_FLOAT_OPS(double, )

// a / b for f16/bf16 quotients (computed in float) where b is the same for a
// whole row of a broadcast-reduction kernel (a reduction's result, or a
// value computed once per row from it; f32 quotients divide directly, which
// was faster there: bench/NOTES.md section 25), rounded
// exactly as a / b: y is 1.0f / b, printed at every element of the row so
// that the compiler computes it once per row. The quotient a * y is refined
// by two Newton steps on the exact remainder fma(-b, q, a) (Markstein's
// theorem: a faithful quotient and a correctly rounded reciprocal give the
// correctly rounded quotient), about 5 instructions in place of an IEEE
// division's ~15 and its slow path (bench/NOTES.md, section 21). The steps
// neither overflow nor underflow while |b| and |a| are in [2^-60, 2^60]; a
// zero a returns a * y (the sign of a / b); every other element (NaN, inf,
// subnormal, far out of range) takes the plain division.
STRIDE_DEVICE float stride_div_row(float a, float b, float y) {
  const float m = fabsf(a), n = fabsf(b);
  if (n >= 0x1p-60f && n <= 0x1p60f && m <= 0x1p60f &&
      (m >= 0x1p-60f || m == 0.0f)) {
    const float q = a * y;
    const float q1 = fmaf(fmaf(-b, q, a), y, q);
    const float q2 = fmaf(fmaf(-b, q1, a), y, q1);
    return m == 0.0f ? q : q2;
  }
  return a / b;
}

// a / b rounded to bf16, for bf16 quotients by a row's divisor (as
// stride_div_row, same y). A bf16 is a float's upper half, rounded to
// nearest even on the lower half: the quotient a * y, within 3 float ulps of
// the correctly rounded a / b while both are normal floats and y is the
// reciprocal of a b in [2^-60, 2^60], rounds to the same bf16 unless its
// lower half is within 16 of the midpoint 0x8000. Those (1 in 2,000
// elements), every element whose a * y is not a normal float away from the
// range's ends (zeros aside), and every b out of range take stride_div_row:
// 2 integer tests in place of its 2 Newton steps (bench/NOTES.md, section 37).
__device__ __noinline__ float stride_div_row_bf16_exact(float a, float b,
                                                        float y) {
  return stride_round_bf16(stride_div_row(a, b, y));
}
STRIDE_DEVICE float stride_div_row_bf16(float a, float b, float y) {
  const float n = fabsf(b);
  const float q = a * y;
  const unsigned bits = __float_as_uint(q);
  const bool normal = ((bits >> 23) & 0xffu) - 2u < 252u;
  const bool nearMidpoint = ((bits - 0x7ff0u) & 0xffffu) <= 0x20u;
  if (n >= 0x1p-60f && n <= 0x1p60f &&
      (a == 0.0f || (normal && !nearMidpoint)))
    return stride_round_bf16(q);
  return stride_div_row_bf16_exact(a, b, y); // out of line: rarely taken
}

// Integer ops: two's complement wrapping, truncating division.
#define STRIDE_INT_OPS(T, U)                                                   \
  STRIDE_DEVICE T stride_neg(T a) { return (T)((U)0 - (U)a); }                 \
  STRIDE_DEVICE T stride_abs(T a) { return a < 0 ? stride_neg(a) : a; }        \
  STRIDE_DEVICE T stride_relu(T a) { return a > 0 ? a : (T)0; }                \
  STRIDE_DEVICE T stride_add(T a, T b) { return (T)((U)a + (U)b); }            \
  STRIDE_DEVICE T stride_sub(T a, T b) { return (T)((U)a - (U)b); }            \
  STRIDE_DEVICE T stride_mul(T a, T b) { return (T)((U)a * (U)b); }            \
  STRIDE_DEVICE T stride_div(T a, T b, const char *where) {                    \
    if (b == 0) {                                                              \
      stride_fail(where);                                                      \
      return (T)0;                                                             \
    }                                                                          \
    if (b == (T)-1)                                                            \
      return stride_neg(a);                                                    \
    return (T)(a / b);                                                         \
  }                                                                            \
  STRIDE_DEVICE T stride_maximum(T a, T b) { return a > b ? a : b; }           \
  STRIDE_DEVICE T stride_minimum(T a, T b) { return a < b ? a : b; }           \
  STRIDE_DEVICE T stride_not(T a) { return (T)~a; }                            \
  STRIDE_DEVICE T stride_and(T a, T b) { return (T)(a & b); }                  \
  STRIDE_DEVICE T stride_or(T a, T b) { return (T)(a | b); }                  \
  STRIDE_DEVICE T stride_xor(T a, T b) { return (T)(a ^ b); }                  \
  STRIDE_DEVICE T stride_sign(T a) { return (T)((a > 0) - (a < 0)); }
STRIDE_INT_OPS(signed char, unsigned int)
STRIDE_INT_OPS(int, unsigned int)
STRIDE_INT_OPS(long long, unsigned long long)

// argmax and argmin accumulate a (value, index) pair packed into one
// 64-bit key, so that the larger key wins and one integer max combines
// pairs in any order (a shuffle moves one word): the high 32 bits order the
// values (argmin's reversed), a NaN above every number (the first NaN
// wins, as in PyTorch), -0.0 as 0.0; the low 32 bits hold the index
// inverted (equal values: the smaller index wins). Key 0 is no element.
// Values are told apart by their bits, not by comparisons, which fast-math
// may rewrite.
STRIDE_DEVICE unsigned stride_order_bits(float v) {
  unsigned bits = __float_as_uint(v);
  if ((bits & 0x7fffffffu) == 0u)
    bits = 0u;
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}
STRIDE_DEVICE bool stride_is_nan_bits(float v) {
  return (__float_as_uint(v) & 0x7fffffffu) > 0x7f800000u;
}
STRIDE_DEVICE unsigned long long stride_arg_key(unsigned order, long long i) {
  return ((unsigned long long)order << 32) | (0xffffffffu - (unsigned)i);
}
STRIDE_DEVICE unsigned long long stride_argmax_key(float v, long long i) {
  return stride_arg_key(stride_is_nan_bits(v) ? 0xffffffffu
                                              : stride_order_bits(v), i);
}
STRIDE_DEVICE unsigned long long stride_argmin_key(float v, long long i) {
  return stride_arg_key(stride_is_nan_bits(v) ? 0xffffffffu
                                              : ~stride_order_bits(v), i);
}
STRIDE_DEVICE unsigned long long stride_argmax_key(int v, long long i) {
  return stride_arg_key((unsigned)v ^ 0x80000000u, i);
}
STRIDE_DEVICE unsigned long long stride_argmin_key(int v, long long i) {
  return stride_arg_key(~((unsigned)v ^ 0x80000000u), i);
}
STRIDE_DEVICE unsigned long long stride_arg_combine(unsigned long long a,
                                                    unsigned long long b) {
  return a > b ? a : b;
}
STRIDE_DEVICE long long stride_arg_index(unsigned long long key) {
  return (long long)(0xffffffffu - (unsigned)key);
}

STRIDE_DEVICE bool stride_not(bool a) { return !a; }
STRIDE_DEVICE bool stride_and(bool a, bool b) { return a && b; }
STRIDE_DEVICE bool stride_or(bool a, bool b) { return a || b; }
STRIDE_DEVICE bool stride_xor(bool a, bool b) { return a != b; }

// Atomic accumulation for scatter_add / index_add.
STRIDE_DEVICE void stride_atomic_add(float *p, float v) { atomicAdd(p, v); }
STRIDE_DEVICE void stride_atomic_add(double *p, double v) { atomicAdd(p, v); }
STRIDE_DEVICE void stride_atomic_add(__half *p, float v) { atomicAdd(p, __float2half_rn(v)); }
STRIDE_DEVICE void stride_atomic_add(__nv_bfloat16 *p, float v) { atomicAdd(p, __float2bfloat16_rn(v)); }
STRIDE_DEVICE void stride_atomic_add(int *p, int v) { atomicAdd(p, v); }
STRIDE_DEVICE void stride_atomic_add(long long *p, long long v) {
  atomicAdd(reinterpret_cast<unsigned long long *>(p), (unsigned long long)v);
}
// Four consecutive floats, 16-byte aligned: one vector atomic on sm_90 and
// later, else four.
STRIDE_DEVICE void stride_atomic_add4(float *p, float a, float b, float c, float d) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  atomicAdd(reinterpret_cast<float4 *>(p), make_float4(a, b, c, d));
#else
  atomicAdd(p, a);
  atomicAdd(p + 1, b);
  atomicAdd(p + 2, c);
  atomicAdd(p + 3, d);
#endif
}
// Bytes: a compare-and-swap loop on the aligned 32-bit word holding the byte
// (Stride rounds the buffers it allocates up to 16 bytes).
STRIDE_DEVICE void stride_atomic_add(signed char *p, signed char v) {
  unsigned int *word = reinterpret_cast<unsigned int *>((size_t)p & ~(size_t)3);
  unsigned int shift = (unsigned int)((size_t)p & 3) * 8;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    unsigned int byte = (assumed >> shift) & 0xffu;
    unsigned int sum = (byte + (unsigned int)(unsigned char)v) & 0xffu;
    old = atomicCAS(word, assumed, (assumed & ~(0xffu << shift)) | (sum << shift));
  } while (assumed != old);
}
// i1 accumulates as a logical or.
STRIDE_DEVICE void stride_atomic_add(unsigned char *p, bool v) {
  if (!v)
    return;
  unsigned int *word = reinterpret_cast<unsigned int *>((size_t)p & ~(size_t)3);
  atomicOr(word, 1u << ((unsigned int)((size_t)p & 3) * 8));
}

// The index analysis of the default segmented index_add
// (python-free-docs/cuda-backend.md). `row` is the row of this lane's source position
// (-1: none); every lane of the warp calls it. Returns a rank among the
// positions of the row, in no particular order: the lanes of one row rank
// among themselves and their first lane adds their count to `counts[row]`
// (one atomic per row and warp).
STRIDE_DEVICE int stride_rank_in_warp(int row, int *counts) {
  const unsigned peers = __match_any_sync(0xffffffffu, row);
  const int lane = threadIdx.x & 31, leader = __ffs(peers) - 1;
  int base = 0;
  if (row >= 0 && lane == leader)
    base = atomicAdd(&counts[row], __popc(peers));
  base = __shfl_sync(0xffffffffu, base, leader);
  return base + __popc(peers & ((1u << lane) - 1u));
}

// The pages of the long rows of the default segmented index_add
// (python-free-docs/cuda-backend.md): a hash table from a page's key (row << 32 |
// page number) to its index, open addressing with linear probing over
// `mask` + 1 entries; keys are stored + 1 and indices + 1, so that a
// zeroed table is empty. The first position of a page inserts it (each key
// once) and returns its entry; the page's other positions find it,
// waiting where the key is not there yet (its inserter holds an earlier
// rank of the row, so it is running).
STRIDE_DEVICE unsigned stride_page_hash(unsigned long long key, unsigned mask) {
  return (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}
STRIDE_DEVICE int stride_page_insert(unsigned long long *keys, int *pages,
                                     unsigned mask, unsigned long long key,
                                     int page) {
  for (unsigned h = stride_page_hash(key, mask);; h = (h + 1) & mask)
    if (atomicCAS(&keys[h], 0ull, key + 1) == 0ull) {
      atomicExch(&pages[h], page + 1);
      return (int)h;
    }
}
STRIDE_DEVICE int stride_page_find(const unsigned long long *keys,
                                   const int *pages, unsigned mask,
                                   unsigned long long key) {
  for (unsigned h = stride_page_hash(key, mask);;) {
    const unsigned long long at = *(const volatile unsigned long long *)&keys[h];
    if (at == 0ull)
      continue; // the key may still land here
    if (at != key + 1) {
      h = (h + 1) & mask;
      continue;
    }
    int page;
    while ((page = *(const volatile int *)&pages[h]) == 0) {
    }
    return page - 1;
  }
}

// The index analysis of the segmented index_add (python-free-docs/cuda-backend.md).
// `row` is the row of this thread's source position (-1: none) among the
// block's blockDim.x consecutive positions. Returns the position's rank
// among the positions of its row: those of the block before it, in source
// order, plus the count already in `counts[row * columns + column]`, to
// which the block's first position of each row adds the block's count.
STRIDE_DEVICE int stride_rank_in_block(int row, int *counts, int columns,
                                       int column) {
  __shared__ int rowOf[1024];
  __shared__ int baseOf[1024];
  const int t = threadIdx.x, n = blockDim.x;
  rowOf[t] = row;
  __syncthreads();
  int before = 0, count = 0, first = t;
  if (row >= 0) {
    for (int j = 0; j < n; ++j) {
      if (rowOf[j] != row)
        continue;
      if (j < t && before++ == 0)
        first = j;
      ++count;
    }
    if (first == t)
      baseOf[t] = atomicAdd(&counts[(long long)row * columns + column], count);
  }
  __syncthreads();
  const int rank = row >= 0 ? baseOf[first] + before : 0;
  __syncthreads(); // rowOf and baseOf are the next call's
  return rank;
}

// One block: sums[0..n) the exclusive prefix sums of values[0..n), in
// order, and sums[n] their total.
STRIDE_DEVICE void stride_exclusive_scan_block(const int *values, int *scan,
                                               int n) {
  __shared__ int sums[1024];
  const int t = threadIdx.x, per = (n + blockDim.x - 1) / blockDim.x;
  const int begin = t * per < n ? t * per : n;
  const int end = begin + per < n ? begin + per : n;
  int own = 0;
  for (int i = begin; i < end; ++i)
    own += values[i];
  sums[t] = own;
  __syncthreads();
  for (int d = 1; d < (int)blockDim.x; d *= 2) {
    const int add = t >= d ? sums[t - d] : 0;
    __syncthreads();
    sums[t] += add;
    __syncthreads();
  }
  int running = sums[t] - own;
  for (int i = begin; i < end; ++i) {
    scan[i] = running;
    running += values[i];
  }
  if (t == (int)blockDim.x - 1)
    scan[n] = sums[t];
}

// A block's shared array, declared through a macro so that the CPU
// emulation (test/Emu/CudaEmulation.h) can give each block of a cluster,
// which it runs concurrently, its own. 16-byte aligned, so that groups of
// four floats read as one vector (stride_vecn<float, 4>).
#ifndef STRIDE_SHARED
#define STRIDE_SHARED(type, name, count) __shared__ __align__(16) type name[count]
#endif
// The block's dynamic shared memory (the launch's shared bytes), as bytes.
#ifndef STRIDE_DYNAMIC_SHARED
#define STRIDE_DYNAMIC_SHARED(name) extern __shared__ __align__(16) unsigned char name[]
#endif

// Copies through shared memory that hold no registers (the staged decode
// attention's key and value chunks): stride_copy_async16 starts copying
// the 16 bytes at global `src` to shared `dst`, or 16 zeros where `bytes`
// is 0 (`src` is then not read); stride_copy_async_commit closes the
// copies started since the last one into a group, and
// stride_copy_async_wait<N> waits until at most the last N groups are
// still in flight (cp.async, sm_80 and later). Elsewhere, and in
// emulation, each copy is done at once.
struct alignas(16) stride_bytes16 {
  unsigned w[4];
};
STRIDE_DEVICE void stride_copy_async16(void *dst, const void *src,
                                       unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(at),
               "l"(src), "r"(bytes)
               : "memory");
#else
  *static_cast<stride_bytes16 *>(dst) =
      bytes ? *static_cast<const stride_bytes16 *>(src) : stride_bytes16{};
#endif
}
STRIDE_DEVICE void stride_copy_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
template <int N> STRIDE_DEVICE void stride_copy_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

// Four floats at `p` (16-byte aligned) read through the L2, past the L1
// (__ldcg): what other blocks of the grid wrote before an arrival counter
// said so.
STRIDE_DEVICE stride_vecn<float, 4> stride_ldcg4(const float *p) {
#if defined(__CUDA_ARCH__)
  const float4 v = __ldcg(reinterpret_cast<const float4 *>(p));
  return {{v.x, v.y, v.z, v.w}};
#else
  return {{__ldcg(p), __ldcg(p + 1), __ldcg(p + 2), __ldcg(p + 3)}};
#endif
}

// Tensor cores (sm_80 and later; the staged decode attention's
// staged_kv_mma_attention scheme). stride_mma16816(d, a, b, T{}) adds to a
// warp's 16 x 8 f32 tile D the product of its 16 x 16 tile A and 16 x 8
// tile B of T (bf16 or f16), as PTX's mma.m16n8k16.row.col lays the
// fragments out: lane l holds, with r = l / 4 and k = 2 * (l % 4),
// a = {A(r, k..k+1), A(r+8, k..k+1), A(r, k+8..k+9), A(r+8, k+8..k+9)},
// b = {B(k..k+1, r), B(k+8..k+9, r)} and d = {D(r, k), D(r, k+1),
// D(r+8, k), D(r+8, k+1)}, two elements a register, the first in the low
// half. stride_ldmatrix_x4(f, row) loads four 8 x 8 tiles of 16-bit
// elements from shared memory, lane l giving the address of row l % 8 of
// tile l / 8: f[i] is lane l's pair of tile i at row l / 4, columns k and
// k + 1 (with _trans, rows k and k + 1 of column l / 4). stride_pack2(lo,
// hi, T{}): two floats rounded to T, as such a register. In emulation (no
// __CUDACC__) the lanes exchange fragments and row addresses
// (stride_emu::gather, CudaEmulation.h).
template <typename T> STRIDE_DEVICE unsigned stride_bits16(T x) {
  union {
    T value;
    unsigned short bits;
  } pun{x};
  return pun.bits;
}
template <typename T>
STRIDE_DEVICE unsigned stride_pack2(float lo, float hi, T) {
  T pair[2];
  stride_st(&pair[0], lo); // rounded to nearest, as every store
  stride_st(&pair[1], hi);
  return stride_bits16(pair[0]) | stride_bits16(pair[1]) << 16;
}
// PTX's ldmatrix.x4 (SHAPE: "" or ".trans") into f from `row`.
#define STRIDE_LDMATRIX_X4_ASM(SHAPE)                                          \
  asm volatile("ldmatrix.sync.aligned.m8n8.x4" SHAPE                           \
               ".shared.b16 {%0,%1,%2,%3}, [%4];"                              \
               : "=r"(f[0]), "=r"(f[1]), "=r"(f[2]), "=r"(f[3])                \
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(row)))     \
               : "memory")
template <bool Transposed, typename T>
STRIDE_DEVICE void stride_ldmatrix_x4_of(unsigned (&f)[4], const T *row) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (Transposed)
    STRIDE_LDMATRIX_X4_ASM(".trans");
  else
    STRIDE_LDMATRIX_X4_ASM("");
#elif !defined(__CUDACC__)
  // Lane l's pair of tile i: row l / 4 at columns k and k + 1, or
  // transposed, rows k and k + 1 at column l / 4 (k = 2 * (l % 4)).
  const int lane = threadIdx.x % 32, k = lane % 4 * 2;
  const auto rows = stride_emu::gather(row);
  for (int i = 0; i < 4; ++i) {
    const T *low = rows[8 * i + (Transposed ? k : lane / 4)];
    const T *high = Transposed ? rows[8 * i + k + 1] : low;
    f[i] = stride_bits16(low[Transposed ? lane / 4 : k]) |
           stride_bits16(high[Transposed ? lane / 4 : k + 1]) << 16;
  }
#endif
}
#undef STRIDE_LDMATRIX_X4_ASM
template <typename T>
STRIDE_DEVICE void stride_ldmatrix_x4(unsigned (&f)[4], const T *row) {
  stride_ldmatrix_x4_of<false>(f, row);
}
template <typename T>
STRIDE_DEVICE void stride_ldmatrix_x4_trans(unsigned (&f)[4], const T *row) {
  stride_ldmatrix_x4_of<true>(f, row);
}
#if !defined(__CUDACC__) // emulation
STRIDE_DEVICE float stride_half_of(unsigned pair, int high, __nv_bfloat16) {
  return __bfloat162float(__nv_bfloat16{uint16_t(pair >> (16 * high))});
}
STRIDE_DEVICE float stride_half_of(unsigned pair, int high, __half) {
  return __half2float(__half{uint16_t(pair >> (16 * high))});
}
template <typename T>
STRIDE_DEVICE void stride_mma16816_emulated(float (&d)[4],
                                            const unsigned (&a)[4],
                                            const unsigned (&b)[2]) {
  // Lane 4r + j holds A's rows r and r + 8 at k = 2j.. (a[0], a[1]) and
  // 8 + 2j.. (a[2], a[3]); lane 4n + j holds B's column n at the same k.
  const int lane = threadIdx.x % 32, r = lane / 4, c = lane % 4 * 2;
  std::array<unsigned, 32> as[4], bs[2];
  for (int i = 0; i < 4; ++i)
    as[i] = stride_emu::gather(a[i]);
  for (int i = 0; i < 2; ++i)
    bs[i] = stride_emu::gather(b[i]);
  for (int j = 0; j < 4; ++j)
    for (int half = 0; half < 2; ++half)
      for (int h = 0; h < 2; ++h) {
        const float x0 = stride_half_of(as[2 * half][r * 4 + j], h, T{});
        const float x1 = stride_half_of(as[2 * half + 1][r * 4 + j], h, T{});
        const float y0 = stride_half_of(bs[half][c * 4 + j], h, T{});
        const float y1 = stride_half_of(bs[half][(c + 1) * 4 + j], h, T{});
        d[0] += x0 * y0;
        d[1] += x0 * y1;
        d[2] += x1 * y0;
        d[3] += x1 * y1;
      }
}
#endif
STRIDE_DEVICE constexpr bool stride_is_bf16(__nv_bfloat16) { return true; }
STRIDE_DEVICE constexpr bool stride_is_bf16(__half) { return false; }
// PTX's mma.m16n8k16 of `TYPE` ("bf16" or "f16") on d, a and b.
#define STRIDE_MMA16816_ASM(TYPE)                                              \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." TYPE "." TYPE          \
               ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"    \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),        \
                 "r"(b[1]))
template <typename T>
STRIDE_DEVICE void stride_mma16816(float (&d)[4], const unsigned (&a)[4],
                                   const unsigned (&b)[2], T) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (stride_is_bf16(T{}))
    STRIDE_MMA16816_ASM("bf16");
  else
    STRIDE_MMA16816_ASM("f16");
#elif !defined(__CUDACC__)
  stride_mma16816_emulated<T>(d, a, b);
#endif
}
#undef STRIDE_MMA16816_ASM

// Thread-block clusters (sm_90; a row split over a cluster's blocks,
// RowReduction.cpp). stride_cluster_sync: every thread of the cluster
// arrives, its shared-memory writes released to the cluster, then waits.
// stride_cluster_read: the element at `p` (a shared array of this block) in
// the same array of the cluster's block `rank`.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
STRIDE_DEVICE void stride_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
               "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
template <typename T> STRIDE_DEVICE T stride_cluster_read(const T *p, unsigned rank) {
  const T *remote;
  asm volatile("mapa.u64 %0, %1, %2;" : "=l"(remote) : "l"(p), "r"(rank));
  return *remote;
}
#endif

// ---- End of the prelude -----------------------------------------------------
)CUDA";

} // namespace stride::cuda

#endif // STRIDE_LIB_TARGET_CUDA_PRELUDE_H
