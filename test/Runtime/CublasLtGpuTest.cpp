//===- CublasLtGpuTest.cpp - cublaslt.matmul steps on a GPU ---------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The `cublaslt.matmul` routine through the real cuBLASLt, on modules built
// by hand (one library-call step over raw buffers), against a host
// reference in double precision: each dtype, transposed, padded, offset and
// batched (with a broadcast operand) operands, each epilogue, and one
// executable serving two threads on two streams, 1,000 invocations each.
// Tolerances: f32 1e-5, f64 1e-12, bf16/f16 1e-2, relative to max(1, |x|).
// Skipped where there is no CUDA device (scripts/gpu-check.sh runs it).
//
//===----------------------------------------------------------------------===//

#include "stride/Runtime/Invocation.h"

#include "GpuTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <thread>

using namespace stride;

namespace {

struct Problem {
  const char *dtype = "f32";
  const char *compute = "32f";
  const char *epilogue = "default";
  int64_t m = 1, n = 1, k = 1, batch = 1;
  bool transa = false, transb = false;
  /// Leading dimensions beyond the rows of A and B.
  int64_t padA = 0, padB = 0;
  /// Whether A is one matrix for every batch (batch stride 0).
  bool broadcastA = false;
  /// Element offsets of A and D in their buffers.
  int64_t offsetA = 0, offsetD = 0;
  /// Whether C, an input of D's layout and offset, is added (beta 1).
  bool addend = false;

  bool bias() const { return std::strstr(epilogue, "bias") != nullptr; }
  int64_t rowsA() const { return transa ? k : m; }
  int64_t colsA() const { return transa ? m : k; }
  int64_t rowsB() const { return transb ? n : k; }
  int64_t colsB() const { return transb ? k : n; }
  int64_t lda() const { return rowsA() + padA; }
  int64_t ldb() const { return rowsB() + padB; }
  int64_t strideA() const { return broadcastA ? 0 : lda() * colsA(); }
  int64_t strideB() const { return ldb() * colsB(); }
  int64_t strideD() const { return m * n; }
  int64_t elementsA() const {
    return offsetA + (batch - 1) * strideA() + lda() * colsA();
  }
  int64_t elementsB() const { return (batch - 1) * strideB() + ldb() * colsB(); }
  int64_t elementsD() const { return offsetD + batch * m * n; }

  std::string name() const {
    return std::string(dtype) + " " + compute + " " + epilogue + " m=" +
           std::to_string(m) + " n=" + std::to_string(n) +
           " k=" + std::to_string(k) + " batch=" + std::to_string(batch) +
           (transa ? " transa" : "") + (transb ? " transb" : "") +
           (broadcastA ? " broadcastA" : "") +
           (offsetA ? " offsetA=" + std::to_string(offsetA) : "") +
           (addend ? " addend" : "");
  }
};

constexpr int64_t kWorkspace = 32 << 20;

DType dtypeOf(const Problem &p) {
  std::string d = p.dtype;
  return d == "f64" ? DType::F64
         : d == "f16" ? DType::F16
         : d == "bf16" ? DType::BF16
                       : DType::F32;
}

//--- Host values in each dtype ------------------------------------------===//

/// Encodes `v`, a multiple of 1/64 in [-4, 4] (exact in every dtype here).
void storeExact(DType t, uint8_t *p, double v) {
  if (t == DType::F64) {
    std::memcpy(p, &v, 8);
    return;
  }
  float f = float(v);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (t == DType::F32) {
    std::memcpy(p, &bits, 4);
    return;
  }
  uint16_t h = uint16_t(bits >> 16); // bf16: exact, so no rounding
  if (t == DType::F16) {
    uint32_t sign = bits >> 31, exponent = (bits >> 23) & 0xff;
    uint32_t mantissa = bits & 0x7fffff;
    h = f == 0 ? uint16_t(sign << 15)
               : uint16_t(sign << 15 | (exponent - 127 + 15) << 10 |
                          mantissa >> 13);
  }
  std::memcpy(p, &h, 2);
}

double load(DType t, const uint8_t *p) {
  if (t == DType::F64) {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (t == DType::F32) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  if (t == DType::BF16) {
    uint32_t bits = uint32_t(h) << 16;
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  }
  int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double magnitude =
      exponent == 0    ? std::ldexp(mantissa, -24)
      : exponent == 31 ? (mantissa ? NAN : INFINITY)
                       : std::ldexp(1024 + mantissa, exponent - 25);
  return h & 0x8000 ? -magnitude : magnitude;
}

/// A 1-D array of `n` values, multiples of 1/64 in [-1, 1), from `seed`.
HostArray values(DType t, int64_t n, uint32_t seed) {
  HostArray a{t, {n}, {}};
  size_t bytes = dtypeSize(t);
  a.data.resize(size_t(n) * bytes);
  uint32_t state = seed * 2654435761u + 12345;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    storeExact(t, a.data.data() + i * bytes, double(int(state >> 25) - 64) / 64);
  }
  return a;
}

double element(const HostArray &a, int64_t i) {
  return load(a.dtype, a.data.data() + i * dtypeSize(a.dtype));
}

//--- The module and its reference ---------------------------------------===//

DescriptorField integer(const char *name, int64_t value) {
  return {name, {value}, ""};
}

ModuleDesc matmulModule(const Problem &p, const std::string &arch) {
  DType t = dtypeOf(p);
  int64_t bytes = int64_t(dtypeSize(t));
  ModuleDesc d;
  d.producer = "CublasLtGpuTest";
  d.target = {Backend::Cuda, arch};
  d.signature.entryName = "matmul";
  auto vector = [&](const char *name, int64_t n) {
    return TensorSignature{name, t, {n}, {1}, 0};
  };
  d.signature.inputs = {vector("a", p.elementsA()), vector("b", p.elementsB())};
  if (p.bias())
    d.signature.inputs.push_back(vector("bias", p.m));
  if (p.addend)
    d.signature.inputs.push_back(vector("c", p.elementsD()));
  d.signature.outputs = {vector("d", p.elementsD())};
  std::vector<uint32_t> buffers;
  for (size_t i = 0; i < d.signature.inputs.size(); ++i) {
    buffers.push_back(uint32_t(d.buffers.size()));
    d.buffers.push_back({BufferKind::Input, int32_t(i),
                         d.signature.inputs[i].shape[0] * bytes});
  }
  buffers.push_back(uint32_t(d.buffers.size()));
  d.buffers.push_back({BufferKind::Output, 0, p.elementsD() * bytes});
  buffers.push_back(uint32_t(d.buffers.size()));
  d.buffers.push_back({BufferKind::Temp, -1, kWorkspace});
  std::vector<DescriptorField> fields = {
      {"dtype", {}, p.dtype},
      {"compute", {}, p.compute},
      {"epilogue", {}, p.epilogue},
      integer("m", p.m),
      integer("n", p.n),
      integer("k", p.k),
      integer("batch", p.batch),
      integer("transa", p.transa),
      integer("transb", p.transb),
      integer("lda", p.lda()),
      integer("ldb", p.ldb()),
      integer("ldd", p.m),
      integer("stride_a", p.strideA()),
      integer("stride_b", p.strideB()),
      integer("stride_d", p.strideD()),
      integer("offset_a", p.offsetA),
      integer("offset_b", 0),
      integer("offset_bias", 0),
      integer("offset_d", p.offsetD),
      integer("workspace_bytes", kWorkspace)};
  if (p.addend)
    fields.push_back(integer("offset_c", p.offsetD));
  d.steps = {LibraryCallStep{"cublaslt.matmul", buffers, fields}};
  return d;
}

std::vector<HostArray> inputsFor(const Problem &p, uint32_t seed) {
  DType t = dtypeOf(p);
  std::vector<HostArray> in = {values(t, p.elementsA(), seed),
                               values(t, p.elementsB(), seed + 1)};
  if (p.bias())
    in.push_back(values(t, p.m, seed + 2));
  if (p.addend)
    in.push_back(values(t, p.elementsD(), seed + 3));
  return in;
}

double epilogue(const Problem &p, double v) {
  std::string e = p.epilogue;
  if (e.find("relu") != std::string::npos)
    return std::max(v, 0.0);
  if (e.find("gelu") != std::string::npos)
    return 0.5 * v *
           (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
  return v;
}

/// D in double precision, column-major, batch after batch.
std::vector<double> reference(const Problem &p,
                              const std::vector<HostArray> &in) {
  std::vector<double> d;
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t j = 0; j < p.n; ++j)
      for (int64_t i = 0; i < p.m; ++i) {
        double sum = p.bias() ? element(in[2], i) : 0;
        if (p.addend)
          sum += element(in.back(), p.offsetD + b * p.strideD() + j * p.m + i);
        for (int64_t l = 0; l < p.k; ++l) {
          int64_t ai = p.transa ? i * p.lda() + l : l * p.lda() + i;
          int64_t bi = p.transb ? l * p.ldb() + j : j * p.ldb() + l;
          sum += element(in[0], p.offsetA + b * p.strideA() + ai) *
                 element(in[1], b * p.strideB() + bi);
        }
        d.push_back(epilogue(p, sum));
      }
  return d;
}

double tolerance(const Problem &p) {
  std::string d = p.dtype;
  return d == "f64" ? 1e-12 : d == "f32" ? 1e-5 : 1e-2;
}

/// "" if `out` matches the reference, else the first difference.
std::string compare(const Problem &p, const HostArray &out,
                    const std::vector<double> &expected) {
  for (size_t i = 0; i < expected.size(); ++i) {
    double got = element(out, p.offsetD + int64_t(i));
    double allowed = tolerance(p) * std::max(1.0, std::fabs(expected[i]));
    if (!(std::fabs(got - expected[i]) <= allowed))
      return p.name() + ": element " + std::to_string(i) + " is " +
             std::to_string(got) + ", expected " +
             std::to_string(expected[i]);
  }
  return "";
}

class CublasLtGpuTest : public test::GpuRuntimeTest {
protected:

  Result<std::shared_ptr<const Executable>> load(const Problem &p) {
    return Executable::load(*rt, matmulModule(p, rt->deviceArch()),
                            "matmul.stridemod");
  }

  /// Runs `p` once (with a CUDA graph or not) and compares with the
  /// reference.
  void check(const Problem &p, bool graph) {
    Result<std::shared_ptr<const Executable>> exe = load(p);
    ASSERT_TRUE(exe) << p.name() << ": " << exe.error().message;
    InvocationOptions options;
    options.useCudaGraph = graph;
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe, options);
    ASSERT_TRUE(inv) << p.name() << ": " << inv.error().message;
    for (uint32_t seed : {1u, 7u}) {
      std::vector<HostArray> in = inputsFor(p, seed);
      Result<std::vector<HostArray>> out = (*inv)->run(in);
      ASSERT_TRUE(out) << p.name() << ": " << out.error().message;
      EXPECT_EQ(compare(p, (*out)[0], reference(p, in)), "");
    }
  }

};

Problem sized(const char *dtype, const char *compute, const char *epilogue,
              int64_t m, int64_t n, int64_t k) {
  Problem p;
  p.dtype = dtype;
  p.compute = compute;
  p.epilogue = epilogue;
  p.m = m;
  p.n = n;
  p.k = k;
  return p;
}

TEST_F(CublasLtGpuTest, EachDTypeAndEpilogue) {
  for (const char *e :
       {"default", "relu", "bias", "relu_bias", "gelu", "gelu_bias"})
    for (const char *dtype : {"f32", "bf16", "f16"})
      check(sized(dtype, "32f", e, 17, 33, 65), /*graph=*/false);
  check(sized("f64", "64f", "default", 17, 33, 65), false);
  check(sized("f32", "32f_fast_tf32", "bias", 64, 48, 96), false);
  check(sized("f32", "32f", "default", 1, 1, 1), false);
}

// C (a residual) added before the bias and the activation, as stride-fuse
// folds relu(x w + b + r): in each dtype, at an offset, and batched.
TEST_F(CublasLtGpuTest, AddendBeforeTheEpilogue) {
  for (const char *e : {"default", "relu_bias"})
    for (const char *dtype : {"f32", "bf16", "f16"}) {
      Problem p = sized(dtype, "32f", e, 17, 33, 65);
      p.addend = true;
      check(p, /*graph=*/false);
      p.offsetD = 8;
      p.batch = 3;
      check(p, /*graph=*/true);
    }
}

TEST_F(CublasLtGpuTest, TransposedPaddedAndOffsetOperands) {
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (const char *dtype : {"f32", "bf16", "f64"}) {
        std::string d = dtype;
        Problem p = sized(dtype, d == "f64" ? "64f" : "32f", "default", 33,
                          17, 65);
        p.transa = ta;
        p.transb = tb;
        p.padA = 3;
        p.padB = 1;
        p.offsetA = 1; // A no longer 16-byte aligned
        p.offsetD = 5;
        check(p, /*graph=*/true);
      }
}

TEST_F(CublasLtGpuTest, BatchedWithABroadcastOperand) {
  for (const char *dtype : {"f32", "bf16"}) {
    Problem p = sized(dtype, "32f", "gelu_bias", 24, 40, 56);
    p.batch = 3;
    p.broadcastA = true;
    p.transb = true;
    check(p, /*graph=*/false);
    p.broadcastA = false;
    check(p, /*graph=*/true);
  }
}

TEST_F(CublasLtGpuTest, Gpt2ShapedLinear) {
  // The attention projection of GPT-2 small over 128 tokens:
  // [128, 768] @ [768, 2304] + bias, as F.linear would call it.
  Problem p = sized("bf16", "32f", "bias", 2304, 128, 768);
  p.transa = true;
  check(p, /*graph=*/true);
}

TEST_F(CublasLtGpuTest, OneExecutableServesTwoThreadsOnTwoStreams) {
  Problem p = sized("f32", "32f", "gelu_bias", 64, 48, 80);
  Result<std::shared_ptr<const Executable>> exe = load(p);
  ASSERT_TRUE(exe) << exe.error().message;
  std::vector<HostArray> inputs[2] = {inputsFor(p, 3), inputsFor(p, 4)};
  std::vector<double> expected[2] = {reference(p, inputs[0]),
                                     reference(p, inputs[1])};
  constexpr int kRuns = 1000;
  std::string firstError[2];
  int good[2] = {0, 0};
  auto work = [&](int thread) {
    InvocationOptions options;
    options.useCudaGraph = thread == 1;
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe, options);
    if (!inv) {
      firstError[thread] = inv.error().message;
      return;
    }
    for (int i = 0; i < kRuns; ++i) {
      int which = (i + thread) % 2;
      Result<std::vector<HostArray>> out = (*inv)->run(inputs[which]);
      if (!out) {
        firstError[thread] = out.error().message;
        return;
      }
      std::string diff = compare(p, (*out)[0], expected[which]);
      if (diff.empty())
        ++good[thread];
      else if (firstError[thread].empty())
        firstError[thread] = "run " + std::to_string(i) + ": " + diff;
    }
  };
  std::thread first(work, 0), second(work, 1);
  first.join();
  second.join();
  EXPECT_EQ(firstError[0], "");
  EXPECT_EQ(firstError[1], "");
  EXPECT_EQ(good[0], kRuns);
  EXPECT_EQ(good[1], kRuns);
}

} // namespace
