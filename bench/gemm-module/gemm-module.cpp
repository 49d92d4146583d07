//===- gemm-module.cpp - A module of one cuBLASLt GEMM, for bench/ --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Writes the module of torch.matmul(x, w), x [M, K] and w [K, N] row-major:
// one `cublaslt.matmul` library-call step (python-free-docs/module-format.md) over the
// inputs arg0 (x) and arg1 (w), the output result0 [M, N] and a 32 MiB
// workspace. bench/prepare.sh makes the plain GEMMs of the benchmark with it
// where no bench/*.mlir graph of that name compiles to one, so that
// bench/compare.sh times the runtime's cuBLASLt call against PyTorch.
//
//   stride-gemm-module --arch sm_90 --dtype f32|bf16 M K N OUT.stridemod
//
//===----------------------------------------------------------------------===//

#include "stride/Module/Module.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace stride;

namespace {

constexpr int64_t kWorkspace = 32 << 20;

DescriptorField integer(const char *name, int64_t value) {
  return {name, {value}, ""};
}

/// Row-major C [M, N] = X [M, K] @ W [K, N] is cuBLASLt's column-major
/// D (N x M) = W' (N x K, ld N) * X' (K x M, ld K).
ModuleDesc gemmModule(const std::string &arch, const std::string &dtype,
                      int64_t m, int64_t k, int64_t n) {
  DType t = dtype == "bf16" ? DType::BF16 : DType::F32;
  int64_t bytes = int64_t(dtypeSize(t));
  ModuleDesc d;
  d.producer = "stride-gemm-module";
  d.target = {Backend::Cuda, arch};
  d.signature.entryName = "gemm";
  d.signature.inputs = {{"arg0", t, {m, k}, {k, 1}, 0},
                        {"arg1", t, {k, n}, {n, 1}, 0}};
  d.signature.outputs = {{"result0", t, {m, n}, {n, 1}, 0}};
  d.buffers = {{BufferKind::Input, 0, m * k * bytes},
               {BufferKind::Input, 1, k * n * bytes},
               {BufferKind::Output, 0, m * n * bytes},
               {BufferKind::Temp, -1, kWorkspace}};
  std::vector<DescriptorField> fields = {
      {"dtype", {}, dtype},        {"compute", {}, "32f"},
      {"epilogue", {}, "default"}, integer("m", n),
      integer("n", m),             integer("k", k),
      integer("batch", 1),         integer("transa", 0),
      integer("transb", 0),        integer("lda", n),
      integer("ldb", k),           integer("ldd", n),
      integer("stride_a", 0),      integer("stride_b", 0),
      integer("stride_d", 0),      integer("offset_a", 0),
      integer("offset_b", 0),      integer("offset_bias", 0),
      integer("offset_d", 0),      integer("workspace_bytes", kWorkspace)};
  d.steps = {LibraryCallStep{"cublaslt.matmul", {1, 0, 2, 3}, fields}};
  return d;
}

int usage() {
  std::fprintf(stderr, "usage: stride-gemm-module --arch sm_NN --dtype "
                       "f32|bf16 M K N OUT.stridemod\n");
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 9 || std::string(argv[1]) != "--arch" ||
      std::string(argv[3]) != "--dtype")
    return usage();
  std::string dtype = argv[4];
  if (dtype != "f32" && dtype != "bf16")
    return usage();
  int64_t sizes[3];
  for (int i = 0; i < 3; ++i) {
    char *end = nullptr;
    sizes[i] = std::strtoll(argv[5 + i], &end, 10);
    if (!end || *end || sizes[i] < 1)
      return usage();
  }
  Status s = writeModuleFile(
      argv[8], gemmModule(argv[2], dtype, sizes[0], sizes[1], sizes[2]));
  if (!s) {
    std::fprintf(stderr, "stride-gemm-module: %s\n", s.error().message.c_str());
    return 1;
  }
  return 0;
}
