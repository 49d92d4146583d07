//===- FakeCudnnTest.cpp - cudnn.sdpa_* steps, without a GPU --------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The `cudnn.sdpa_forward` and `cudnn.sdpa_backward` routines over the fake
// CUDA driver (FakeCuda.cpp) and the fake cuDNN (FakeCudnn.cpp, which checks
// the backend descriptors and runs the operation graph on the host): the
// graphs' results against the host reference (SdpaTestSupport.h) for
// causal, biased, grouped-query and strided problems in both directions,
// every check of the descriptor at load, a missing library or symbol, a
// refused cuDNN version, and each failure of cuDNN or of the workspace's
// allocation, with its message. Tuning (InvocationOptions::tuneLibraryCalls)
// over a fake whose heuristics give several configurations, each of its
// own speed and workspace: every one that finalizes is timed, the fastest
// kept and shared by the steps of its problem, the results still right.
//
//===----------------------------------------------------------------------===//

#include "FakeRuntime.h"
#include "SdpaTestSupport.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <map>

using namespace stride;
using namespace stride::test;

namespace {

/// The fake cuDNN's counts ("handles=1 plans=2 executions=3"); 0 while
/// the library is not loaded (nothing counted yet).
int countOf(const std::string &what) {
  void *library = dlopen(STRIDE_FAKE_CUDNN_DIR "/libcudnn.so.9",
                         RTLD_NOW | RTLD_NOLOAD);
  if (!library)
    return 0;
  auto counts = reinterpret_cast<const char *(*)()>(
      dlsym(library, "stride_fake_cudnn_counts"));
  std::string text = counts ? counts() : "";
  dlclose(library);
  size_t at = text.find(what + "=");
  return at == std::string::npos ? -1
                                 : std::atoi(text.c_str() + at + what.size() + 1);
}

/// A small problem of every feature: 2 batches, 4 query heads over 2
/// key/value heads, 5 queries over 7 keys.
Attention small() {
  Attention a;
  a.b = 2;
  a.hq = 4;
  a.hkv = 2;
  a.sq = 5;
  a.skv = 7;
  a.dqk = 8;
  a.dv = 16;
  return a;
}

/// The problems the results are checked on.
std::vector<Attention> problems() {
  std::vector<Attention> all;
  for (DType t : {DType::BF16, DType::F16})
    for (bool causal : {false, true})
      for (BiasKind bias : {BiasKind::None, BiasKind::Full, BiasKind::Padding,
              BiasKind::PaddingRows}) {
        Attention a = small();
        a.dtype = t;
        a.causal = causal;
        a.bias = bias;
        all.push_back(a);
      }
  Attention strided = small();
  strided.tokensMajor = true;
  strided.causal = true;
  all.push_back(strided);
  Attention moreQueries = small(); // s_q > s_kv, causal top-left
  moreQueries.sq = 9;
  moreQueries.causal = true;
  moreQueries.hkv = 4;
  all.push_back(moreQueries);
  Attention noStats = small();
  noStats.stats = false;
  all.push_back(noStats);
  return all;
}

constexpr const char *kWhere =
    "fake.stridemod: step 1 of 1 (library call 'cudnn.sdpa_forward')";
constexpr const char *kWhereBackward =
    "fake.stridemod: step 1 of 1 (library call 'cudnn.sdpa_backward')";

class FakeCudnnTest : public FakeRuntimeTest {
protected:
  Result<std::shared_ptr<const Executable>> load(ModuleDesc d) {
    return Executable::load(*rt, std::move(d), "fake.stridemod");
  }

  /// The error of loading `d`, which must fail.
  Error loadError(ModuleDesc d) {
    Result<std::shared_ptr<const Executable>> exe = load(std::move(d));
    EXPECT_FALSE(exe);
    return exe ? Error{ErrorCode::Internal, "loaded"} : exe.error();
  }

  /// The error of creating an invocation of `d`, which must load.
  Error invocationError(ModuleDesc d) {
    Result<std::shared_ptr<const Executable>> exe = load(std::move(d));
    if (!exe)
      return exe.error();
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
    EXPECT_FALSE(inv);
    return inv ? Error{ErrorCode::Internal, "created"} : inv.error();
  }

  Result<std::unique_ptr<Invocation>> invocation(ModuleDesc d,
                                                 bool graph = false,
                                                 bool tune = false) {
    Result<std::shared_ptr<const Executable>> exe = load(std::move(d));
    if (!exe)
      return exe.error();
    InvocationOptions options;
    options.useCudaGraph = graph;
    options.tuneLibraryCalls = tune;
    return Invocation::create(*exe, options);
  }

  FakeSetting library{"STRIDE_CUDNN", STRIDE_FAKE_CUDNN_DIR "/libcudnn.so.9"};
};

TEST_F(FakeCudnnTest, ForwardMatchesTheReference) {
  for (const Attention &a : problems()) {
    Result<std::unique_ptr<Invocation>> inv = invocation(forwardModule(a, "sm_90"));
    ASSERT_TRUE(inv) << a.name() << ": " << inv.error().message;
    EXPECT_EQ(checkForward(**inv, a, attentionInputs(a, 11), 1e-2), "")
        << a.name();
  }
}

TEST_F(FakeCudnnTest, BackwardMatchesTheReference) {
  for (const Attention &a : problems()) {
    Result<std::unique_ptr<Invocation>> inv =
        invocation(backwardModule(a, "sm_90"));
    ASSERT_TRUE(inv) << a.name() << ": " << inv.error().message;
    EXPECT_EQ(checkBackward(**inv, a, attentionInputs(a, 5), 1e-2), "")
        << a.name();
  }
}

TEST_F(FakeCudnnTest, OneHandlePerInvocationAndGraphs) {
  Attention a = small();
  a.causal = true;
  int plansBefore = countOf("plans");
  {
    Result<std::unique_ptr<Invocation>> first =
        invocation(forwardModule(a, "sm_90"), /*graph=*/true);
    ASSERT_TRUE(first) << first.error().message;
    Result<std::unique_ptr<Invocation>> second =
        invocation(backwardModule(a, "sm_90"));
    ASSERT_TRUE(second) << second.error().message;
    EXPECT_EQ(countOf("handles"), 2);
    EXPECT_EQ(countOf("plans"), plansBefore + 2);
    // Captured into a CUDA graph (which the fake driver does not replay:
    // one run).
    EXPECT_EQ(checkForward(**first, a, attentionInputs(a, 1), 1e-2), "");
    EXPECT_EQ(checkBackward(**second, a, attentionInputs(a, 3), 1e-2), "");
  }
  EXPECT_EQ(countOf("handles"), 0);
}

TEST_F(FakeCudnnTest, StepsOfOneProblemShareAPlan) {
  // A model's layers: the same attention step three times over the same
  // buffers, one plan built; the result is still the attention's.
  Attention a = small();
  a.causal = true;
  ModuleDesc layers = forwardModule(a, "sm_90");
  layers.steps.push_back(layers.steps[0]);
  layers.steps.push_back(layers.steps[0]);
  int plansBefore = countOf("plans");
  Result<std::unique_ptr<Invocation>> inv = invocation(std::move(layers));
  ASSERT_TRUE(inv) << inv.error().message;
  EXPECT_EQ(countOf("plans"), plansBefore + 1);
  EXPECT_EQ(checkForward(**inv, a, attentionInputs(a, 2), 1e-2), "");

  // Another problem (not causal) in the same invocation gets its own plan.
  Attention b = a;
  b.causal = false;
  ModuleDesc both = forwardModule(a, "sm_90");
  both.steps.push_back(forwardModule(b, "sm_90").steps[0]);
  plansBefore = countOf("plans");
  Result<std::unique_ptr<Invocation>> mixed = invocation(std::move(both));
  ASSERT_TRUE(mixed) << mixed.error().message;
  EXPECT_EQ(countOf("plans"), plansBefore + 2);
}

TEST(FakeCudnnSummary, NamesTheRoutineAndItsProblem) {
  Attention a = small();
  a.causal = true;
  a.bias = BiasKind::Padding;
  StepSummary s = summarizeStep(forwardModule(a, "sm_90"), 0);
  EXPECT_EQ(s.kind, StepKind::LibraryCall);
  EXPECT_EQ(s.name, "cudnn.sdpa_forward bf16 b=2 h=4/2 s=5/7 d=8/16 causal bias");
  s = summarizeStep(backwardModule(small(), "sm_90"), 0);
  EXPECT_EQ(s.name, "cudnn.sdpa_backward bf16 b=2 h=4/2 s=5/7 d=8/16");
}

//--- The descriptor ------------------------------------------------------===//

/// The forward module of small() with field `name` replaced by `field` (or
/// removed, if `field` has no name; added, if there is none).
ModuleDesc withField(const std::string &name, DescriptorField field,
                     Attention a = small()) {
  ModuleDesc d = forwardModule(a, "sm_90");
  auto &fields = std::get<LibraryCallStep>(d.steps[0]).descriptor;
  for (auto it = fields.begin(); it != fields.end(); ++it)
    if (it->name == name) {
      if (field.name.empty())
        fields.erase(it);
      else
        *it = field;
      return d;
    }
  fields.push_back(field);
  return d;
}

/// The forward module of small() with buffer `index` (and the input or
/// output it holds) `bytes` long.
ModuleDesc withBufferBytes(size_t index, int64_t bytes, Attention a = small()) {
  ModuleDesc d = forwardModule(a, "sm_90");
  BufferDesc &buffer = d.buffers[index];
  buffer.sizeBytes = bytes;
  TensorSignature &t = buffer.kind == BufferKind::Input
                           ? d.signature.inputs[size_t(buffer.index)]
                           : d.signature.outputs[size_t(buffer.index)];
  t.shape = {bytes / int64_t(dtypeSize(t.dtype))};
  return d;
}

struct BadDescriptor {
  ModuleDesc module;
  const char *message; // after "descriptor "
};

TEST_F(FakeCudnnTest, DescriptorIsCheckedWhenLoading) {
  Attention biased = small();
  biased.bias = BiasKind::Full;
  ModuleDesc dropped = forwardModule(small(), "sm_90");
  std::get<LibraryCallStep>(dropped.steps[0]).buffers.pop_back();
  const BadDescriptor cases[] = {
      {withField("dims", {}), "has no field 'dims'"},
      {withField("dtype", {"dtype", {}, "f32"}),
       "field 'dtype' is 'f32'; expected one of 'bf16', 'f16'"},
      {withField("dtype", ints("dtype", {1})),
       "field 'dtype' is integers, not text; expected one of 'bf16', 'f16'"},
      {withField("dims", ints("dims", {2, 4, 2, 5, 7, 8})),
       "field 'dims' has 6 integers; it must be 7 integers (b, h_q, h_kv, "
       "s_q, s_kv, d_qk, d_v)"},
      {withField("q_strides", {"q_strides", {}, "dense"}),
       "field 'q_strides' has text; it must be 4 integers (batch, head, "
       "token and head_dim strides in elements)"},
      {withField("scale", ints("scale", {1, 2})),
       "field 'scale' must be one integer"},
      {withField("scale", ints("scale", {std::bit_cast<int64_t>(std::nan(""))})),
       "field 'scale' holds the bits of nan, which is not a finite float"},
      {withField("causal", ints("causal", {2})),
       "field 'causal' is 2; it must be 0 or 1"},
      {withField("stats", ints("stats", {-1})),
       "field 'stats' is -1; it must be 0 or 1"},
      {withField("bias_dims", ints("bias_dims", {1, 1, 5, 7})),
       "has field 'bias_dims', but field 'bias' is 0"},
      {withField("dropout", ints("dropout", {0})),
       "has the unknown field 'dropout'"},
      {withField("dims", ints("dims", {2, 4, 2, 0, 7, 8, 16})),
       "field 'dims' gives s_q = 0; each of b, h_q, h_kv, s_q, s_kv, d_qk, "
       "d_v must be at least 1"},
      {withField("dims", ints("dims", {2, 4, 3, 5, 7, 8, 16})),
       "field 'dims' gives h_q = 4 and h_kv = 3; h_q must be a multiple of "
       "h_kv (grouped-query attention)"},
      {withField("bias_dims", ints("bias_dims", {1, 2, 5, 7}), biased),
       "field 'bias_dims' is [1, 2, 5, 7]; each must be 1 (broadcast) or "
       "the scores' [b, h_q, s_q, s_kv] = [2, 4, 5, 7]"},
      {withField("k_strides", ints("k_strides", {112, 56, 8, 2})),
       "field 'k_strides' is [112, 56, 8, 2]; its last stride (head_dim's) "
       "must be 1, as cuDNN reads it contiguously"},
      {withField("bias_strides", ints("bias_strides", {35, 35, 1, 5}), biased),
       "field 'bias_strides' is [35, 35, 1, 5]; its last stride (s_kv's) "
       "must be 1, as cuDNN reads it contiguously"},
      {withField("v_strides", ints("v_strides", {112, -56, 16, 1})),
       "field 'v_strides' is [112, -56, 16, 1]; strides must not be "
       "negative"},
      {withField("q_strides", ints("q_strides", {INT64_MAX, 40, 8, 1})),
       "gives q dims [2, 4, 5, 8] and strides [9223372036854775807, 40, 8, "
       "1] whose extent overflows 64-bit integers"},
      {withBufferBytes(1, 200),
       "gives k dims [2, 2, 7, 8] and strides [112, 56, 8, 1], which reach "
       "byte 448 of its buffer (buffer 1 of the step), which has 200 bytes"},
      {withBufferBytes(4, 100),
       "gives stats dims [2, 4, 5, 1] and strides [20, 5, 1, 1], which reach "
       "byte 160 of its buffer (buffer 4 of the step), which has 100 bytes"},
      {std::move(dropped),
       "with bias 0 and stats 1 takes 5 buffers (q, k, v, o, stats), but the "
       "step has 4"},
  };
  for (const BadDescriptor &c : cases) {
    Error e = loadError(c.module);
    EXPECT_EQ(e.code, ErrorCode::InvalidModule) << e.message;
    EXPECT_EQ(e.message, std::string(kWhere) + ": descriptor " + c.message);
  }
}

TEST_F(FakeCudnnTest, BackwardDescriptorHasItsOwnFields) {
  ModuleDesc d = backwardModule(small(), "sm_90");
  auto &fields = std::get<LibraryCallStep>(d.steps[0]).descriptor;
  fields.push_back(ints("stats", {1}));
  Error e = loadError(d);
  EXPECT_EQ(e.message, std::string(kWhereBackward) +
                           ": descriptor has the unknown field 'stats'");
  fields.pop_back();
  for (DescriptorField &f : fields)
    if (f.name == "dq_strides")
      f.ints = {160, 40, 8, 1, 0};
  e = loadError(d);
  EXPECT_EQ(e.message,
            std::string(kWhereBackward) +
                ": descriptor field 'dq_strides' has 5 integers; it must be "
                "4 integers (batch, head, token and head_dim strides in "
                "elements)");
  ModuleDesc fewer = backwardModule(small(), "sm_90");
  std::get<LibraryCallStep>(fewer.steps[0]).buffers.pop_back();
  e = loadError(fewer);
  EXPECT_EQ(e.message, std::string(kWhereBackward) +
                           ": descriptor with bias 0 takes 9 buffers (q, k, "
                           "v, o, do, stats, dq, dk, dv), but the step has 8");
}

//--- The library ---------------------------------------------------------===//

TEST_F(FakeCudnnTest, MissingLibrary) {
  FakeSetting missing("STRIDE_CUDNN", "/nonexistent/libcudnn.so.9");
  Error e = loadError(forwardModule(small(), "sm_90"));
  EXPECT_EQ(e.code, ErrorCode::NotFound);
  EXPECT_TRUE(contains(e.message, std::string(kWhere) +
                                      " needs cuDNN (libcudnn.so.9), which "
                                      "could not be loaded (/nonexistent/"))
      << e.message;
  EXPECT_TRUE(contains(e.message,
                       "); install cuDNN 9 for CUDA 13 (the package "
                       "libcudnn9-cuda-13 or nvidia-cudnn-cu13), or set "
                       "STRIDE_CUDNN to the path of its libcudnn.so.9"))
      << e.message;
}

TEST_F(FakeCudnnTest, MissingSymbol) {
  FakeSetting other("STRIDE_CUDNN",
                    STRIDE_FAKE_CUDNN_WITHOUT_EXECUTE_DIR "/libcudnn.so.9");
  Error e = loadError(forwardModule(small(), "sm_90"));
  EXPECT_EQ(e.code, ErrorCode::Incompatible);
  EXPECT_EQ(e.message, std::string(kWhere) +
                           " needs symbol 'cudnnBackendExecute' of "
                           STRIDE_FAKE_CUDNN_WITHOUT_EXECUTE_DIR
                           "/libcudnn.so.9, which the loaded library does "
                           "not define (it is not cuDNN 9); install cuDNN 9 "
                           "for CUDA 13 (the package libcudnn9-cuda-13 or "
                           "nvidia-cudnn-cu13), or set STRIDE_CUDNN to the "
                           "path of its libcudnn.so.9");
}

TEST_F(FakeCudnnTest, VersionsWithKnownBackwardBugsAreRefused) {
  Attention a = small();
  {
    FakeSetting version("STRIDE_FAKE_CUDNN_VERSION", "91000");
    Error e = loadError(backwardModule(a, "sm_90"));
    EXPECT_EQ(e.code, ErrorCode::Incompatible);
    EXPECT_EQ(e.message, std::string(kWhereBackward) +
                             ": cuDNN 9.10.0 (" STRIDE_FAKE_CUDNN_DIR
                             "/libcudnn.so.9) has a known bug in the backward "
                             "of flash attention; install cuDNN 9.10.2 or "
                             "newer");
    // The forward is not concerned.
    EXPECT_TRUE(load(forwardModule(a, "sm_90")));
  }
  FakeSetting version("STRIDE_FAKE_CUDNN_VERSION", "91500");
  Error e = loadError(backwardModule(a, "sm_90"));
  EXPECT_EQ(e.code, ErrorCode::Incompatible);
  EXPECT_EQ(e.message,
            std::string(kWhereBackward) +
                ": cuDNN 9.15.0 (" STRIDE_FAKE_CUDNN_DIR
                "/libcudnn.so.9) needs a workaround (a padding mask) for the "
                "backward of flash attention when s_kv is not a multiple of "
                "128 (here 7), which Stride does not apply; install cuDNN "
                "9.15.1 or newer");
  a.skv = 128;
  EXPECT_TRUE(load(backwardModule(a, "sm_90")));
}

TEST_F(FakeCudnnTest, OldVersionsGetTheirWorkarounds) {
  // Before 9.10 masked scores are the lowest float, not -inf; before 9.6
  // dQ's accumulator is zeroed before each run.
  FakeSetting version("STRIDE_FAKE_CUDNN_VERSION", "90500");
  Attention a = small();
  a.skv = 128;
  a.causal = true;
  for (bool backward : {false, true}) {
    Result<std::unique_ptr<Invocation>> inv = invocation(
        backward ? backwardModule(a, "sm_90") : forwardModule(a, "sm_90"));
    ASSERT_TRUE(inv) << inv.error().message;
    for (uint32_t seed : {8u, 9u}) { // the second run finds dQ's sums
      std::string diff =
          backward ? checkBackward(**inv, a, attentionInputs(a, seed), 1e-2)
                   : checkForward(**inv, a, attentionInputs(a, seed), 1e-2);
      EXPECT_EQ(diff, "") << (backward ? "backward" : "forward");
    }
  }
}

//--- cuDNN's failures ----------------------------------------------------===//

TEST_F(FakeCudnnTest, HandleCreationFails) {
  FakeSetting fail("STRIDE_FAKE_CUDNN_CREATE", "4003"); // host allocation
  Error e = invocationError(forwardModule(small(), "sm_90"));
  EXPECT_EQ(e.code, ErrorCode::ResourceExhausted);
  EXPECT_EQ(e.message,
            std::string(kWhere) +
                ": cudnnCreate returned "
                "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED");
}

TEST_F(FakeCudnnTest, GraphIsRefused) {
  FakeSetting fail("STRIDE_FAKE_CUDNN_FINALIZE", "15:3001"); // the graph
  Error e = invocationError(forwardModule(small(), "sm_90"));
  EXPECT_EQ(e.code, ErrorCode::Incompatible);
  EXPECT_EQ(e.message, std::string(kWhere) +
                           ": cudnnBackendFinalize (the operation graph) "
                           "returned CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN: "
                           "fake cuDNN: refused as asked");
}

TEST_F(FakeCudnnTest, OperationIsRefused) {
  FakeSetting fail("STRIDE_FAKE_CUDNN_FINALIZE", "19:2000"); // a matmul
  Error e = invocationError(backwardModule(small(), "sm_90"));
  EXPECT_EQ(e.code, ErrorCode::Internal);
  EXPECT_EQ(e.message, std::string(kWhereBackward) +
                           ": cudnnBackendFinalize (a matmul operation) "
                           "returned CUDNN_STATUS_BAD_PARAM: fake cuDNN: "
                           "refused as asked");
}

TEST_F(FakeCudnnTest, NoEngine) {
  FakeSetting none("STRIDE_FAKE_CUDNN_NO_ENGINE", "1");
  Attention a = small();
  a.causal = true;
  a.bias = BiasKind::Full;
  Error e = invocationError(forwardModule(a, "sm_90"));
  EXPECT_EQ(e.code, ErrorCode::Incompatible);
  EXPECT_EQ(e.message,
            std::string(kWhere) +
                ": cuDNN 9.19.0 (" STRIDE_FAKE_CUDNN_DIR
                "/libcudnn.so.9) has no engine for bf16 forward, b=2 h_q=4 "
                "h_kv=2 s_q=5 s_kv=7 d_qk=8 d_v=16, causal, bias [1, 1, 5, 7], "
                "stats on this device (0 configurations of its heuristics "
                "tried; the heuristics gave no configuration)");
}

TEST_F(FakeCudnnTest, PlanIsRefused) {
  FakeSetting fail("STRIDE_FAKE_CUDNN_FINALIZE", "5:3002"); // each plan
  Error e = invocationError(backwardModule(small(), "sm_90"));
  EXPECT_EQ(e.code, ErrorCode::Incompatible);
  EXPECT_EQ(e.message,
            std::string(kWhereBackward) +
                ": cuDNN 9.19.0 (" STRIDE_FAKE_CUDNN_DIR
                "/libcudnn.so.9) has no engine for bf16 backward, b=2 h_q=4 "
                "h_kv=2 s_q=5 s_kv=7 d_qk=8 d_v=16 on this device (2 "
                "configurations of its heuristics tried; "
                "cudnnBackendFinalize (an execution plan) returned "
                "CUDNN_STATUS_NOT_SUPPORTED_SHAPE: fake cuDNN: refused as "
                "asked)");
}

TEST_F(FakeCudnnTest, WorkspaceCannotBeAllocated) {
  FakeSetting huge("STRIDE_FAKE_CUDNN_WORKSPACE", "1099511627776"); // 1 TiB
  Error e = invocationError(forwardModule(small(), "sm_90"));
  EXPECT_EQ(e.code, ErrorCode::ResourceExhausted);
  EXPECT_TRUE(contains(e.message,
                       std::string(kWhere) +
                           ": allocating the 1099511627776 bytes of cuDNN's "
                           "workspace: CUDA_ERROR_OUT_OF_MEMORY"))
      << e.message;
}

// A run's failure names the step, and so does a failure while the first
// run tunes (InvocationOptions::tuneLibraryCalls).
TEST_F(FakeCudnnTest, ExecutionFails) {
  for (bool tune : {false, true}) {
    Result<std::unique_ptr<Invocation>> inv =
        invocation(forwardModule(small(), "sm_90"), /*graph=*/false, tune);
    ASSERT_TRUE(inv) << inv.error().message;
    FakeSetting fail("STRIDE_FAKE_CUDNN_EXECUTE", "5000");
    AttentionInputs in = attentionInputs(small(), 1);
    Result<std::vector<HostArray>> out = (*inv)->run({in.q, in.k, in.v});
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().code, ErrorCode::DeviceFault);
    EXPECT_EQ(out.error().message,
              (tune ? "fake.stridemod: tuning step 1 of 1 (library call "
                      "'cudnn.sdpa_forward'): "
                    : std::string(kWhere) + " failed: ") +
                  "cudnnBackendExecute returned "
                  "CUDNN_STATUS_EXECUTION_FAILED: fake cuDNN: execution "
                  "failed as asked");
  }
}

} // namespace

namespace {

//--- Over symbolic sizes -------------------------------------------------===//

constexpr int64_t kMaxSeq = 16;

/// The module of `a` (forward, or backward) over a symbolic sequence `seq`
/// in [1, kMaxSeq] (s_q = s_kv = seq): its buffers sized at kMaxSeq, its
/// signature's tensors dense [b, h, seq, d] (the statistics [b, h_q,
/// seq]), its descriptor's dims and strides size expressions.
ModuleDesc symbolicModule(Attention a, bool backward) {
  a.sq = a.skv = kMaxSeq;
  ModuleDesc d = backward ? backwardModule(a, "sm_90") : forwardModule(a, "sm_90");
  d.symbols = {{"seq", 1, kMaxSeq, 1}};
  SizeExpr seq = SizeExpr::symbol("seq");
  auto c = [](int64_t v) { return SizeExpr::constant(v); };
  auto times = [](int64_t k, const SizeExpr &x) {
    return *SizeExpr::constant(k).times(x);
  };
  auto dense = [&](TensorSignature &t, int64_t h, int64_t dim) {
    SymbolicLayout l{{c(a.b), c(h), seq, c(dim)},
                     {times(h * dim, seq), times(dim, seq), c(dim), c(1)},
                     c(0)};
    if (t.name == "stats")
      l = SymbolicLayout{{c(a.b), c(h), seq}, {times(h, seq), seq, c(1)}, c(0)};
    t.shape.clear();
    t.strides.clear();
    for (size_t i = 0; i < l.shape.size(); ++i) {
      t.shape.push_back(*l.shape[i].evaluate({{"seq", kMaxSeq}}));
      t.strides.push_back(*l.strides[i].evaluate({{"seq", kMaxSeq}}));
    }
    t.symbolic = l;
    return l.strides;
  };
  std::map<std::string, SizeExprs> strides;
  for (auto *list : {&d.signature.inputs, &d.signature.outputs})
    for (TensorSignature &t : *list) {
      bool kv = t.name == "k" || t.name == "v" || t.name == "dk" ||
                t.name == "dv";
      bool value = t.name == "v" || t.name == "o" || t.name == "do" ||
                   t.name == "dv";
      strides[t.name] = dense(t, kv ? a.hkv : a.hq, value ? a.dv : a.dqk);
    }
  for (DescriptorField &f : std::get<LibraryCallStep>(d.steps[0]).descriptor) {
    if (f.name == "dims")
      f.symbolicInts = {c(a.b), c(a.hq), c(a.hkv), seq, seq, c(a.dqk), c(a.dv)};
    size_t suffix = f.name.rfind("_strides");
    if (suffix != std::string::npos)
      f.symbolicInts = strides.at(f.name.substr(0, suffix));
  }
  return d;
}

/// `a`'s inputs at `seq` tokens, shaped as the symbolic module's
/// signature.
AttentionInputs symbolicInputs(const Attention &a, uint32_t seed) {
  AttentionInputs in = attentionInputs(a, seed);
  in.q.shape = {a.b, a.hq, a.sq, a.dqk};
  in.k.shape = {a.b, a.hkv, a.skv, a.dqk};
  in.v.shape = {a.b, a.hkv, a.skv, a.dv};
  in.dO.shape = {a.b, a.hq, a.sq, a.dv};
  return in;
}

Attention symbolicProblem() {
  Attention a = small();
  a.causal = true;
  return a;
}

// One module for every sequence length: nothing is planned when it loads
// or when the invocation is created; each shape's graph and plan are built
// at its first run and reused after, the step keeping the plans of its
// last 9 shapes (the current one and the 8 whose CUDA graphs an
// invocation keeps), the least recently used evicted.
TEST_F(FakeCudnnTest, SymbolicTokensArePlannedOncePerShape) {
  Attention a = symbolicProblem();
  int plansBefore = countOf("plans");
  Result<std::shared_ptr<const Executable>> exe =
      load(symbolicModule(a, /*backward=*/false));
  ASSERT_TRUE(exe) << exe.error().message;
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
  ASSERT_TRUE(inv) << inv.error().message;
  EXPECT_EQ(countOf("plans"), plansBefore);
  auto runAt = [&](int64_t seq) {
    Attention at = a;
    at.sq = at.skv = seq;
    EXPECT_EQ(checkForward(**inv, at, symbolicInputs(at, uint32_t(seq)), 1e-2),
              "")
        << "seq = " << seq;
  };
  for (int64_t seq : {3, 7, 3, 3, 7})
    runAt(seq);
  EXPECT_EQ(countOf("plans"), plansBefore + 2);
  for (int64_t seq = 8; seq < 16; ++seq) // 3 is evicted
    runAt(seq);
  EXPECT_EQ(countOf("plans"), plansBefore + 10);
  runAt(7); // kept
  EXPECT_EQ(countOf("plans"), plansBefore + 10);
  runAt(3); // planned again
  EXPECT_EQ(countOf("plans"), plansBefore + 11);
  runAt(kMaxSeq);
  EXPECT_EQ(countOf("plans"), plansBefore + 12);
}

// A model's layers: the same step twice builds one plan per shape, in
// both directions.
TEST_F(FakeCudnnTest, SymbolicStepsOfOneProblemShareAPlan) {
  Attention a = symbolicProblem();
  for (bool backward : {false, true}) {
    ModuleDesc layers = symbolicModule(a, backward);
    layers.steps.push_back(layers.steps[0]);
    Result<std::unique_ptr<Invocation>> inv = invocation(std::move(layers));
    ASSERT_TRUE(inv) << inv.error().message;
    int plansBefore = countOf("plans");
    for (int64_t seq : {5, 2, 5}) {
      Attention at = a;
      at.sq = at.skv = seq;
      AttentionInputs in = symbolicInputs(at, 7);
      std::string diff =
          backward ? checkBackward(**inv, at, in, 1e-2, /*shaped=*/true)
                   : checkForward(**inv, at, in, 1e-2);
      EXPECT_EQ(diff, "") << (backward ? "backward" : "forward") << " at "
                          << seq;
    }
    EXPECT_EQ(countOf("plans"), plansBefore + 2);
  }
}

// Under CUDA graphs each shape is captured over its own plan and
// workspace.
TEST_F(FakeCudnnTest, SymbolicTokensInACapturedGraph) {
  Attention a = symbolicProblem();
  Result<std::unique_ptr<Invocation>> inv =
      invocation(symbolicModule(a, /*backward=*/false), /*graph=*/true);
  ASSERT_TRUE(inv) << inv.error().message;
  for (int64_t seq : {4, 11}) {
    Attention at = a;
    at.sq = at.skv = seq;
    EXPECT_EQ(checkForward(**inv, at, symbolicInputs(at, 3), 1e-2), "")
        << "seq = " << seq;
  }
}

// The backward's rule on s_kv for cuDNN before 9.15.1 holds per shape: a
// module over symbolic tokens loads, and a shape whose s_kv is not a
// multiple of 128 is refused when bound, naming the step and the values.
TEST_F(FakeCudnnTest, SymbolicBackwardChecksTheVersionPerShape) {
  FakeSetting version("STRIDE_FAKE_CUDNN_VERSION", "91500");
  Attention a = symbolicProblem();
  Result<std::unique_ptr<Invocation>> inv =
      invocation(symbolicModule(a, /*backward=*/true));
  ASSERT_TRUE(inv) << inv.error().message;
  a.sq = a.skv = 6;
  std::string diff = checkBackward(**inv, a, symbolicInputs(a, 1), 1e-2,
                                   /*shaped=*/true);
  EXPECT_EQ(diff, std::string(kWhereBackward) +
                      " at seq = 6: cuDNN 9.15.0 (" STRIDE_FAKE_CUDNN_DIR
                      "/libcudnn.so.9) needs a workaround (a padding mask) "
                      "for the backward of flash attention when s_kv is not "
                      "a multiple of 128 (here 6), which Stride does not "
                      "apply; install cuDNN 9.15.1 or newer");
}

//--- Tuning (InvocationOptions::tuneLibraryCalls) ------------------------===//

// The fake's heuristics give 3 configurations per mode: mode A's 0 to 2,
// FALLBACK's 3 to 5 (FakeCudnn.cpp). An execution of configuration i takes
// kMs[i] ms on the fake driver's clock: 4, one of FALLBACK's, is the
// fastest.
constexpr int kConfigurations = 6;
constexpr const char *kMs = "6,5,4,3,1,2";

/// The executions of each configuration so far.
std::vector<int> configurationRuns() {
  std::vector<int> runs;
  for (int i = 0; i < kConfigurations; ++i)
    runs.push_back(std::max(0, countOf("engine" + std::to_string(i))));
  return runs;
}

/// The executions of each configuration since `before`.
std::vector<int> runsSince(const std::vector<int> &before) {
  std::vector<int> runs = configurationRuns();
  for (size_t i = 0; i < runs.size(); ++i)
    runs[i] -= before[i];
  return runs;
}

/// The executions of each configuration, run by run.
using Runs = std::vector<std::vector<int>>;

/// What the fake cuDNN was asked while an invocation was created and run.
struct Asked {
  /// The heuristics queried and the plans finalized by Invocation::create,
  /// then by each run.
  std::vector<int> heuristics, plans;
  Runs executions;
};

ModuleDesc moduleOf(const Attention &a, bool backward) {
  return backward ? backwardModule(a, "sm_90") : forwardModule(a, "sm_90");
}

class FakeCudnnTuningTest : public FakeCudnnTest {
protected:
  /// Creates an invocation of `module`, which computes `a` (its backward
  /// with `backward`), with tuneLibraryCalls as `tune`, and runs it `runs`
  /// times, checking each run's results.
  Asked run(ModuleDesc module, const Attention &a, bool backward, bool tune,
            int runs = 2, bool graph = false) {
    Asked asked;
    int heuristics = countOf("heuristics"), plans = countOf("plans");
    auto counted = [&] {
      asked.heuristics.push_back(countOf("heuristics") - heuristics);
      asked.plans.push_back(countOf("plans") - plans);
      heuristics = countOf("heuristics");
      plans = countOf("plans");
    };
    Result<std::unique_ptr<Invocation>> inv =
        invocation(std::move(module), graph, tune);
    EXPECT_TRUE(inv) << inv.error().message;
    if (!inv)
      return asked;
    counted();
    for (int i = 0; i < runs; ++i) {
      std::vector<int> before = configurationRuns();
      AttentionInputs in = attentionInputs(a, uint32_t(i + 1));
      EXPECT_EQ(backward ? checkBackward(**inv, a, in, 1e-2)
                         : checkForward(**inv, a, in, 1e-2),
                "")
          << "run " << i;
      counted();
      asked.executions.push_back(runsSince(before));
    }
    return asked;
  }

  FakeSetting engines{"STRIDE_FAKE_CUDNN_ENGINES", "3"};
  FakeSetting ms{"STRIDE_FAKE_CUDNN_ENGINE_MS", kMs};
};

// The invocation is created with the heuristics' first plan (mode A's
// first: FALLBACK is not asked); its first run asks both modes, builds
// the plan of every configuration, runs each 4 times (one untimed, three
// timed) and keeps the fastest, with which that run and the next compute
// the attention.
TEST_F(FakeCudnnTuningTest, TimesEveryPlanAndKeepsTheFastest) {
  Attention a = small();
  a.causal = true;
  a.bias = BiasKind::Padding;
  for (bool backward : {false, true}) {
    SCOPED_TRACE(backward ? "backward" : "forward");
    Asked asked = run(moduleOf(a, backward), a, backward, /*tune=*/true);
    EXPECT_EQ(asked.heuristics, (std::vector<int>{1, 2, 0}));
    EXPECT_EQ(asked.plans, (std::vector<int>{1, kConfigurations, 0}));
    EXPECT_EQ(asked.executions, (Runs{{4, 4, 4, 4, 5, 4}, {0, 0, 0, 0, 1, 0}}));
  }
}

// Without tuneLibraryCalls the first configuration runs, though another is
// faster.
TEST_F(FakeCudnnTuningTest, WithoutTuningTheFirstPlanIsKept) {
  for (bool backward : {false, true}) {
    SCOPED_TRACE(backward ? "backward" : "forward");
    Asked asked =
        run(moduleOf(small(), backward), small(), backward, /*tune=*/false);
    EXPECT_EQ(asked.heuristics, (std::vector<int>{1, 0, 0}));
    EXPECT_EQ(asked.plans, (std::vector<int>{1, 0, 0}));
    EXPECT_EQ(asked.executions, (Runs{{1, 0, 0, 0, 0, 0}, {1, 0, 0, 0, 0, 0}}));
  }
}

// A configuration that does not finalize as an execution plan is neither
// the untuned plan nor a candidate: with 0 and 4 refused, the invocation
// starts on 1, and tuning times 1, 2, 3 and 5 and keeps 3.
TEST_F(FakeCudnnTuningTest, SkipsConfigurationsThatDoNotFinalize) {
  FakeSetting refused("STRIDE_FAKE_CUDNN_REFUSED", "1,0,0,0,1,0");
  FakeSetting times("STRIDE_FAKE_CUDNN_ENGINE_MS", "1,5,4,2,1,3");
  Attention a = small();
  Asked untuned = run(moduleOf(a, false), a, false, /*tune=*/false, 1);
  EXPECT_EQ(untuned.executions, (Runs{{0, 1, 0, 0, 0, 0}}));
  Asked tuned = run(moduleOf(a, false), a, false, /*tune=*/true, 1);
  EXPECT_EQ(tuned.plans, (std::vector<int>{1, 4}));
  EXPECT_EQ(tuned.executions, (Runs{{0, 4, 4, 5, 0, 4}}));
}

// A model's layers: three steps of one problem share one plan, tuned once
// (by the first step), and all three run the plan kept. The plan kept
// needs a workspace that the first does not: each step lays its workspace
// out for it (the fake refuses a tensor in the plan's workspace), in a
// forward without statistics (kept in the workspace) and a backward (dQ's
// accumulator and D).
TEST_F(FakeCudnnTuningTest, StepsOfOneProblemAreTunedOnce) {
  FakeSetting workspace("STRIDE_FAKE_CUDNN_WORKSPACE", "0,0,0,0,4096,0");
  Attention a = small();
  a.causal = true;
  a.stats = false;
  for (bool backward : {false, true}) {
    SCOPED_TRACE(backward ? "backward" : "forward");
    ModuleDesc layers = moduleOf(a, backward);
    layers.steps.push_back(layers.steps[0]);
    layers.steps.push_back(layers.steps[0]);
    Asked asked = run(std::move(layers), a, backward, /*tune=*/true);
    EXPECT_EQ(asked.plans, (std::vector<int>{1, kConfigurations, 0}));
    EXPECT_EQ(asked.executions, (Runs{{4, 4, 4, 4, 7, 4}, {0, 0, 0, 0, 3, 0}}));
  }
}

// Under CUDA graphs the graph is captured after tuning, over the plan kept
// (the fake driver runs the work as it is captured, and does not replay
// it: one run).
TEST_F(FakeCudnnTuningTest, CapturedAfterTuning) {
  Asked asked = run(moduleOf(small(), false), small(), false, /*tune=*/true,
                    1, /*graph=*/true);
  EXPECT_EQ(asked.executions, (Runs{{4, 4, 4, 4, 5, 4}}));
}

// Over symbolic sizes the shape of the first run is tuned; another shape
// takes the heuristics' first plan, and the first shape keeps its choice.
TEST_F(FakeCudnnTuningTest, SymbolicTunesTheFirstShape) {
  Attention a = symbolicProblem();
  Result<std::unique_ptr<Invocation>> inv =
      invocation(symbolicModule(a, /*backward=*/false), /*graph=*/false,
                 /*tune=*/true);
  ASSERT_TRUE(inv) << inv.error().message;
  auto runAt = [&](int64_t seq) {
    Attention at = a;
    at.sq = at.skv = seq;
    std::vector<int> before = configurationRuns();
    EXPECT_EQ(checkForward(**inv, at, symbolicInputs(at, uint32_t(seq)), 1e-2),
              "")
        << "seq = " << seq;
    return runsSince(before);
  };
  EXPECT_EQ(runAt(5), (std::vector<int>{4, 4, 4, 4, 5, 4}));
  EXPECT_EQ(runAt(3), (std::vector<int>{1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(runAt(5), (std::vector<int>{0, 0, 0, 0, 1, 0}));
}

} // namespace
