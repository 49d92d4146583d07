#!/usr/bin/env bash
# Prints a graph of RMSNorms whose weights (and a bias) are constants of
# the module, read alike in every row, which each norm's kernel loads
# before it waits for the grid ahead (stride-schedule-kernels marks them,
# python-free-docs/cuda-backend.md, "Before the wait"):
#   a  5 x 24 f32, several rows a warp, its 24-element weight in the code
#   b  3 x 96 f32, a row a warp, its weight a buffer of the module
#   c  3 x 1024 f32, a row a block
#   d  2 x 1024 bf16, a weight and a bias
# and one whose scale differs from row to row (e, 3 x 96 f32), which
# stays where the epilogue reads it. The constants are distinct values
# (written out by awk), so that a norm reading another element of its
# weight does not match the reference interpreter.
set -euo pipefail
awk 'function values(n, seed,    s, i) {
  s = "["
  for (i = 0; i < n; i++)
    s = s (i ? ", " : "") sprintf("%.4f", 0.5 + ((i * 37 + seed) % 101) / 100.0)
  return s "]"
}
function norm(name, rows, n, type, scale,    t, r) {
  t = sprintf("!stride.tensor<%dx%d%s>", rows, n, type)
  r = sprintf("!stride.tensor<%dx1%s>", rows, type)
  printf "  %%sq%s = stride.mul %%x%s, %%x%s : %s, %s -> %s\n", name, name, name, t, t, t
  printf "  %%ms%s = stride.mean %%sq%s dims [1] keepdim : %s -> %s\n", name, name, t, r
  printf "  %%eps%s = stride.full 1.0e-05 : %s\n", name, r
  printf "  %%v%s = stride.add %%ms%s, %%eps%s : %s, %s -> %s\n", name, name, name, r, r, r
  printf "  %%rs%s = stride.rsqrt %%v%s : %s -> %s\n", name, name, r, r
  printf "  %%rb%s = stride.expand %%rs%s : %s -> !stride.tensor<%dx%d%s, strides = [1, 0]>\n", name, name, r, rows, n, type
  printf "  %%n%s = stride.mul %%x%s, %%rb%s : %s, !stride.tensor<%dx%d%s, strides = [1, 0]> -> %s\n", name, name, name, t, rows, n, type, t
  printf "  %%o%s = stride.mul %%n%s, %s : %s, %s -> %s\n", name, name, scale, t, (index(scale, "wb") ? sprintf("!stride.tensor<%dx%d%s, strides = [0, 1]>", rows, n, type) : t), t
}
function weight(name, rows, n, type, seed) {
  printf "  %%w%s = stride.constant dense<%s> : tensor<%d%s> : !stride.tensor<%d%s>\n", name, values(n, seed), n, type, n, type
  printf "  %%wb%s = stride.expand %%w%s : !stride.tensor<%d%s> -> !stride.tensor<%dx%d%s, strides = [0, 1]>\n", name, name, n, type, rows, n, type
}
BEGIN {
  printf "func.func @preloaded_norms(%%xa: !stride.tensor<5x24xf32>, %%xb: !stride.tensor<3x96xf32>,\n"
  printf "    %%xc: !stride.tensor<3x1024xf32>, %%xd: !stride.tensor<2x1024xbf16>, %%xe: !stride.tensor<3x96xf32>)\n"
  printf "    -> (!stride.tensor<5x24xf32>, !stride.tensor<3x96xf32>, !stride.tensor<3x1024xf32>, !stride.tensor<2x1024xbf16>, !stride.tensor<3x96xf32>) {\n"
  weight("a", 5, 24, "xf32", 1); norm("a", 5, 24, "xf32", "%wba")
  weight("b", 3, 96, "xf32", 2); norm("b", 3, 96, "xf32", "%wbb")
  weight("c", 3, 1024, "xf32", 3); norm("c", 3, 1024, "xf32", "%wbc")
  weight("d", 2, 1024, "xbf16", 4); norm("d", 2, 1024, "xbf16", "%wbd")
  printf "  %%bias = stride.constant dense<%s> : tensor<1024xbf16> : !stride.tensor<1024xbf16>\n", values(1024, 5)
  printf "  %%biasb = stride.expand %%bias : !stride.tensor<1024xbf16> -> !stride.tensor<2x1024xbf16, strides = [0, 1]>\n"
  printf "  %%pd = stride.add %%od, %%biasb : !stride.tensor<2x1024xbf16>, !stride.tensor<2x1024xbf16, strides = [0, 1]> -> !stride.tensor<2x1024xbf16>\n"
  printf "  %%sf = stride.constant dense<%s> : tensor<288xf32> : !stride.tensor<288xf32>\n", values(288, 6)
  printf "  %%se = stride.view %%sf : !stride.tensor<288xf32> -> !stride.tensor<3x96xf32>\n"
  norm("e", 3, 96, "xf32", "%se")
  printf "  return %%oa, %%ob, %%oc, %%pd, %%oe : !stride.tensor<5x24xf32>, !stride.tensor<3x96xf32>, !stride.tensor<3x1024xf32>, !stride.tensor<2x1024xbf16>, !stride.tensor<3x96xf32>\n}\n"
}'
