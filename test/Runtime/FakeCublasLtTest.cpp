//===- FakeCublasLtTest.cpp - cublaslt.matmul steps, without a GPU --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The `cublaslt.matmul` routine over the fake CUDA driver (FakeCuda.cpp) and
// the fake cuBLASLt (FakeCublasLt.cpp, which computes on the host): every
// check of the descriptor at load, a missing library or symbol, no
// algorithm, failures of cuBLASLt at run, and real results against a host
// reference, from one invocation, from a CUDA graph and from two threads.
//
//===----------------------------------------------------------------------===//

#include "FakeRuntime.h"

#include <dlfcn.h>

#include <cmath>
#include <cstring>
#include <thread>

using namespace stride;
using namespace stride::test;

namespace {

// F.linear(x, w, bias) with x [3, 4] and w [5, 4]: in cuBLASLt's
// column-major terms D (5 x 3) = op(A) (5 x 4, A = w stored 4 x 5,
// transposed) * B (4 x 3, x), plus the bias over D's 5 rows.
constexpr int64_t kM = 3, kK = 4, kN = 5, kWorkspace = 1024;

DescriptorField integer(const char *name, int64_t value) {
  return {name, {value}, ""};
}
DescriptorField text(const char *name, const char *value) {
  return {name, {}, value};
}

std::vector<DescriptorField> linearDescriptor(const char *epilogue) {
  return {text("dtype", "f32"),     text("compute", "32f"),
          text("epilogue", epilogue), integer("m", kN),
          integer("n", kM),         integer("k", kK),
          integer("batch", 1),      integer("transa", 1),
          integer("transb", 0),     integer("lda", kK),
          integer("ldb", kK),       integer("ldd", kN),
          integer("stride_a", 0),   integer("stride_b", 0),
          integer("stride_d", 0),   integer("offset_a", 0),
          integer("offset_b", 0),   integer("offset_bias", 0),
          integer("offset_d", 0),   integer("workspace_bytes", kWorkspace)};
}

TensorSignature tensor(const char *name, std::vector<int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * shape[i];
  return {name, DType::F32, std::move(shape), std::move(strides), 0};
}

/// y = gelu(x @ w^T + bias) as one cublaslt.matmul step; buffers: x, w,
/// bias, y, the workspace.
ModuleDesc linearModule(std::vector<DescriptorField> descriptor =
                            linearDescriptor("gelu_bias"),
                        std::vector<uint32_t> stepBuffers = {1, 0, 2, 3, 4}) {
  ModuleDesc d;
  d.producer = "FakeCublasLtTest";
  d.target = {Backend::Cuda, "sm_90"};
  d.signature.entryName = "linear";
  d.signature.inputs = {tensor("x", {kM, kK}), tensor("w", {kN, kK}),
                        tensor("bias", {kN})};
  d.signature.outputs = {tensor("y", {kM, kN})};
  d.buffers = {{BufferKind::Input, 0, 4 * kM * kK},
               {BufferKind::Input, 1, 4 * kN * kK},
               {BufferKind::Input, 2, 4 * kN},
               {BufferKind::Output, 0, 4 * kM * kN},
               {BufferKind::Temp, -1, kWorkspace}};
  d.steps = {LibraryCallStep{"cublaslt.matmul", std::move(stepBuffers),
                             std::move(descriptor)}};
  return d;
}

HostArray floats(std::vector<int64_t> shape, float start, float step) {
  HostArray a{DType::F32, std::move(shape), {}};
  a.data.resize(size_t(4 * a.numElements()));
  for (int64_t i = 0; i < a.numElements(); ++i) {
    float v = start + step * float(i % 7) - 0.1f * float(i % 3);
    std::memcpy(a.data.data() + 4 * i, &v, 4);
  }
  return a;
}

float at(const HostArray &a, int64_t i) {
  float v;
  std::memcpy(&v, a.data.data() + 4 * i, 4);
  return v;
}

std::vector<HostArray> linearInputs(float seed, int64_t rows = kM) {
  return {floats({rows, kK}, seed, 0.25f), floats({kN, kK}, -0.5f, 0.125f),
          floats({kN}, 0.5f, -0.25f)};
}

/// gelu(x @ w^T + bias), tanh form, on the host.
std::vector<float> linearReference(const std::vector<HostArray> &in) {
  std::vector<float> y;
  for (int64_t i = 0; i < in[0].shape[0]; ++i)
    for (int64_t j = 0; j < kN; ++j) {
      double v = at(in[2], j);
      for (int64_t l = 0; l < kK; ++l)
        v += double(at(in[0], i * kK + l)) * at(in[1], j * kK + l);
      y.push_back(float(
          0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)))));
    }
  return y;
}

void expectNear(const HostArray &out, const std::vector<float> &expected) {
  ASSERT_EQ(out.data.size(), 4 * expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(at(out, int64_t(i)), expected[i],
                1e-5 * std::max(1.0f, std::fabs(expected[i])))
        << "element " << i;
}

/// linearModule over x [rows, K] with rows in [1, kMaxRows] (symbol
/// 'rows'): its buffers at kMaxRows rows, the descriptor's n and stride_d
/// size expressions (python-free-docs/symbolic-sizes.md, "Library calls
/// over symbolic sizes").
constexpr int64_t kMaxRows = 16;

ModuleDesc symbolicLinearModule() {
  ModuleDesc d = linearModule();
  d.symbols = {{"rows", 1, kMaxRows, 1}};
  SizeExpr rows = SizeExpr::symbol("rows");
  auto c = [](int64_t v) { return SizeExpr::constant(v); };
  d.signature.inputs[0] = tensor("x", {kMaxRows, kK});
  d.signature.inputs[0].symbolic = SymbolicLayout{{rows, c(kK)}, {c(kK), c(1)}, c(0)};
  d.signature.outputs[0] = tensor("y", {kMaxRows, kN});
  d.signature.outputs[0].symbolic = SymbolicLayout{{rows, c(kN)}, {c(kN), c(1)}, c(0)};
  d.buffers[0].sizeBytes = 4 * kMaxRows * kK;
  d.buffers[3].sizeBytes = 4 * kMaxRows * kN;
  for (DescriptorField &f : std::get<LibraryCallStep>(d.steps[0]).descriptor) {
    if (f.name == "n")
      f = {"n", {kMaxRows}, "", {rows}};
    if (f.name == "stride_d")
      f = {"stride_d", {kMaxRows * kN}, "", {*rows.times(c(kN))}};
  }
  return d;
}

/// The fake cuBLASLt's counts ("handles=1 layouts=3 heuristics=2
/// matmuls=3").
std::string fakeCounts() {
  void *library = dlopen(STRIDE_FAKE_CUBLASLT_DIR "/libcublasLt.so.13",
                         RTLD_NOW | RTLD_NOLOAD);
  if (!library)
    return "not loaded";
  auto counts = reinterpret_cast<const char *(*)()>(
      dlsym(library, "stride_fake_cublaslt_counts"));
  std::string text = counts ? counts() : "no counts";
  dlclose(library);
  return text;
}

int countOf(const std::string &what) {
  std::string counts = fakeCounts();
  size_t at = counts.find(what + "=");
  return at == std::string::npos
             ? -1
             : std::atoi(counts.c_str() + at + what.size() + 1);
}

class FakeCublasLtTest : public FakeRuntimeTest {
protected:
  Result<std::shared_ptr<const Executable>>
  load(ModuleDesc d = linearModule()) {
    return Executable::load(*rt, std::move(d), "fake.stridemod");
  }

  /// The error of loading `d`, which must fail.
  Error loadError(ModuleDesc d) {
    Result<std::shared_ptr<const Executable>> exe = load(std::move(d));
    EXPECT_FALSE(exe);
    return exe ? Error{ErrorCode::Internal, "loaded"} : exe.error();
  }

  Result<std::unique_ptr<Invocation>> invocation(bool graph = false) {
    Result<std::shared_ptr<const Executable>> exe = load();
    if (!exe)
      return exe.error();
    InvocationOptions options;
    options.useCudaGraph = graph;
    return Invocation::create(*exe, options);
  }

  FakeSetting library{"STRIDE_CUBLASLT",
                      STRIDE_FAKE_CUBLASLT_DIR "/libcublasLt.so.13"};
};

TEST(FakeCublasLtSummary, NamesTheRoutineAndItsProblem) {
  StepSummary s = summarizeStep(linearModule(), 0);
  EXPECT_EQ(s.kind, StepKind::LibraryCall);
  EXPECT_EQ(s.name, "cublaslt.matmul f32 m=5 n=3 k=4 batch=1 epilogue=gelu_bias");
  s = summarizeStep(linearModule(linearDescriptor("default")), 0);
  EXPECT_EQ(s.name, "cublaslt.matmul f32 m=5 n=3 k=4 batch=1");
}

TEST_F(FakeCublasLtTest, LinearWithBiasAndGelu) {
  for (bool graph : {false, true}) {
    Result<std::unique_ptr<Invocation>> inv = invocation(graph);
    ASSERT_TRUE(inv) << inv.error().message;
    // The executable's load kept no handle; the invocation holds one.
    EXPECT_EQ(countOf("handles"), 1);
    std::vector<HostArray> inputs = linearInputs(0.75f);
    Result<std::vector<HostArray>> out = (*inv)->run(inputs);
    ASSERT_TRUE(out) << out.error().message;
    expectNear((*out)[0], linearReference(inputs));
  }
  EXPECT_EQ(countOf("handles"), 0);
}

TEST_F(FakeCublasLtTest, EachEpilogue) {
  for (const char *epilogue : {"default", "relu", "gelu"}) {
    ModuleDesc d = linearModule(linearDescriptor(epilogue), {1, 0, 3, 4});
    Result<std::shared_ptr<const Executable>> exe = load(d);
    ASSERT_TRUE(exe) << exe.error().message;
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
    ASSERT_TRUE(inv) << inv.error().message;
    std::vector<HostArray> inputs = linearInputs(-1);
    Result<std::vector<HostArray>> out = (*inv)->run(inputs);
    ASSERT_TRUE(out) << out.error().message;
    std::string name = epilogue;
    for (int64_t i = 0; i < kM * kN; ++i) {
      double v = 0;
      for (int64_t l = 0; l < kK; ++l)
        v += double(at(inputs[0], i / kN * kK + l)) *
             at(inputs[1], i % kN * kK + l);
      if (name == "relu")
        v = std::max(v, 0.0);
      if (name == "gelu")
        v = 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
      EXPECT_NEAR(at((*out)[0], i), v, 1e-5) << epilogue << " element " << i;
    }
  }
}

// relu(x w^T + bias + r): the residual r is C, an addend read with D's
// layout (beta 1), the fifth buffer; its alignment is part of the problem.
TEST_F(FakeCublasLtTest, AddendIsC) {
  std::vector<DescriptorField> fields = linearDescriptor("relu_bias");
  fields.push_back(integer("offset_c", 0));
  ModuleDesc d = linearModule(fields, {1, 0, 2, 3, 4, 5});
  d.signature.inputs.push_back(tensor("r", {kM, kN}));
  d.buffers.insert(d.buffers.begin() + 3,
                   {BufferKind::Input, 3, 4 * kM * kN});
  Result<std::shared_ptr<const Executable>> exe = load(d);
  ASSERT_TRUE(exe) << exe.error().message;
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
  ASSERT_TRUE(inv) << inv.error().message;
  std::vector<HostArray> inputs = linearInputs(-1);
  inputs.push_back(floats({kM, kN}, 0.375f, -0.0625f));
  Result<std::vector<HostArray>> out = (*inv)->run(inputs);
  ASSERT_TRUE(out) << out.error().message;
  for (int64_t i = 0; i < kM * kN; ++i) {
    double v = at(inputs[3], i) + at(inputs[2], i % kN);
    for (int64_t l = 0; l < kK; ++l)
      v += double(at(inputs[0], i / kN * kK + l)) *
           at(inputs[1], i % kN * kK + l);
    EXPECT_NEAR(at((*out)[0], i), std::max(v, 0.0), 1e-5) << "element " << i;
  }
}

TEST_F(FakeCublasLtTest, AlgorithmChosenOncePerProblem) {
  ModuleDesc d = linearModule();
  // The same problem twice more, then one with another leading dimension
  // n (which the buffers still hold).
  LibraryCallStep same = std::get<LibraryCallStep>(d.steps[0]);
  LibraryCallStep other = same;
  for (DescriptorField &f : other.descriptor)
    if (f.name == "n")
      f.ints = {2};
  d.steps = {same, same, same, other};
  int before = countOf("heuristics");
  Result<std::shared_ptr<const Executable>> exe = load(d);
  ASSERT_TRUE(exe) << exe.error().message;
  EXPECT_EQ(countOf("heuristics"), before + 2);
}

// Two steps of one problem over other rows of x (offset_b), as
// stride-chunk-collectives splits a product into chunks of rows: they share
// one plan (one heuristic call), and each reads its own rows. The second
// once read the first's rows: the shared plan's offsets were used (a
// tensor-parallel prefill's logits at relative error 1.18 on two H200s,
// bench/NOTES.md section 59).
TEST_F(FakeCublasLtTest, StepsOfOneProblemAtOtherOffsets) {
  constexpr int64_t kSecond = 16; // x's row where the second step starts:
                                  // 256 bytes in, the alignment of row 0
  ModuleDesc d = linearModule();
  d.signature.inputs[0] = tensor("x", {kSecond + kM, kK});
  d.buffers[0].sizeBytes = 4 * (kSecond + kM) * kK;
  d.signature.outputs = {tensor("y0", {kM, kN}), tensor("y1", {kM, kN})};
  d.buffers.push_back({BufferKind::Output, 1, 4 * kM * kN});
  LibraryCallStep first = std::get<LibraryCallStep>(d.steps[0]);
  LibraryCallStep second = first;
  second.buffers = {1, 0, 2, 5, 4};
  for (DescriptorField &f : second.descriptor)
    if (f.name == "offset_b")
      f.ints = {kSecond * kK};
  d.steps = {first, second};
  int before = countOf("heuristics");
  Result<std::shared_ptr<const Executable>> exe = load(d);
  ASSERT_TRUE(exe) << exe.error().message;
  EXPECT_EQ(countOf("heuristics"), before + 1);
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
  ASSERT_TRUE(inv) << inv.error().message;
  std::vector<HostArray> inputs = linearInputs(0.5f, kSecond + kM);
  Result<std::vector<HostArray>> out = (*inv)->run(inputs);
  ASSERT_TRUE(out) << out.error().message;
  auto rowsFrom = [&](int64_t start) {
    std::vector<HostArray> part = inputs;
    part[0].shape = {kM, kK};
    part[0].data.assign(inputs[0].data.begin() + 4 * start * kK,
                        inputs[0].data.begin() + 4 * (start + kM) * kK);
    return linearReference(part);
  };
  expectNear((*out)[0], rowsFrom(0));
  expectNear((*out)[1], rowsFrom(kSecond));
}

TEST_F(FakeCublasLtTest, SymbolicRowsArePlannedOncePerShape) {
  int before = countOf("heuristics");
  Result<std::shared_ptr<const Executable>> exe = load(symbolicLinearModule());
  ASSERT_TRUE(exe) << exe.error().message;
  EXPECT_EQ(countOf("heuristics"), before + 1); // the problem at 16 rows
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
  ASSERT_TRUE(inv) << inv.error().message;
  auto runAt = [&](int64_t rows) {
    std::vector<HostArray> inputs = linearInputs(float(rows), rows);
    Result<std::vector<HostArray>> out = (*inv)->run(inputs);
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ((*out)[0].shape, (std::vector<int64_t>{rows, kN}));
    expectNear((*out)[0], linearReference(inputs));
  };
  // 1 and 3 are planned once each; 16 is the module's own problem.
  for (int64_t rows : {1, 3, 1, 16, 3})
    runAt(rows);
  EXPECT_EQ(countOf("heuristics"), before + 3);
  // Eight more shapes: the step keeps 8 problems, so the least recently
  // used (1, 16, 3) are evicted and their layouts destroyed (the module's
  // own problem stays with the executable).
  for (int64_t rows = 4; rows < 12; ++rows)
    runAt(rows);
  EXPECT_EQ(countOf("heuristics"), before + 11);
  EXPECT_EQ(countOf("layouts"), 3 * (8 + 1));
  runAt(1); // evicted: planned again
  EXPECT_EQ(countOf("heuristics"), before + 12);
  runAt(11); // kept
  EXPECT_EQ(countOf("heuristics"), before + 12);
}

// Shapes alternating under CUDA graphs: each shape's plan, its cuBLASLt
// call at that shape's problem included, is captured once and replayed
// after. The fake cuBLASLt computes when it is called (at the capture) and
// a replay calls nothing, so the calls count the captures.
TEST_F(FakeCublasLtTest, SymbolicRowsAreCapturedOncePerShape) {
  Result<std::shared_ptr<const Executable>> exe = load(symbolicLinearModule());
  ASSERT_TRUE(exe) << exe.error().message;
  InvocationOptions options;
  options.useCudaGraph = true;
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe, options);
  ASSERT_TRUE(inv) << inv.error().message;
  std::vector<int> calls;
  for (int64_t rows : {5, 2, 5, 16, 2}) {
    int before = countOf("matmuls");
    std::vector<HostArray> inputs = linearInputs(float(rows), rows);
    Result<std::vector<HostArray>> out = (*inv)->run(inputs);
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ((*out)[0].shape, (std::vector<int64_t>{rows, kN}));
    calls.push_back(countOf("matmuls") - before);
    if (calls.back() == 1) // captured now: the results are this run's
      expectNear((*out)[0], linearReference(inputs));
  }
  EXPECT_EQ(calls, (std::vector<int>{1, 1, 0, 1, 0}));
}

TEST_F(FakeCublasLtTest, TwoInvocationsOnTwoThreads) {
  Result<std::shared_ptr<const Executable>> exe = load();
  ASSERT_TRUE(exe) << exe.error().message;
  std::vector<std::unique_ptr<Invocation>> invocations;
  for (int i = 0; i < 2; ++i) {
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
    ASSERT_TRUE(inv) << inv.error().message;
    invocations.push_back(std::move(*inv));
  }
  EXPECT_EQ(countOf("handles"), 2); // one per invocation
  std::vector<std::string> failures(2);
  auto work = [&](int which) {
    for (int i = 0; i < 200 && failures[which].empty(); ++i) {
      std::vector<HostArray> inputs = linearInputs(float(which * 1000 + i));
      Result<std::vector<HostArray>> out = invocations[which]->run(inputs);
      if (!out) {
        failures[which] = out.error().message;
        break;
      }
      std::vector<float> expected = linearReference(inputs);
      for (size_t e = 0; e < expected.size(); ++e)
        if (std::fabs(at((*out)[0], int64_t(e)) - expected[e]) >
            1e-5 * std::max(1.0f, std::fabs(expected[e])))
          failures[which] = "run " + std::to_string(i) + " element " +
                            std::to_string(e) + " differs";
    }
  };
  std::thread first(work, 0), second(work, 1);
  first.join();
  second.join();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
}

/// The descriptor of the linear module with field `name` replaced by
/// `field` (or removed, if `field` has no name).
ModuleDesc withField(const std::string &name, DescriptorField field,
                     std::vector<uint32_t> buffers = {1, 0, 2, 3, 4}) {
  std::vector<DescriptorField> fields = linearDescriptor("gelu_bias");
  bool replaced = false;
  for (auto it = fields.begin(); it != fields.end(); ++it)
    if (it->name == name) {
      if (field.name.empty())
        fields.erase(it);
      else
        *it = field;
      replaced = true;
      break;
    }
  if (!replaced)
    fields.push_back(field);
  return linearModule(fields, std::move(buffers));
}

struct BadDescriptor {
  ModuleDesc module;
  const char *message; // after "descriptor "
};

TEST_F(FakeCublasLtTest, DescriptorIsCheckedWhenLoading) {
  auto withFields = [](std::vector<DescriptorField> changes) {
    ModuleDesc d = linearModule();
    auto &fields = std::get<LibraryCallStep>(d.steps[0]).descriptor;
    for (const DescriptorField &c : changes)
      for (DescriptorField &f : fields)
        if (f.name == c.name)
          f = c;
    return d;
  };
  const BadDescriptor cases[] = {
      {withField("m", {}), "has no field 'm'"},
      {withField("m", text("m", "5")), "field 'm' must be one integer"},
      {withField("m", {"m", {5, 5}, ""}), "field 'm' must be one integer"},
      {withField("dtype", text("dtype", "i32")),
       "field 'dtype' is 'i32'; expected one of 'f32', 'f16', 'bf16', 'f64'"},
      {withField("dtype", integer("dtype", 1)),
       "field 'dtype' is integers, not text; expected one of 'f32', 'f16', "
       "'bf16', 'f64'"},
      {withField("compute", text("compute", "16f")),
       "field 'compute' is '16f'; expected one of '32f', '32f_fast_tf32', "
       "'64f'"},
      {withField("epilogue", text("epilogue", "silu")),
       "field 'epilogue' is 'silu'; expected one of 'default', 'relu', "
       "'bias', 'relu_bias', 'gelu', 'gelu_bias'"},
      {withFields({text("dtype", "bf16"), text("compute", "32f_fast_tf32")}),
       "has compute '32f_fast_tf32' for dtype 'bf16'; compute "
       "'32f_fast_tf32' takes f32"},
      {withFields({text("dtype", "f64"), text("compute", "64f")}),
       "has epilogue 'gelu_bias' for dtype 'f64', which takes only "
       "'default'"},
      {withField("alpha", integer("alpha", 2)),
       "has the unknown field 'alpha'"},
      {withField("epilogue", text("epilogue", "gelu")),
       "with epilogue 'gelu' takes 4 buffers (A, B, D, workspace), but the "
       "step has 5"},
      {withField("offset_c", integer("offset_c", 0)),
       "with epilogue 'gelu_bias' and an addend takes 6 buffers (A, B, bias, "
       "C, D, workspace), but the step has 5"},
      {withField("offset_c", integer("offset_c", -1), {1, 0, 2, 3, 3, 4}),
       "field 'offset_c' is -1; it must be at least 0"},
      {withField("offset_c", integer("offset_c", 1), {1, 0, 2, 3, 3, 4}),
       "reaches byte 64 of the buffer of C, which has 60 bytes"},
      {withField("m", integer("m", 0)), "field 'm' is 0; it must be at least 1"},
      {withField("transa", integer("transa", 2)),
       "field 'transa' is 2; it must be 0 (N) or 1 (T)"},
      {withField("offset_b", integer("offset_b", -1)),
       "field 'offset_b' is -1; it must be at least 0"},
      {withField("batch", integer("batch", int64_t(1) << 31)),
       "field 'batch' is 2147483648; cuBLASLt takes at most 2147483647"},
      {withField("lda", integer("lda", 3)),
       "gives A (4 x 5, column-major) a leading dimension of 3; it must be "
       "at least 4"},
      {withField("offset_b", integer("offset_b", 1)),
       "reaches byte 52 of the buffer of B, which has 48 bytes"},
      {withField("offset_bias", integer("offset_bias", 1)),
       "reaches byte 24 of the buffer of the bias, which has 20 bytes"},
      {withFields({integer("batch", 2), integer("stride_a", INT64_MAX)}),
       "gives A sizes, strides and offset whose extent overflows 64-bit "
       "integers"},
      {withFields({integer("batch", 2), integer("stride_d", 0)}),
       "gives D a batch stride of 0, less than ldd * n = 5 * 3: its batches "
       "would overlap"},
      {withField("workspace_bytes", integer("workspace_bytes", 2048)),
       "asks for 2048 bytes of workspace, but the workspace buffer has 1024"},
  };
  for (const BadDescriptor &c : cases) {
    Error e = loadError(c.module);
    EXPECT_EQ(e.code, ErrorCode::InvalidModule) << e.message;
    EXPECT_EQ(e.message, std::string("fake.stridemod: step 1 of 1 (library "
                                     "call 'cublaslt.matmul'): descriptor ") +
                             c.message);
  }
}

TEST_F(FakeCublasLtTest, MissingLibrary) {
  FakeSetting missing("STRIDE_CUBLASLT", "/nonexistent/libcublasLt.so.13");
  Error e = loadError(linearModule());
  EXPECT_EQ(e.code, ErrorCode::NotFound);
  EXPECT_TRUE(contains(e.message,
                       "fake.stridemod: step 1 of 1 (library call "
                       "'cublaslt.matmul') needs cuBLASLt (libcublasLt.so.13), "
                       "which could not be loaded (/nonexistent/"))
      << e.message;
  EXPECT_TRUE(contains(e.message,
                       "); install the cuBLAS library of CUDA 13 (the CUDA "
                       "toolkit, or the package libcublas-13-0 or "
                       "nvidia-cublas), or set STRIDE_CUBLASLT to the path of "
                       "its libcublasLt.so.13"))
      << e.message;
}

TEST_F(FakeCublasLtTest, MissingSymbol) {
  FakeSetting other("STRIDE_CUBLASLT", STRIDE_FAKE_CUBLASLT_WITHOUT_MATMUL_DIR
                    "/libcublasLt.so.13");
  Error e = loadError(linearModule());
  EXPECT_EQ(e.code, ErrorCode::Incompatible);
  EXPECT_TRUE(contains(e.message,
                       "fake.stridemod: step 1 of 1 (library call "
                       "'cublaslt.matmul') needs symbol 'cublasLtMatmul' of " +
                           std::string(STRIDE_FAKE_CUBLASLT_WITHOUT_MATMUL_DIR) +
                           "/libcublasLt.so.13, which the loaded library does "
                           "not define (it is not the cuBLASLt of CUDA 13)"))
      << e.message;
}

TEST_F(FakeCublasLtTest, NoAlgorithm) {
  FakeSetting none("STRIDE_FAKE_CUBLASLT_NO_ALGO", "1");
  Error e = loadError(linearModule());
  EXPECT_EQ(e.code, ErrorCode::Incompatible);
  EXPECT_EQ(e.message,
            "fake.stridemod: step 1 of 1 (library call 'cublaslt.matmul'): "
            "cuBLASLt (" STRIDE_FAKE_CUBLASLT_DIR "/libcublasLt.so.13) has no "
            "algorithm for f32 (compute 32f), epilogue 'gelu_bias', m=5 n=3 "
            "k=4 batch=1, transa=1 transb=0, lda=4 ldb=4 ldd=5, alignment of "
            "A, B, D 256, 256, 256 bytes, workspace 1024 bytes on this device");
}

// A shape whose problem has no algorithm is refused at its binding, naming
// the step and the values; the invocation runs other shapes after it.
TEST_F(FakeCublasLtTest, SymbolicRowsWithoutAlgorithm) {
  Result<std::shared_ptr<const Executable>> exe = load(symbolicLinearModule());
  ASSERT_TRUE(exe) << exe.error().message;
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
  ASSERT_TRUE(inv) << inv.error().message;
  {
    FakeSetting none("STRIDE_FAKE_CUBLASLT_NO_ALGO", "1");
    Result<std::vector<HostArray>> out = (*inv)->run(linearInputs(1, 3));
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().code, ErrorCode::Incompatible);
    EXPECT_EQ(out.error().message,
              "fake.stridemod: step 1 of 1 (library call 'cublaslt.matmul') "
              "at rows = 3: cuBLASLt (" STRIDE_FAKE_CUBLASLT_DIR
              "/libcublasLt.so.13) has no algorithm for f32 (compute 32f), "
              "epilogue 'gelu_bias', m=5 n=3 k=4 batch=1, transa=1 transb=0, "
              "lda=4 ldb=4 ldd=5, alignment of A, B, D 256, 256, 256 bytes, "
              "workspace 1024 bytes on this device");
  }
  for (int64_t rows : {3, 16}) {
    std::vector<HostArray> inputs = linearInputs(2, rows);
    Result<std::vector<HostArray>> out = (*inv)->run(inputs);
    ASSERT_TRUE(out) << out.error().message;
    expectNear((*out)[0], linearReference(inputs));
  }
}

// Only cublaslt.matmul and the cuDNN attention routines take size
// expressions in their descriptors; another routine's step with one is
// refused at load, before its library loads.
TEST_F(FakeCublasLtTest, SizeExpressionsForAnotherRoutineAreRefused) {
  ModuleDesc d = symbolicLinearModule();
  std::get<LibraryCallStep>(d.steps[0]).routine = "cudnn.convolution";
  Error e = loadError(d);
  EXPECT_EQ(e.code, ErrorCode::Incompatible);
  EXPECT_EQ(e.message,
            "fake.stridemod: step 1 of 1 (library call 'cudnn.convolution'): "
            "descriptor field 'n' is a size expression, but routine "
            "'cudnn.convolution' is not called over symbolic sizes (only "
            "cublaslt.matmul, cudnn.sdpa_forward and cudnn.sdpa_backward "
            "are)");
}

TEST_F(FakeCublasLtTest, HandleCreationFails) {
  {
    FakeSetting fail("STRIDE_FAKE_CUBLASLT_CREATE", "3"); // ALLOC_FAILED
    Error e = loadError(linearModule());
    EXPECT_EQ(e.code, ErrorCode::ResourceExhausted);
    EXPECT_EQ(e.message, "fake.stridemod: step 1 of 1 (library call "
                         "'cublaslt.matmul'): cublasLtCreate returned "
                         "CUBLAS_STATUS_ALLOC_FAILED");
  }
  Result<std::shared_ptr<const Executable>> exe = load();
  ASSERT_TRUE(exe) << exe.error().message;
  FakeSetting fail("STRIDE_FAKE_CUBLASLT_CREATE", "1"); // NOT_INITIALIZED
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
  ASSERT_FALSE(inv);
  EXPECT_EQ(inv.error().code, ErrorCode::Internal);
  EXPECT_EQ(inv.error().message,
            "fake.stridemod: step 1 of 1 (library call 'cublaslt.matmul'): "
            "cublasLtCreate returned CUBLAS_STATUS_NOT_INITIALIZED");
}

TEST_F(FakeCublasLtTest, MatmulFailsAtRun) {
  Result<std::unique_ptr<Invocation>> inv = invocation();
  ASSERT_TRUE(inv) << inv.error().message;
  FakeSetting fail("STRIDE_FAKE_CUBLASLT_MATMUL", "13"); // EXECUTION_FAILED
  Result<std::vector<HostArray>> out = (*inv)->run(linearInputs(0));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::DeviceFault);
  EXPECT_EQ(out.error().message,
            "fake.stridemod: step 1 of 1 (library call 'cublaslt.matmul') "
            "failed: cublasLtMatmul returned CUBLAS_STATUS_EXECUTION_FAILED");
}

TEST_F(FakeCublasLtTest, RunOnDeviceNeedsAlignedPointers) {
  Result<std::unique_ptr<Invocation>> inv = invocation();
  ASSERT_TRUE(inv) << inv.error().message;
  // The fake driver's device addresses are host addresses.
  alignas(256) static float storage[256];
  auto address = [](float *p) { return uint64_t(reinterpret_cast<uintptr_t>(p)); };
  std::vector<uint64_t> inputs = {address(storage), address(storage + 64),
                                  address(storage + 128)};
  Status aligned =
      (*inv)->runOnDevice(inputs, {address(storage + 192)}, nullptr);
  EXPECT_TRUE(aligned) << aligned.error().message;
  inputs[0] = address(storage + 1); // x is cuBLASLt's B
  Status s = (*inv)->runOnDevice(inputs, {address(storage + 192)}, nullptr);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(s.error().message,
                       "fake.stridemod: step 1 of 1 (library call "
                       "'cublaslt.matmul') failed: B is at address "))
      << s.error().message;
  EXPECT_TRUE(contains(s.error().message,
                       ", not a multiple of 256 bytes as the algorithm chosen "
                       "when the module loaded needs (device buffers passed "
                       "to the module must be 256-byte aligned)"))
      << s.error().message;
}

} // namespace
