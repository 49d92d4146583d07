#!/usr/bin/env python3
"""Variants of the default-mode index_add kernel for harness.cu (bench/NOTES.md
section 16, "Launch by launch, variants side by side"). Reads the kernel that
stridec emitted for bench/scatter/index_add_f32.mlir at commit 06ae130
(`stridec --emit=cuda bench/scatter/index_add_f32.mlir > f32.cu`) and writes
v/base.cu, v/match.cu (phase 1 ranks a warp's lanes of one row with
__match_any_sync, one atomic per row and warp) and v/match_il.cu (also a
unit's two float4 groups in the two halves of the row, not side by side),
each with a host launcher NAME_launch. Build (sm_90):

  python3 make-variants.py f32.cu
  for v in base match match_il; do nvcc -arch=sm_90 -O3 -c v/$v.cu -o v/$v.o; done
  nvcc -arch=sm_90 -O3 harness.cu v/*.o -o harness
"""
import os
import sys

src = open(sys.argv[1]).read()
src = src.replace("\n__device__ __noinline__ void stride_fail", "\nstatic __device__ __noinline__ void stride_fail")
os.makedirs("v", exist_ok=True)


def phase2(s):
    i, j = s.index("} else if (phase == 2) {"), s.index("} else if (phase == 3) {")
    return i, j


def variant(name, match=False, interleave=False):
    s = src.replace("full_index_add(", name + "(")
    if match:
        old = "const int rank = stride_rank_in_block(row4, scratch0, 1, 0);"
        new = """int rank;
        {
          const unsigned peers = __match_any_sync(0xffffffffu, row4);
          const int lane = threadIdx.x & 31, leader = __ffs(peers) - 1;
          int base = 0;
          if (row4 >= 0 && lane == leader) base = atomicAdd(&scratch0[row4], __popc(peers));
          base = __shfl_sync(0xffffffffu, base, leader);
          rank = base + __popc(peers & ((1u << lane) - 1u));
        }"""
        assert old in s
        s = s.replace(old, new)
    if interleave:
        i, j = phase2(s)
        p = s[i:j].replace("const idx_t linear8 = unit7 * 8;", "const idx_t linear8 = unit7 * 4;")
        p = p.replace("const idx_t i13 = i9 + 4;", "const idx_t i13 = i9 + 384;")
        s = s[:i] + p + s[j:]
    s += """
#include <cuda_runtime.h>
void %s_launch(int phase, unsigned grid, unsigned bx, unsigned by, const long long *in0, const float *in1, float *out0, int **s, cudaStream_t st) {
  %s<<<grid, dim3(bx, by), 0, st>>>(in0, in1, out0, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], phase);
}
""" % (name, name)
    open("v/%s.cu" % name, "w").write(s)


variant("base")
variant("match", match=True)
variant("match_il", match=True, interleave=True)
