//===- FakeCublasLt.cpp - A libcublasLt.so.13 that computes on the host ---===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// For tests only: the cuBLASLt entry points the runtime binds
// (lib/Runtime/CublasLt.h), for use with the fake CUDA driver, whose device
// addresses are host addresses. cublasLtMatmul computes D = op(A) op(B)
// (+ bias, ReLU or tanh GELU) at once on the host, for f32, f64 and bf16
// (f16: CUBLAS_STATUS_NOT_SUPPORTED), in double precision. FakeCudaTest
// points STRIDE_CUBLASLT at this library. Environment variables make it
// fail:
//
//   STRIDE_FAKE_CUBLASLT_CREATE=S     cublasLtCreate returns status S
//   STRIDE_FAKE_CUBLASLT_NO_ALGO=1    the heuristic finds no algorithm
//   STRIDE_FAKE_CUBLASLT_MATMUL=S     cublasLtMatmul returns status S
//
// and stride_fake_cublaslt_counts() reports what it was asked ("handles=1
// layouts=3 heuristics=2 matmuls=3": live handles and matrix layouts,
// heuristic queries, matmuls).
// Built twice: with STRIDE_FAKE_CUBLASLT_WITHOUT_MATMUL it lacks
// cublasLtMatmul, as a library of another version might.
//
//===----------------------------------------------------------------------===//

#include <cublasLt.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#define FAKE_API extern "C" __attribute__((visibility("default")))

namespace {

std::atomic<int> liveHandles{0}, liveLayouts{0}, heuristics{0}, matmuls{0};

cublasStatus_t statusFromEnv(const char *name) {
  const char *value = std::getenv(name);
  return value ? cublasStatus_t(std::atoi(value)) : CUBLAS_STATUS_SUCCESS;
}

struct FakeLayout {
  cudaDataType_t type;
  uint64_t rows, cols;
  int64_t ld;
  int32_t batch = 1;
  int64_t stride = 0;
};

struct FakeDesc {
  cublasComputeType_t compute;
  int32_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N;
  uint32_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void *bias = nullptr;
};

constexpr uint64_t kAlgorithmTag = 0x57121de;

template <typename T> void setFrom(T &field, const void *buf, size_t size) {
  if (size == sizeof(T))
    std::memcpy(&field, buf, size);
}

double load(cudaDataType_t type, const void *base, int64_t index) {
  switch (type) {
  case CUDA_R_32F: return static_cast<const float *>(base)[index];
  case CUDA_R_64F: return static_cast<const double *>(base)[index];
  default: {
    uint32_t bits = uint32_t(static_cast<const uint16_t *>(base)[index]) << 16;
    float value;
    std::memcpy(&value, &bits, 4);
    return value;
  }
  }
}

void store(cudaDataType_t type, void *base, int64_t index, double value) {
  switch (type) {
  case CUDA_R_32F: static_cast<float *>(base)[index] = float(value); return;
  case CUDA_R_64F: static_cast<double *>(base)[index] = value; return;
  default: {
    float f = float(value);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits += 0x7fff + ((bits >> 16) & 1); // round to nearest even
    static_cast<uint16_t *>(base)[index] = uint16_t(bits >> 16);
  }
  }
}

/// Element (row, col) of batch `b` of op(X), X stored as `layout`.
double element(const FakeLayout &layout, const void *x, bool transposed,
               int64_t b, int64_t row, int64_t col) {
  if (transposed)
    std::swap(row, col);
  return load(layout.type, x, b * layout.stride + col * layout.ld + row);
}

double applyEpilogue(uint32_t epilogue, double v) {
  if (epilogue & CUBLASLT_EPILOGUE_RELU)
    return v > 0 ? v : 0;
  if (epilogue & CUBLASLT_EPILOGUE_GELU)
    return 0.5 * v *
           (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
  return v;
}

} // namespace

FAKE_API cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle) {
  if (cublasStatus_t s = statusFromEnv("STRIDE_FAKE_CUBLASLT_CREATE"))
    return s;
  *handle = reinterpret_cast<cublasLtHandle_t>(new int(0));
  ++liveHandles;
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_API cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  delete reinterpret_cast<int *>(handle);
  --liveHandles;
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_API const char *cublasLtGetStatusName(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
  default: return "CUBLAS_STATUS_INTERNAL_ERROR";
  }
}

FAKE_API cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc,
                                                 cublasComputeType_t compute,
                                                 cudaDataType_t) {
  *desc = reinterpret_cast<cublasLtMatmulDesc_t>(new FakeDesc{compute});
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_API cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  delete reinterpret_cast<FakeDesc *>(desc);
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_API cublasStatus_t
cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                               cublasLtMatmulDescAttributes_t attr,
                               const void *buf, size_t size) {
  auto *d = reinterpret_cast<FakeDesc *>(desc);
  switch (attr) {
  case CUBLASLT_MATMUL_DESC_TRANSA: setFrom(d->transa, buf, size); break;
  case CUBLASLT_MATMUL_DESC_TRANSB: setFrom(d->transb, buf, size); break;
  case CUBLASLT_MATMUL_DESC_EPILOGUE: setFrom(d->epilogue, buf, size); break;
  case CUBLASLT_MATMUL_DESC_BIAS_POINTER: setFrom(d->bias, buf, size); break;
  default: return CUBLAS_STATUS_INVALID_VALUE;
  }
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_API cublasStatus_t cublasLtMatrixLayoutCreate(
    cublasLtMatrixLayout_t *layout, cudaDataType type, uint64_t rows,
    uint64_t cols, int64_t ld) {
  *layout = reinterpret_cast<cublasLtMatrixLayout_t>(
      new FakeLayout{type, rows, cols, ld});
  ++liveLayouts;
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_API cublasStatus_t
cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  delete reinterpret_cast<FakeLayout *>(layout);
  --liveLayouts;
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_API cublasStatus_t
cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout,
                                 cublasLtMatrixLayoutAttribute_t attr,
                                 const void *buf, size_t size) {
  auto *l = reinterpret_cast<FakeLayout *>(layout);
  if (attr == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT)
    setFrom(l->batch, buf, size);
  else if (attr == CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET)
    setFrom(l->stride, buf, size);
  else
    return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_API cublasStatus_t
cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref) {
  *pref = reinterpret_cast<cublasLtMatmulPreference_t>(new int(0));
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_API cublasStatus_t
cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  delete reinterpret_cast<int *>(pref);
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_API cublasStatus_t cublasLtMatmulPreferenceSetAttribute(
    cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t,
    const void *, size_t) {
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_API cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
    cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
    cublasLtMatmulPreference_t, int requested,
    cublasLtMatmulHeuristicResult_t results[], int *found) {
  ++heuristics;
  *found = 0;
  if (std::getenv("STRIDE_FAKE_CUBLASLT_NO_ALGO"))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (requested < 1)
    return CUBLAS_STATUS_INVALID_VALUE;
  results[0] = {};
  results[0].algo.data[0] = kAlgorithmTag;
  *found = 1;
  return CUBLAS_STATUS_SUCCESS;
}

#ifndef STRIDE_FAKE_CUBLASLT_WITHOUT_MATMUL
FAKE_API cublasStatus_t
cublasLtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t computeDesc,
               const void *alpha, const void *a, cublasLtMatrixLayout_t aDesc,
               const void *b, cublasLtMatrixLayout_t bDesc, const void *beta,
               const void *c, cublasLtMatrixLayout_t cDesc, void *d,
               cublasLtMatrixLayout_t dDesc, const cublasLtMatmulAlgo_t *algo,
               void *, size_t, cudaStream_t) {
  ++matmuls;
  if (cublasStatus_t s = statusFromEnv("STRIDE_FAKE_CUBLASLT_MATMUL"))
    return s;
  const auto &desc = *reinterpret_cast<FakeDesc *>(computeDesc);
  const auto &la = *reinterpret_cast<FakeLayout *>(aDesc);
  const auto &lb = *reinterpret_cast<FakeLayout *>(bDesc);
  const auto &ld = *reinterpret_cast<FakeLayout *>(dDesc);
  if (!algo || algo->data[0] != kAlgorithmTag || la.type == CUDA_R_16F)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  bool f64 = desc.compute == CUBLAS_COMPUTE_64F;
  double scale = f64 ? *static_cast<const double *>(alpha)
                     : *static_cast<const float *>(alpha);
  double keep = f64 ? *static_cast<const double *>(beta)
                    : *static_cast<const float *>(beta);
  // Stride calls with alpha 1 and beta 0, or 1 where C is an addend.
  if (scale != 1 || (keep != 0 && keep != 1))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  const auto &lc = *reinterpret_cast<FakeLayout *>(cDesc);
  bool ta = desc.transa == CUBLAS_OP_T, tb = desc.transb == CUBLAS_OP_T;
  int64_t k = int64_t(ta ? la.rows : la.cols);
  for (int64_t batch = 0; batch < ld.batch; ++batch)
    for (int64_t j = 0; j < int64_t(ld.cols); ++j)
      for (int64_t i = 0; i < int64_t(ld.rows); ++i) {
        double sum = 0;
        for (int64_t l = 0; l < k; ++l)
          sum += element(la, a, ta, batch, i, l) *
                 element(lb, b, tb, batch, l, j);
        if (keep == 1)
          sum += load(lc.type, c, batch * lc.stride + j * lc.ld + i);
        if (desc.epilogue & CUBLASLT_EPILOGUE_BIAS)
          sum += load(ld.type, desc.bias, i);
        store(ld.type, d, batch * ld.stride + j * ld.ld + i,
              applyEpilogue(desc.epilogue, sum));
      }
  return CUBLAS_STATUS_SUCCESS;
}
#endif

FAKE_API const char *stride_fake_cublaslt_counts() {
  static thread_local std::string text;
  text = "handles=" + std::to_string(liveHandles) +
         " layouts=" + std::to_string(liveLayouts) +
         " heuristics=" + std::to_string(heuristics) +
         " matmuls=" + std::to_string(matmuls);
  return text.c_str();
}
