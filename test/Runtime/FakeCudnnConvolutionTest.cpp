//===- FakeCudnnConvolutionTest.cpp - cudnn.convolution, without a GPU ----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The `cudnn.convolution` routine over the fake CUDA driver and the fake
// cuDNN (FakeCudnn.cpp, which runs convolution graphs on the host): the
// forward (with its bias, channels-last, grouped, 1-D), the data and the
// weight gradient against a direct sum here; the descriptor's checks at
// load; a missing library; no engine, and only TF32 engines for an f32
// convolution that does not allow TF32, each an error naming the
// convolution.
//
//===----------------------------------------------------------------------===//

#include "FakeRuntime.h"
#include "SdpaTestSupport.h"

using namespace stride;
using namespace stride::test;

namespace {

/// A convolution problem: the forward's x, w, y (dims and strides), its
/// parameters, and which of the three calls the step makes.
struct Conv {
  std::string kind = "fprop";
  DType dtype = DType::F32;
  std::vector<int64_t> x, w, y, xs, ws, ys;
  std::vector<int64_t> stride, pad, dilation;
  bool bias = false;

  static std::vector<int64_t> dense(const std::vector<int64_t> &d) {
    std::vector<int64_t> s(d.size(), 1);
    for (size_t i = d.size(); i-- > 1;)
      s[i - 1] = s[i] * d[i];
    return s;
  }
  static int64_t count(const std::vector<int64_t> &d) {
    int64_t n = 1;
    for (int64_t v : d)
      n *= v;
    return n;
  }
  /// Elements a buffer of these dims and strides spans.
  static int64_t span(const std::vector<int64_t> &d,
                      const std::vector<int64_t> &s) {
    int64_t e = 1;
    for (size_t i = 0; i < d.size(); ++i)
      e += (d[i] - 1) * s[i];
    return e;
  }
};

/// 2 x 4 x 6 x 5 input, 6 x 2 x 3 x 3 weight in 2 groups, stride 2 by 1,
/// padding 1, dilation 1 by 2.
Conv grouped() {
  Conv c;
  c.x = {2, 4, 6, 5};
  c.w = {6, 2, 3, 3};
  c.y = {2, 6, 3, 3};
  c.stride = {2, 1};
  c.pad = {1, 1};
  c.dilation = {1, 2};
  c.xs = Conv::dense(c.x), c.ws = Conv::dense(c.w), c.ys = Conv::dense(c.y);
  return c;
}

DescriptorField text(const char *name, const std::string &value) {
  return {name, {}, value};
}

std::vector<DescriptorField> descriptor(const Conv &c) {
  std::vector<DescriptorField> f = {
      text("kind", c.kind),
      text("dtype", std::string(dtypeName(c.dtype))),
      text("name", "conv1"),
      ints("x_dims", c.x),
      ints("w_dims", c.w),
      ints("y_dims", c.y),
      ints("x_strides", c.xs),
      ints("w_strides", c.ws),
      ints("y_strides", c.ys),
      ints("stride", c.stride),
      ints("pre_padding", c.pad),
      ints("post_padding", c.pad),
      ints("dilation", c.dilation),
      ints("bias", {int64_t(c.bias)}),
      ints("tf32", {0})};
  return f;
}

/// The step's tensors in buffer order: name, dims and strides; the last is
/// the one it writes.
std::vector<std::pair<std::string, std::pair<std::vector<int64_t>,
                                             std::vector<int64_t>>>>
tensors(const Conv &c) {
  if (c.kind == "dgrad")
    return {{"dy", {c.y, c.ys}}, {"w", {c.w, c.ws}}, {"dx", {c.x, c.xs}}};
  if (c.kind == "wgrad")
    return {{"x", {c.x, c.xs}}, {"dy", {c.y, c.ys}}, {"dw", {c.w, c.ws}}};
  std::vector<std::pair<std::string, std::pair<std::vector<int64_t>,
                                               std::vector<int64_t>>>>
      all = {{"x", {c.x, c.xs}}, {"w", {c.w, c.ws}}};
  if (c.bias)
    all.push_back({"bias", {{c.y[1]}, {1}}});
  all.push_back({"y", {c.y, c.ys}});
  return all;
}

ModuleDesc module(const Conv &c) {
  std::vector<std::pair<const char *, std::pair<DType, int64_t>>> ins, outs;
  auto all = tensors(c);
  for (size_t i = 0; i < all.size(); ++i) {
    int64_t n = Conv::span(all[i].second.first, all[i].second.second);
    (i + 1 == all.size() ? outs : ins)
        .push_back({all[i].first.c_str(), {c.dtype, n}});
  }
  return oneStepModule("cudnn.convolution", "sm_90", ins, outs, descriptor(c));
}

/// The written tensor by a direct sum over the forward relation, at the
/// offsets of its strides.
std::vector<double> reference(const Conv &c, const std::vector<HostArray> &in) {
  auto all = tensors(c);
  std::vector<double> out(
      size_t(Conv::span(all.back().second.first, all.back().second.second)), 0);
  auto at = [](const std::vector<int64_t> &s, std::vector<int64_t> i) {
    int64_t o = 0;
    for (size_t d = 0; d < s.size(); ++d)
      o += i[d] * s[d];
    return o;
  };
  const HostArray &xa = in[0];
  int64_t perGroup = c.w[1], outPerGroup = c.w[0] / (c.x[1] / perGroup);
  size_t spatial = c.x.size() - 2;
  for (int64_t n = 0; n < c.y[0]; ++n)
    for (int64_t k = 0; k < c.y[1]; ++k)
      for (int64_t p = 0; p < Conv::count(c.y) / c.y[0] / c.y[1]; ++p)
        for (int64_t ch = 0; ch < perGroup; ++ch)
          for (int64_t r = 0; r < Conv::count(c.w) / c.w[0] / c.w[1]; ++r) {
            std::vector<int64_t> yi = {n, k}, wi = {k, ch},
                                 xi = {n, k / outPerGroup * perGroup + ch};
            int64_t pp = p, rr = r;
            std::vector<int64_t> ys(spatial), rs(spatial);
            for (size_t d = spatial; d-- > 0;) {
              ys[d] = pp % c.y[d + 2], pp /= c.y[d + 2];
              rs[d] = rr % c.w[d + 2], rr /= c.w[d + 2];
            }
            bool inside = true;
            for (size_t d = 0; d < spatial; ++d) {
              int64_t xp = ys[d] * c.stride[d] - c.pad[d] + rs[d] * c.dilation[d];
              inside &= xp >= 0 && xp < c.x[d + 2];
              yi.push_back(ys[d]), wi.push_back(rs[d]), xi.push_back(xp);
            }
            if (!inside)
              continue;
            if (c.kind == "fprop")
              out[size_t(at(c.ys, yi))] += element(xa, at(c.xs, xi)) *
                                           element(in[1], at(c.ws, wi));
            else if (c.kind == "dgrad")
              out[size_t(at(c.xs, xi))] += element(in[0], at(c.ys, yi)) *
                                           element(in[1], at(c.ws, wi));
            else
              out[size_t(at(c.ws, wi))] += element(in[1], at(c.ys, yi)) *
                                           element(in[0], at(c.xs, xi));
          }
  if (c.bias)
    for (int64_t n = 0; n < c.y[0]; ++n)
      for (int64_t k = 0; k < c.y[1]; ++k)
        for (int64_t p = 0; p < Conv::count(c.y) / c.y[0] / c.y[1]; ++p) {
          std::vector<int64_t> yi = {n, k};
          int64_t pp = p;
          std::vector<int64_t> ys(spatial);
          for (size_t d = spatial; d-- > 0;)
            ys[d] = pp % c.y[d + 2], pp /= c.y[d + 2];
          yi.insert(yi.end(), ys.begin(), ys.end());
          out[size_t(at(c.ys, yi))] += element(in[2], k);
        }
  return out;
}

constexpr const char *kWhere =
    "fake.stridemod: step 1 of 1 (library call 'cudnn.convolution')";

class FakeCudnnConvolutionTest : public FakeRuntimeTest {
protected:
  Result<std::shared_ptr<const Executable>> load(ModuleDesc d) {
    return Executable::load(*rt, std::move(d), "fake.stridemod");
  }

  /// "" when the step's result matches the reference, else what differs.
  std::string check(const Conv &c) {
    Result<std::shared_ptr<const Executable>> exe = load(module(c));
    if (!exe)
      return exe.error().message;
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
    if (!inv)
      return inv.error().message;
    auto all = tensors(c);
    std::vector<HostArray> args;
    for (size_t i = 0; i + 1 < all.size(); ++i)
      args.push_back(randomArray(
          c.dtype, Conv::span(all[i].second.first, all[i].second.second),
          uint32_t(7 + i)));
    Result<std::vector<HostArray>> out = (*inv)->run(args);
    if (!out)
      return out.error().message;
    std::vector<double> want = reference(c, args);
    for (size_t i = 0; i < want.size(); ++i)
      if (std::fabs(element((*out)[0], int64_t(i)) - want[i]) >
          1e-4 * std::max(1.0, std::fabs(want[i])))
        return "element " + std::to_string(i) + " is " +
               std::to_string(element((*out)[0], int64_t(i))) + ", expected " +
               std::to_string(want[i]);
    return "";
  }

  Error invocationError(const Conv &c) {
    Result<std::shared_ptr<const Executable>> exe = load(module(c));
    if (!exe)
      return exe.error();
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
    EXPECT_FALSE(inv);
    return inv ? Error{ErrorCode::Internal, "created"} : inv.error();
  }

  FakeSetting library{"STRIDE_CUDNN", STRIDE_FAKE_CUDNN_DIR "/libcudnn.so.9"};
};

TEST_F(FakeCudnnConvolutionTest, ForwardMatchesTheReference) {
  Conv c = grouped();
  EXPECT_EQ(check(c), "");
  c.bias = true;
  EXPECT_EQ(check(c), "");
}

TEST_F(FakeCudnnConvolutionTest, ChannelsLastIsAStrideOrder) {
  Conv c = grouped();
  c.xs = {120, 1, 20, 4}; // [N, H, W, C]
  c.ys = {54, 1, 18, 6};
  EXPECT_EQ(check(c), "");
}

TEST_F(FakeCudnnConvolutionTest, OneDimensionalIsTwoDimensional) {
  Conv c;
  c.x = {2, 3, 9};
  c.w = {4, 3, 2};
  c.y = {2, 4, 4};
  c.stride = {2};
  c.pad = {0};
  c.dilation = {1};
  c.xs = Conv::dense(c.x), c.ws = Conv::dense(c.w), c.ys = Conv::dense(c.y);
  EXPECT_EQ(check(c), "");
}

TEST_F(FakeCudnnConvolutionTest, GradientsMatchTheReference) {
  for (const char *kind : {"dgrad", "wgrad"}) {
    Conv c = grouped();
    c.kind = kind;
    EXPECT_EQ(check(c), "") << kind;
  }
}

TEST_F(FakeCudnnConvolutionTest, DescriptorIsCheckedWhenLoading) {
  Conv c = grouped();
  c.y[2] = 4; // the stride gives 3 rows
  c.ys = Conv::dense(c.y);
  Result<std::shared_ptr<const Executable>> exe = load(module(c));
  ASSERT_FALSE(exe);
  EXPECT_EQ(exe.error().code, ErrorCode::InvalidModule);
  EXPECT_EQ(exe.error().message,
            std::string(kWhere) +
                ": descriptor gives spatial dim 0 x size 6, kernel 3 and y "
                "size 4, which the stride, padding and dilation do not give");
  c = grouped();
  c.kind = "dgrad";
  c.bias = true;
  exe = load(module(c));
  ASSERT_FALSE(exe);
  EXPECT_EQ(exe.error().message,
            std::string(kWhere) +
                ": descriptor adds a bias to a dgrad; only fprop takes one");
}

TEST_F(FakeCudnnConvolutionTest, MissingLibrary) {
  FakeSetting absent("STRIDE_CUDNN", "/nonexistent/libcudnn.so.9");
  Result<std::shared_ptr<const Executable>> exe = load(module(grouped()));
  ASSERT_FALSE(exe);
  EXPECT_EQ(exe.error().code, ErrorCode::NotFound);
  EXPECT_NE(exe.error().message.find("needs cuDNN (libcudnn.so.9)"),
            std::string::npos)
      << exe.error().message;
  EXPECT_NE(exe.error().message.find("install cuDNN 9"), std::string::npos)
      << exe.error().message;
}

TEST_F(FakeCudnnConvolutionTest, NoEngineNamesTheConvolution) {
  FakeSetting none("STRIDE_FAKE_CUDNN_NO_ENGINE", "1");
  Error e = invocationError(grouped());
  EXPECT_EQ(e.code, ErrorCode::Incompatible);
  EXPECT_EQ(e.message,
            std::string(kWhere) +
                ": cuDNN 9.19.0 (" STRIDE_FAKE_CUDNN_DIR
                "/libcudnn.so.9) has no engine for convolution 'conv1' (f32 "
                "fprop, x [2, 4, 6, 5] strides [120, 30, 5, 1], w [6, 2, 3, 3] "
                "strides [18, 9, 3, 1], y [2, 6, 3, 3] strides [54, 9, 3, 1], "
                "stride [2, 1], padding [1, 1]/[1, 1], dilation [1, 2]) on "
                "this device (0 configurations of its heuristics tried; the "
                "heuristics gave no configuration)");
}

TEST_F(FakeCudnnConvolutionTest, Tf32EnginesAreSkippedForFloats) {
  FakeSetting tf32("STRIDE_FAKE_CUDNN_TF32", "1");
  Error e = invocationError(grouped());
  EXPECT_EQ(e.code, ErrorCode::Incompatible);
  EXPECT_NE(e.message.find("2 configurations of its heuristics tried; the "
                           "engines left use TF32, which the module does not "
                           "allow (stridec --allow-tf32 does)"),
            std::string::npos)
      << e.message;
  Conv half = grouped();
  half.dtype = DType::BF16; // tensor cores are what bf16 asks for
  EXPECT_EQ(check(half).find("has no engine"), std::string::npos);
}

} // namespace
