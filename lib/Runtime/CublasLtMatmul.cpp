//===- CublasLtMatmul.cpp - The `cublaslt.matmul` library routine ---------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The compiler decides everything about a matrix product; this routine only
// forwards it to cuBLASLt. When the executable loads, each step's
// descriptor (python-free-docs/module-format.md, "cublaslt.matmul") is checked against
// its buffers, its layouts are built, and an algorithm is chosen by
// cublasLtMatmulAlgoGetHeuristic, once per distinct problem of the
// executable. Each invocation has one cuBLASLt handle and, per step, a
// matmul descriptor of its own (it holds the bias address); a run calls
// cublasLtMatmul on the invocation's stream, so the call is captured into
// the invocation's CUDA graph like a kernel. With
// InvocationOptions::tuneLibraryCalls, an invocation's first run times the
// heuristic's first candidates on its own buffers and keeps the fastest,
// for every later run of any invocation of the executable at that problem.
//
// Over symbolic sizes (a descriptor with size expressions, format version
// 8) the load builds the problem at the symbols' largest values, which the
// buffers are sized for; each shape an invocation binds (bindShape) takes
// the problem at its values, whose layouts and heuristic algorithm are
// built once per distinct problem and kept for the last kMatmulShapes
// problems of the step, least recently used evicted
// (python-free-docs/symbolic-sizes.md, "Library calls over symbolic
// sizes"). Tuning times the problem of the shape the invocation first ran;
// the other shapes take the heuristic's first algorithm.
//
//===----------------------------------------------------------------------===//

#include "CublasLt.h"
#include "DescriptorReader.h"
#include "LibraryTiming.h"
#include "RuntimeImpl.h"

#include <limits>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <type_traits>

namespace stride {

namespace {

//--- The descriptor ----------------------------------------------------===//

struct DTypeEntry {
  const char *name;
  cudaDataType_t type;
  int64_t bytes;
};
constexpr DTypeEntry kDTypes[] = {{"f32", CUDA_R_32F, 4},
                                  {"f16", CUDA_R_16F, 2},
                                  {"bf16", CUDA_R_16BF, 2},
                                  {"f64", CUDA_R_64F, 8}};

struct ComputeEntry {
  const char *name;
  cublasComputeType_t type;
  cudaDataType_t scale;
  /// The dtypes it computes, separated by spaces.
  const char *dtypes;
};
constexpr ComputeEntry kComputes[] = {
    {"32f", CUBLAS_COMPUTE_32F, CUDA_R_32F, "f32 f16 bf16"},
    {"32f_fast_tf32", CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, "f32"},
    {"64f", CUBLAS_COMPUTE_64F, CUDA_R_64F, "f64"}};

struct EpilogueEntry {
  const char *name;
  cublasLtEpilogue_t epilogue;
  bool bias;
};
constexpr EpilogueEntry kEpilogues[] = {
    {"default", CUBLASLT_EPILOGUE_DEFAULT, false},
    {"relu", CUBLASLT_EPILOGUE_RELU, false},
    {"bias", CUBLASLT_EPILOGUE_BIAS, true},
    {"relu_bias", CUBLASLT_EPILOGUE_RELU_BIAS, true},
    {"gelu", CUBLASLT_EPILOGUE_GELU, false},
    {"gelu_bias", CUBLASLT_EPILOGUE_GELU_BIAS, true}};

/// The descriptor's fields: text, then integers.
const std::vector<std::string> kFields = {
    "dtype",    "compute",  "epilogue", "m",        "n",
    "k",        "batch",    "transa",   "transb",   "lda",
    "ldb",      "ldd",      "stride_a", "stride_b", "stride_d",
    "offset_a", "offset_b", "offset_bias", "offset_c", "offset_d",
    "workspace_bytes"};

/// A stored matrix operand of cuBLASLt (column-major): `rows` x `cols`
/// with leading dimension `ld`, `batch` of them `stride` elements apart,
/// from element `offset` of its buffer.
struct Operand {
  const char *name;
  int64_t rows, cols, ld, batch, stride, offset;
};

/// A `cublaslt.matmul` descriptor, read and checked.
struct MatmulProblem {
  const DTypeEntry *dtype = nullptr;
  const ComputeEntry *compute = nullptr;
  const EpilogueEntry *epilogue = nullptr;
  int64_t m = 0, n = 0, k = 0, batch = 0, transa = 0, transb = 0;
  int64_t lda = 0, ldb = 0, ldd = 0, strideA = 0, strideB = 0, strideD = 0;
  int64_t offsetA = 0, offsetB = 0, offsetBias = 0, offsetC = 0, offsetD = 0;
  int64_t workspaceBytes = 0;
  /// Whether C, an addend read with D's layout from `offset_c`, is added
  /// to the product (beta 1) before the bias and the activation; the
  /// descriptor has `offset_c` exactly then. Without one, C is D (beta 0:
  /// not read), and offsetC is offsetD.
  bool addend = false;

  // The step's buffers: A, B, bias (only with a bias epilogue), C (only
  // with an addend), D, workspace.
  size_t numBuffers() const { return 4 + epilogue->bias + addend; }
  size_t biasBuffer() const { return 2; }
  size_t cBuffer() const { return 2 + epilogue->bias; }
  size_t dBuffer() const { return 2 + epilogue->bias + addend; }
  size_t workspaceBuffer() const { return numBuffers() - 1; }

  Operand a() const {
    return transa ? Operand{"A", k, m, lda, batch, strideA, offsetA}
                  : Operand{"A", m, k, lda, batch, strideA, offsetA};
  }
  Operand b() const {
    return transb ? Operand{"B", n, k, ldb, batch, strideB, offsetB}
                  : Operand{"B", k, n, ldb, batch, strideB, offsetB};
  }
  Operand c() const { return {"C", m, n, ldd, batch, strideD, offsetC}; }
  Operand d() const { return {"D", m, n, ldd, batch, strideD, offsetD}; }
  Operand bias() const { return {"the bias", m, 1, m, 1, 0, offsetBias}; }

  /// The largest power of two up to 256 that divides the byte offset of an
  /// operand: the alignment its address has in a 256-byte aligned buffer.
  uint32_t alignment(int64_t offset) const {
    uint64_t bytes = uint64_t(offset) * uint64_t(dtype->bytes);
    if (bytes == 0)
      return 256;
    return uint32_t(std::min<uint64_t>(256, bytes & (~bytes + 1)));
  }

  /// What the algorithm depends on: the problem without its offsets, and
  /// the alignments they give.
  std::vector<int64_t> algorithmKey() const {
    return {int64_t(dtype->type), int64_t(compute->type),
            int64_t(epilogue->epilogue), m, n, k, batch, transa, transb, lda,
            ldb, ldd, strideA, strideB, strideD, workspaceBytes,
            alignment(offsetA), alignment(offsetB), alignment(offsetD),
            addend, alignment(offsetC)};
  }

  /// "f32 (compute 32f), epilogue 'gelu_bias', m=768 n=8192 k=3072
  /// batch=1, transa=0 transb=0, lda=768 ldb=3072 ldd=768, ...".
  std::string describe() const {
    return std::string(dtype->name) + " (compute " + compute->name +
           "), epilogue " + quoted(epilogue->name) +
           (addend ? ", C added (alignment " + str(alignment(offsetC)) +
                         " bytes)"
                   : std::string()) +
           ", m=" + str(m) +
           " n=" + str(n) + " k=" + str(k) + " batch=" + str(batch) +
           ", transa=" + str(transa) + " transb=" + str(transb) +
           ", lda=" + str(lda) + " ldb=" + str(ldb) + " ldd=" + str(ldd) +
           ", alignment of A, B, D " + str(alignment(offsetA)) + ", " +
           str(alignment(offsetB)) + ", " + str(alignment(offsetD)) +
           " bytes, workspace " + str(workspaceBytes) + " bytes";
  }
};

void readFields(DescriptorReader &r, MatmulProblem &p) {
  p.dtype = r.choice("dtype", kDTypes);
  p.compute = r.choice("compute", kComputes);
  p.epilogue = r.choice("epilogue", kEpilogues);
  p.m = r.integer("m");
  p.n = r.integer("n");
  p.k = r.integer("k");
  p.batch = r.integer("batch");
  p.transa = r.integer("transa");
  p.transb = r.integer("transb");
  p.lda = r.integer("lda");
  p.ldb = r.integer("ldb");
  p.ldd = r.integer("ldd");
  p.strideA = r.integer("stride_a");
  p.strideB = r.integer("stride_b");
  p.strideD = r.integer("stride_d");
  p.offsetA = r.integer("offset_a");
  p.offsetB = r.integer("offset_b");
  p.offsetBias = r.integer("offset_bias");
  p.offsetD = r.integer("offset_d");
  p.addend = r.has("offset_c");
  p.offsetC = p.addend ? r.integer("offset_c") : p.offsetD;
  p.workspaceBytes = r.integer("workspace_bytes");
  r.refuseUnknownFields();
}

/// Whether the dtype, compute type and epilogue go together.
void checkCombination(DescriptorReader &r, const MatmulProblem &p) {
  std::string dtypes = std::string(" ") + p.compute->dtypes + " ";
  if (dtypes.find(std::string(" ") + p.dtype->name + " ") == std::string::npos)
    r.fail("has compute " + quoted(p.compute->name) + " for dtype " +
           quoted(p.dtype->name) + "; compute " + quoted(p.compute->name) +
           " takes " + p.compute->dtypes);
  if (p.dtype->type == CUDA_R_64F &&
      p.epilogue->epilogue != CUBLASLT_EPILOGUE_DEFAULT)
    r.fail("has epilogue " + quoted(p.epilogue->name) +
           " for dtype 'f64', which takes only 'default'");
}

/// Each integer within its range.
void checkRanges(DescriptorReader &r, const MatmulProblem &p) {
  auto atLeast = [&](const char *name, int64_t value, int64_t least) {
    if (value < least)
      r.fail("field " + quoted(name) + " is " + str(value) +
             "; it must be at least " + str(least));
  };
  for (auto [name, value] : {std::pair{"m", p.m}, {"n", p.n}, {"k", p.k},
                             {"batch", p.batch}})
    atLeast(name, value, 1);
  for (auto [name, value] :
       {std::pair{"stride_a", p.strideA}, {"stride_b", p.strideB},
        {"stride_d", p.strideD}, {"offset_a", p.offsetA},
        {"offset_b", p.offsetB}, {"offset_bias", p.offsetBias},
        {"offset_d", p.offsetD}, {"offset_c", p.offsetC},
        {"workspace_bytes", p.workspaceBytes}})
    atLeast(name, value, 0);
  for (auto [name, value] : {std::pair{"transa", p.transa}, {"transb", p.transb}})
    if (value != 0 && value != 1)
      r.fail("field " + quoted(name) + " is " + str(value) +
             "; it must be 0 (N) or 1 (T)");
  if (p.batch > INT32_MAX)
    r.fail("field 'batch' is " + str(p.batch) + "; cuBLASLt takes at most " +
           str(INT32_MAX));
}

/// The bytes from the start of an operand's buffer through its last
/// element, or nullopt if that overflows.
std::optional<int64_t> reachBytes(const Operand &o, int64_t elementBytes) {
  int64_t batches = 0, columns = 0, elements = 0, bytes = 0;
  if (__builtin_mul_overflow(o.batch - 1, o.stride, &batches) ||
      __builtin_mul_overflow(o.cols - 1, o.ld, &columns) ||
      __builtin_add_overflow(batches, columns, &elements) ||
      __builtin_add_overflow(elements, o.rows, &elements) ||
      __builtin_add_overflow(elements, o.offset, &elements) ||
      __builtin_mul_overflow(elements, elementBytes, &bytes))
    return std::nullopt;
  return bytes;
}

/// An operand's leading dimension and its extent in its buffer.
void checkOperand(DescriptorReader &r, const Operand &o, int64_t elementBytes,
                  int64_t bufferBytes) {
  if (o.ld < o.rows) {
    r.fail("gives " + std::string(o.name) + " (" + str(o.rows) + " x " +
           str(o.cols) + ", column-major) a leading dimension of " +
           str(o.ld) + "; it must be at least " + str(o.rows));
    return;
  }
  std::optional<int64_t> reach = reachBytes(o, elementBytes);
  if (!reach)
    r.fail("gives " + std::string(o.name) +
           " sizes, strides and offset whose extent overflows 64-bit "
           "integers");
  else if (*reach > bufferBytes)
    r.fail("reaches byte " + str(*reach) + " of the buffer of " + o.name +
           ", which has " + str(bufferBytes) + " bytes");
}

/// The descriptor against the step's buffers.
void checkBuffers(DescriptorReader &r, const MatmulProblem &p,
                  const std::vector<int64_t> &bufferBytes) {
  if (bufferBytes.size() != p.numBuffers()) {
    r.fail("with epilogue " + quoted(p.epilogue->name) +
           (p.addend ? " and an addend" : "") + " takes " +
           str(p.numBuffers()) + " buffers (A, B, " +
           (p.epilogue->bias ? "bias, " : "") + (p.addend ? "C, " : "") +
           "D, workspace), but the step has " + str(bufferBytes.size()));
    return;
  }
  int64_t bytes = p.dtype->bytes;
  checkOperand(r, p.a(), bytes, bufferBytes[0]);
  checkOperand(r, p.b(), bytes, bufferBytes[1]);
  checkOperand(r, p.d(), bytes, bufferBytes[p.dBuffer()]);
  if (p.epilogue->bias)
    checkOperand(r, p.bias(), bytes, bufferBytes[p.biasBuffer()]);
  if (p.addend)
    checkOperand(r, p.c(), bytes, bufferBytes[p.cBuffer()]);
  if (p.batch > 1 && p.strideD / p.n < p.ldd)
    r.fail("gives D a batch stride of " + str(p.strideD) +
           ", less than ldd * n = " + str(p.ldd) + " * " + str(p.n) +
           ": its batches would overlap");
  if (bufferBytes[p.workspaceBuffer()] < p.workspaceBytes)
    r.fail("asks for " + str(p.workspaceBytes) +
           " bytes of workspace, but the workspace buffer has " +
           str(bufferBytes[p.workspaceBuffer()]));
}

Result<MatmulProblem> readProblem(const LibraryCallContext &context) {
  DescriptorReader r(context, kFields);
  MatmulProblem p;
  readFields(r, p);
  if (!r.firstError()) {
    checkCombination(r, p);
    checkRanges(r, p);
  }
  if (!r.firstError())
    checkBuffers(r, p, context.bufferBytes);
  if (r.firstError())
    return *r.firstError();
  return p;
}

//--- cuBLASLt objects ----------------------------------------------------===//

template <typename Handle, typename Destroy>
using LtObject = std::unique_ptr<std::remove_pointer_t<Handle>, Destroy>;
using LtHandle = LtObject<cublasLtHandle_t, decltype(&::cublasLtDestroy)>;
using LtLayout = LtObject<cublasLtMatrixLayout_t,
                          decltype(&::cublasLtMatrixLayoutDestroy)>;
using LtMatmulDesc =
    LtObject<cublasLtMatmulDesc_t, decltype(&::cublasLtMatmulDescDestroy)>;
using LtPreference = LtObject<cublasLtMatmulPreference_t,
                              decltype(&::cublasLtMatmulPreferenceDestroy)>;

/// The failure of a cuBLASLt call as an Error (the caller names the step).
Error ltError(const CublasLt &lt, const char *function, cublasStatus_t s) {
  return makeError(cublasErrorCode(s), lt.failure(function, s));
}

Result<LtHandle> createHandle(const CublasLt &lt) {
  cublasLtHandle_t handle = nullptr;
  if (cublasStatus_t s = lt.cublasLtCreate(&handle))
    return ltError(lt, "cublasLtCreate", s);
  return LtHandle(handle, lt.cublasLtDestroy);
}

/// Sets attributes of a cuBLASLt object, keeping the first failure.
template <typename Object, typename Attribute>
class AttributeSetter {
public:
  using SetFn = cublasStatus_t (*)(Object, Attribute, const void *, size_t);
  AttributeSetter(const CublasLt &lt, Object object, SetFn set,
                  const char *function)
      : lt(lt), object(object), set(set), function(function) {}

  template <typename T> AttributeSetter &operator()(Attribute a, T value) {
    if (status == CUBLAS_STATUS_SUCCESS)
      status = set(object, a, &value, sizeof(value));
    return *this;
  }

  Status done() const {
    if (status == CUBLAS_STATUS_SUCCESS)
      return Status::ok();
    return ltError(lt, function, status);
  }

private:
  const CublasLt &lt;
  Object object;
  SetFn set;
  const char *function;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
};
template <typename Object, typename Attribute>
AttributeSetter(const CublasLt &, Object,
                cublasStatus_t (*)(Object, Attribute, const void *, size_t),
                const char *) -> AttributeSetter<Object, Attribute>;

Result<LtLayout> createLayout(const CublasLt &lt, cudaDataType_t type,
                              const Operand &o) {
  cublasLtMatrixLayout_t layout = nullptr;
  if (cublasStatus_t s = lt.cublasLtMatrixLayoutCreate(
          &layout, type, uint64_t(o.rows), uint64_t(o.cols), o.ld))
    return ltError(lt, "cublasLtMatrixLayoutCreate", s);
  LtLayout owned(layout, lt.cublasLtMatrixLayoutDestroy);
  if (o.batch > 1) {
    AttributeSetter set(lt, layout, lt.cublasLtMatrixLayoutSetAttribute,
                        "cublasLtMatrixLayoutSetAttribute");
    set(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, int32_t(o.batch))(
        CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, int64_t(o.stride));
    if (Status s = set.done(); !s)
      return s.error();
  }
  return owned;
}

Result<LtMatmulDesc> createMatmulDesc(const CublasLt &lt,
                                      const MatmulProblem &p) {
  cublasLtMatmulDesc_t desc = nullptr;
  if (cublasStatus_t s = lt.cublasLtMatmulDescCreate(&desc, p.compute->type,
                                                     p.compute->scale))
    return ltError(lt, "cublasLtMatmulDescCreate", s);
  LtMatmulDesc owned(desc, lt.cublasLtMatmulDescDestroy);
  AttributeSetter set(lt, desc, lt.cublasLtMatmulDescSetAttribute,
                      "cublasLtMatmulDescSetAttribute");
  set(CUBLASLT_MATMUL_DESC_TRANSA,
      int32_t(p.transa ? CUBLAS_OP_T : CUBLAS_OP_N))(
      CUBLASLT_MATMUL_DESC_TRANSB,
      int32_t(p.transb ? CUBLAS_OP_T : CUBLAS_OP_N))(
      CUBLASLT_MATMUL_DESC_EPILOGUE, uint32_t(p.epilogue->epilogue));
  if (Status s = set.done(); !s)
    return s.error();
  return owned;
}

using AlgorithmKey = std::vector<int64_t>;

/// The algorithms that tuning chose, by problem: shared by an executable's
/// steps and by its invocations, which run on threads of their own.
class TunedAlgorithms {
public:
  std::optional<cublasLtMatmulAlgo_t> find(const AlgorithmKey &key) const {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = chosen.find(key);
    if (it == chosen.end())
      return std::nullopt;
    return it->second;
  }
  void store(const AlgorithmKey &key, const cublasLtMatmulAlgo_t &algorithm) {
    std::lock_guard<std::mutex> lock(mutex);
    chosen.emplace(key, algorithm);
  }

private:
  mutable std::mutex mutex;
  std::map<AlgorithmKey, cublasLtMatmulAlgo_t> chosen;
};

struct ProblemPlan;

/// What an executable's load keeps for cuBLASLt: a handle for the
/// heuristic, the plan of each distinct problem, and the algorithms that
/// tuning chose.
struct LoadSession {
  explicit LoadSession(LtHandle handle) : handle(std::move(handle)) {}
  LtHandle handle;
  std::map<AlgorithmKey, std::shared_ptr<const ProblemPlan>> plans;
  std::shared_ptr<TunedAlgorithms> tuned = std::make_shared<TunedAlgorithms>();
};

/// What an invocation keeps for cuBLASLt: its handle.
struct InvocationSession {
  explicit InvocationSession(LtHandle handle) : handle(std::move(handle)) {}
  LtHandle handle;
};

/// The session of library `lt` in `sessions`, created on first use.
template <typename Session>
Result<std::shared_ptr<Session>> session(const CublasLt &lt,
                                         LibrarySessions &sessions) {
  if (std::shared_ptr<void> found = sessions.find(&lt))
    return std::static_pointer_cast<Session>(found);
  Result<LtHandle> handle = createHandle(lt);
  if (!handle)
    return handle.error();
  auto created = std::make_shared<Session>(std::move(*handle));
  sessions.add(&lt, created);
  return created;
}

//--- The step ------------------------------------------------------------===//

/// The layouts of a problem's A, B and D (also its C, which is read with
/// D's layout where it is added, and not read where beta is 0).
struct MatmulLayouts {
  LtLayout a, b, d;
};

Result<MatmulLayouts> createLayouts(const CublasLt &lt,
                                    const MatmulProblem &p) {
  Result<LtLayout> a = createLayout(lt, p.dtype->type, p.a());
  if (!a)
    return a.error();
  Result<LtLayout> b = createLayout(lt, p.dtype->type, p.b());
  if (!b)
    return b.error();
  Result<LtLayout> d = createLayout(lt, p.dtype->type, p.d());
  if (!d)
    return d.error();
  return MatmulLayouts{std::move(*a), std::move(*b), std::move(*d)};
}

/// The heuristic's first `count` candidates for the problem, best first
/// (at least one): Incompatible, naming the problem, if it has none.
Result<std::vector<cublasLtMatmulHeuristicResult_t>>
heuristicCandidates(const CublasLt &lt, cublasLtHandle_t handle,
                    const MatmulProblem &p, cublasLtMatmulDesc_t desc,
                    const MatmulLayouts &layouts, int count) {
  cublasLtMatmulPreference_t preference = nullptr;
  if (cublasStatus_t s = lt.cublasLtMatmulPreferenceCreate(&preference))
    return ltError(lt, "cublasLtMatmulPreferenceCreate", s);
  LtPreference owned(preference, lt.cublasLtMatmulPreferenceDestroy);
  AttributeSetter set(lt, preference, lt.cublasLtMatmulPreferenceSetAttribute,
                      "cublasLtMatmulPreferenceSetAttribute");
  set(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, uint64_t(p.workspaceBytes))(
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, p.alignment(p.offsetA))(
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, p.alignment(p.offsetB))(
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, p.alignment(p.offsetC))(
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, p.alignment(p.offsetD));
  if (Status s = set.done(); !s)
    return s.error();
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<size_t>(count));
  int found = 0;
  cublasStatus_t s = lt.cublasLtMatmulAlgoGetHeuristic(
      handle, desc, layouts.a.get(), layouts.b.get(), layouts.d.get(),
      layouts.d.get(), preference, count, results.data(), &found);
  if ((s == CUBLAS_STATUS_SUCCESS && found == 0) ||
      s == CUBLAS_STATUS_NOT_SUPPORTED)
    return makeError(ErrorCode::Incompatible,
                     "cuBLASLt (" + lt.path + ") has no algorithm for " +
                         p.describe() + " on this device");
  if (s != CUBLAS_STATUS_SUCCESS)
    return ltError(lt, "cublasLtMatmulAlgoGetHeuristic", s);
  results.resize(size_t(found));
  return results;
}

/// Where a step's operands start in its buffers, in elements. A step's own,
/// never read from a ProblemPlan: steps whose problems differ only in their
/// offsets (the chunks of rows of stride-chunk-collectives, products over
/// slices of one buffer) share one plan, planned for the first of them.
struct OperandOffsets {
  int64_t a = 0, b = 0, bias = 0, c = 0, d = 0;

  static OperandOffsets of(const MatmulProblem &p) {
    return {p.offsetA, p.offsetB, p.offsetBias, p.offsetC, p.offsetD};
  }
};

/// One problem of a step, ready to call: its layouts and the heuristic's
/// best algorithm. Shared by the steps of one algorithm key, which leaves
/// the offsets out: `p`'s offsets are the first such step's.
struct ProblemPlan {
  MatmulProblem p;
  AlgorithmKey key;
  MatmulLayouts layouts;
  cublasLtMatmulAlgo_t algorithm;
};

/// The plan of `p`: its layouts and the heuristic's best algorithm, asked
/// with `handle` and `desc`; Incompatible, naming the problem, if it has
/// none.
Result<std::shared_ptr<const ProblemPlan>>
planProblem(const CublasLt &lt, cublasLtHandle_t handle, const MatmulProblem &p,
            cublasLtMatmulDesc_t desc) {
  Result<MatmulLayouts> layouts = createLayouts(lt, p);
  if (!layouts)
    return layouts.error();
  Result<std::vector<cublasLtMatmulHeuristicResult_t>> found =
      heuristicCandidates(lt, handle, p, desc, *layouts, 1);
  if (!found)
    return found.error();
  return std::make_shared<const ProblemPlan>(ProblemPlan{
      p, p.algorithmKey(), std::move(*layouts), found->front().algo});
}

/// Problems a step over symbolic sizes keeps planned, beside the one at
/// the symbols' largest values: as many as an invocation keeps captured
/// graphs of other shapes (kShapeGraphs, ShapeGraphs.h).
constexpr size_t kMatmulShapes = 8;

/// The plans of a step's recent problems, most recently used first, the
/// least recently used evicted beyond kMatmulShapes; shared by the
/// executable's invocations, which run on threads of their own. A plan an
/// invocation still holds outlives its eviction.
class ProblemPlans {
public:
  std::shared_ptr<const ProblemPlan> find(const AlgorithmKey &key) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto it = plans.begin(); it != plans.end(); ++it)
      if ((*it)->key == key) {
        plans.splice(plans.begin(), plans, it);
        return plans.front();
      }
    return nullptr;
  }
  void add(std::shared_ptr<const ProblemPlan> plan) {
    std::lock_guard<std::mutex> lock(mutex);
    plans.push_front(std::move(plan));
    if (plans.size() > kMatmulShapes)
      plans.pop_back();
  }

private:
  std::mutex mutex;
  std::list<std::shared_ptr<const ProblemPlan>> plans;
};

/// A `cublaslt.matmul` step, ready for any invocation.
class PreparedMatmul final : public PreparedLibraryCall {
public:
  PreparedMatmul(const CublasLt &lt, const CudaDriver &cu,
                 std::shared_ptr<const ProblemPlan> planned,
                 OperandOffsets offsets,
                 std::shared_ptr<TunedAlgorithms> tuned,
                 std::vector<int64_t> bufferBytes)
      : lt(lt), cu(cu), planned(std::move(planned)), offsets(offsets),
        tuned(std::move(tuned)), bufferBytes(std::move(bufferBytes)) {
    shapes.add(this->planned);
  }

  Result<std::unique_ptr<LibraryCallInstance>>
  instantiate(LibrarySessions &sessions) const override;

  /// The plan of `call`, the step at bound symbols: read and checked
  /// against the step's buffers, and planned with `handle` and `desc` on
  /// its first use; `offsets` set to the step's at those symbols.
  Result<std::shared_ptr<const ProblemPlan>>
  planFor(const LibraryCallStep &call, cublasLtHandle_t handle,
          cublasLtMatmulDesc_t desc, OperandOffsets &offsets) const {
    Result<MatmulProblem> problem =
        readProblem(LibraryCallContext{cu, call, bufferBytes, "the step"});
    if (!problem)
      return problem.error();
    offsets = OperandOffsets::of(*problem);
    if (std::shared_ptr<const ProblemPlan> found =
            shapes.find(problem->algorithmKey()))
      return found;
    Result<std::shared_ptr<const ProblemPlan>> plan =
        planProblem(lt, handle, *problem, desc);
    if (!plan)
      return plan.error();
    shapes.add(*plan);
    return plan;
  }

  const CublasLt &lt;
  const CudaDriver &cu;
  /// The problem as the module states it (at the symbols' largest values).
  const std::shared_ptr<const ProblemPlan> planned;
  /// The step's offsets as the module states them.
  const OperandOffsets offsets;
  const std::shared_ptr<TunedAlgorithms> tuned;
  const std::vector<int64_t> bufferBytes;
  /// Over symbolic sizes, the plans of the recent problems.
  mutable ProblemPlans shapes;
};

/// A `cublaslt.matmul` step in one invocation.
class MatmulInstance final : public LibraryCallInstance {
public:
  MatmulInstance(const PreparedMatmul &step,
                 std::shared_ptr<InvocationSession> session, LtMatmulDesc desc)
      : step(step), lt(step.lt), session(std::move(session)),
        desc(std::move(desc)), offsets(step.offsets) {
    use(step.planned);
  }

  Status enqueue(const uint64_t *buffers, CUstream stream) override {
    return call(buffers, stream, algorithm);
  }

  /// The problem at the bound symbols' values: planned on its first use
  /// (by any invocation of the executable), then reused.
  Status bindShape(const LibraryCallStep &instantiated) override {
    Result<std::shared_ptr<const ProblemPlan>> found =
        step.planFor(instantiated, session->handle.get(), desc.get(), offsets);
    if (!found)
      return found.error();
    use(*found);
    return Status::ok();
  }

  /// Times the heuristic's first kTuningCandidates algorithms
  /// (timeLibraryCalls: kTuningTimedCalls calls each, after one untimed)
  /// over the step's buffers and keeps the fastest, unless an invocation
  /// of the executable chose one for this problem before. Each call writes
  /// D, as the run does.
  Status tune(const uint64_t *buffers, CUstream stream) override {
    if (std::optional<cublasLtMatmulAlgo_t> chosen =
            step.tuned->find(plan->key)) {
      algorithm = *chosen;
      return Status::ok();
    }
    Result<std::vector<cublasLtMatmulHeuristicResult_t>> candidates =
        heuristicCandidates(lt, session->handle.get(), plan->p, desc.get(),
                            plan->layouts, kTuningCandidates);
    if (!candidates)
      return candidates.error();
    cublasLtMatmulAlgo_t best = plan->algorithm;
    double bestMs = std::numeric_limits<double>::infinity();
    for (const cublasLtMatmulHeuristicResult_t &candidate : *candidates) {
      Result<double> ms =
          timeLibraryCalls(step.cu, stream, "a cuBLASLt algorithm", [&] {
            return call(buffers, stream, candidate.algo);
          });
      if (!ms)
        return ms.error();
      if (*ms < bestMs) {
        bestMs = *ms;
        best = candidate.algo;
      }
    }
    step.tuned->store(plan->key, best);
    algorithm = best;
    return Status::ok();
  }

private:
  /// Calls `next`'s problem from now on, with the algorithm tuning chose
  /// for it, if any, else the heuristic's.
  void use(std::shared_ptr<const ProblemPlan> next) {
    plan = std::move(next);
    algorithm = step.tuned->find(plan->key).value_or(plan->algorithm);
  }

  static constexpr int kTuningCandidates = 8;

  /// One cublasLtMatmul over the step's buffers with `algo`.
  Status call(const uint64_t *buffers, CUstream stream,
              const cublasLtMatmulAlgo_t &algo) {
    const MatmulProblem &p = plan->p;
    uint64_t a = address(buffers[0], offsets.a);
    uint64_t b = address(buffers[1], offsets.b);
    uint64_t d = address(buffers[p.dBuffer()], offsets.d);
    // C is D where nothing is added (beta 0: cuBLASLt does not read it).
    uint64_t c = address(buffers[p.addend ? p.cBuffer() : p.dBuffer()],
                         offsets.c);
    for (auto [name, at, offset] :
         {std::tuple{"A", a, offsets.a}, {"B", b, offsets.b},
          {"C", c, offsets.c}, {"D", d, offsets.d}})
      if (Status s = checkAligned(name, at, offset); !s)
        return s;
    if (p.epilogue->bias)
      if (Status s = bindBias(address(buffers[p.biasBuffer()], offsets.bias));
          !s)
        return s;
    void *workspace = reinterpret_cast<void *>(buffers[p.workspaceBuffer()]);
    const void *one = p.compute->scale == CUDA_R_64F
                          ? static_cast<const void *>(&kOneF64)
                          : static_cast<const void *>(&kOneF32);
    const void *zero = p.compute->scale == CUDA_R_64F
                           ? static_cast<const void *>(&kZeroF64)
                           : static_cast<const void *>(&kZeroF32);
    if (cublasStatus_t s = lt.cublasLtMatmul(
            session->handle.get(), desc.get(), one, pointer(a),
            plan->layouts.a.get(), pointer(b), plan->layouts.b.get(),
            p.addend ? one : zero, pointer(c), plan->layouts.d.get(), pointer(d),
            plan->layouts.d.get(), &algo, workspace,
            size_t(p.workspaceBytes), stream))
      return ltError(lt, "cublasLtMatmul", s);
    return Status::ok();
  }

  static constexpr float kOneF32 = 1, kZeroF32 = 0;
  static constexpr double kOneF64 = 1, kZeroF64 = 0;

  uint64_t address(uint64_t buffer, int64_t offset) const {
    return buffer + uint64_t(offset) * uint64_t(plan->p.dtype->bytes);
  }
  static void *pointer(uint64_t address) {
    return reinterpret_cast<void *>(address);
  }

  /// The algorithm was chosen for the alignment an offset gives in a
  /// 256-byte aligned buffer; a caller's pointer (runOnDevice) may have less.
  Status checkAligned(const char *name, uint64_t address,
                      int64_t offset) const {
    uint32_t needed = plan->p.alignment(offset);
    if (address % needed == 0)
      return Status::ok();
    return makeError(ErrorCode::InvalidArgument,
                     std::string(name) + " is at address " + str(int64_t(address)) +
                         ", not a multiple of " + str(needed) +
                         " bytes as the algorithm chosen when the module "
                         "loaded needs (device buffers passed to the module "
                         "must be 256-byte aligned)");
  }

  Status bindBias(uint64_t bias) {
    if (bias == boundBias)
      return Status::ok();
    const void *pointer = reinterpret_cast<const void *>(bias);
    AttributeSetter set(lt, desc.get(), lt.cublasLtMatmulDescSetAttribute,
                        "cublasLtMatmulDescSetAttribute");
    set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, pointer);
    if (Status s = set.done(); !s)
      return s;
    boundBias = bias;
    return Status::ok();
  }

  const PreparedMatmul &step;
  const CublasLt &lt;
  std::shared_ptr<InvocationSession> session;
  LtMatmulDesc desc;
  /// The step's offsets at the bound shape (the module's until a shape is
  /// bound), never `plan`'s: OperandOffsets.
  OperandOffsets offsets;
  uint64_t boundBias = 0;
  /// The problem of the bound shape (the module's problem until a shape is
  /// bound), and its algorithm: the heuristic's best, or the one tuning
  /// chose.
  std::shared_ptr<const ProblemPlan> plan;
  cublasLtMatmulAlgo_t algorithm;
};

Result<std::unique_ptr<LibraryCallInstance>>
PreparedMatmul::instantiate(LibrarySessions &sessions) const {
  Result<std::shared_ptr<InvocationSession>> s =
      session<InvocationSession>(lt, sessions);
  if (!s)
    return s.error();
  Result<LtMatmulDesc> desc = createMatmulDesc(lt, planned->p);
  if (!desc)
    return desc.error();
  return std::unique_ptr<LibraryCallInstance>(
      new MatmulInstance(*this, std::move(*s), std::move(*desc)));
}

/// The plan of the problem, planned once per distinct problem of the
/// executable.
Result<std::shared_ptr<const ProblemPlan>>
chooseAlgorithm(const CublasLt &lt, LoadSession &session,
                const MatmulProblem &p, const std::string &where) {
  AlgorithmKey key = p.algorithmKey();
  if (auto it = session.plans.find(key); it != session.plans.end())
    return it->second;
  Result<LtMatmulDesc> desc = createMatmulDesc(lt, p);
  if (!desc)
    return prefixError(where + ": ", desc.error());
  Result<std::shared_ptr<const ProblemPlan>> plan =
      planProblem(lt, session.handle.get(), p, desc->get());
  if (!plan)
    return prefixError(where + ": ", plan.error());
  session.plans.emplace(std::move(key), *plan);
  return plan;
}

} // namespace

Result<std::unique_ptr<PreparedLibraryCall>>
prepareCublasLtMatmul(const LibraryCallContext &context,
                      LibrarySessions &loadSessions) {
  Result<MatmulProblem> problem = readProblem(context);
  if (!problem)
    return problem.error();
  Result<const CublasLt *> lt = loadCublasLt(context.where);
  if (!lt)
    return lt.error();
  Result<std::shared_ptr<LoadSession>> load =
      session<LoadSession>(**lt, loadSessions);
  if (!load)
    return prefixError(context.where + ": ", load.error());
  Result<std::shared_ptr<const ProblemPlan>> plan =
      chooseAlgorithm(**lt, **load, *problem, context.where);
  if (!plan)
    return plan.error();
  return std::unique_ptr<PreparedLibraryCall>(new PreparedMatmul(
      **lt, context.cu, *plan, OperandOffsets::of(*problem), (*load)->tuned,
      context.bufferBytes));
}

} // namespace stride
