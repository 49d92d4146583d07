//===- CompareTest.cpp - stride-run's output comparison --------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace stride;

namespace {

template <typename T>
HostArray array(DType dtype, std::vector<int64_t> shape, std::vector<T> values) {
  HostArray a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.data.resize(values.size() * sizeof(T));
  std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

TEST(Compare, IntegersMustBeEqual) {
  HostArray e = array<int32_t>(DType::I32, {3}, {1, -2, 3});
  EXPECT_TRUE(compareArrays(e, e, 0.1).ok);
  Comparison c = compareArrays(array<int32_t>(DType::I32, {3}, {1, -2, 4}), e, 0.1);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_EQ(c.firstMismatch, "element [2]: got 4, expected 3");
}

TEST(Compare, FloatsWithinRelativeTolerance) {
  HostArray e = array<float>(DType::F32, {2, 2}, {1.0f, 2.0f, -4.0f, 8.0f});
  HostArray a = array<float>(DType::F32, {2, 2}, {1.0f, 2.00001f, -4.0f, 8.0f});
  EXPECT_TRUE(compareArrays(a, e, 1e-5).ok);
  EXPECT_FALSE(compareArrays(a, e, 1e-6).ok);
  EXPECT_FALSE(compareArrays(a, e, 0).ok); // rtol 0: exactly
  EXPECT_TRUE(compareArrays(e, e, 0).ok);
}

TEST(Compare, SmallValuesMeasuredAgainstTheMeanMagnitude) {
  // A sum that cancels to almost zero carries the rounding of its terms.
  HostArray e = array<double>(DType::F64, {3}, {1e-9, 2.0, -2.0});
  HostArray a = array<double>(DType::F64, {3}, {1e-9 + 1e-7, 2.0, -2.0});
  Comparison c = compareArrays(a, e, 1e-6);
  EXPECT_TRUE(c.ok);
  EXPECT_NEAR(c.maxRelativeError, 1e-7 / (4.0 / 3), 1e-12);
}

TEST(Compare, AbsoluteToleranceForOutputsOfRoundingAlone) {
  // Every element a sum of deviations from a mean: the f64 reference keeps
  // 2^-27, an f32 sum rounds it away. The relative error is 1; atol
  // accepts it, and nothing larger.
  HostArray e = array<float>(DType::F32, {3}, {7.4505806e-9f, 7.4505806e-9f,
                                               7.4505806e-9f});
  HostArray a = array<float>(DType::F32, {3}, {0.0f, 0.0f, 0.0f});
  Comparison c = compareArrays(a, e, 1e-5);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 3);
  EXPECT_TRUE(compareArrays(a, e, 1e-5, 1e-6).ok);
  EXPECT_TRUE(compareArrays(a, e, 0, 1e-6).ok); // atol applies with rtol 0
  EXPECT_FALSE(compareArrays(a, e, 1e-5, 1e-9).ok);
  HostArray wrong = array<float>(DType::F32, {3}, {1e-5f, 0.0f, 0.0f});
  EXPECT_FALSE(compareArrays(wrong, e, 1e-5, 1e-6).ok);
}

TEST(Compare, WorstElementAndLargestAbsoluteError) {
  // The first mismatch is element [0, 1]; the worst, relative to
  // max(|e|, mean |e| = 2.5), is element [1, 0]; the largest absolute error
  // is element [1, 1]'s.
  HostArray e = array<float>(DType::F32, {2, 2}, {1.0f, 1.0f, 0.0f, 8.0f});
  HostArray a = array<float>(DType::F32, {2, 2}, {1.0f, 1.5f, 2.0f, 11.0f});
  Comparison c = compareArrays(a, e, 1e-5);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 3);
  EXPECT_EQ(c.firstMismatch, "element [0, 1]: got 1.5, expected 1");
  EXPECT_EQ(c.worstElement, "element [1, 0]: got 2, expected 0");
  EXPECT_DOUBLE_EQ(c.maxAbsoluteError, 3.0);
  EXPECT_DOUBLE_EQ(c.maxRelativeError, 0.8);
  EXPECT_EQ(describeComparison("out", c),
            "out: MISMATCH (max relative error 0.8), 3 elements differ; "
            "first: element [0, 1]: got 1.5, expected 1");
  EXPECT_EQ(describeComparison("out", compareArrays(e, e, 1e-5)),
            "out: match (max relative error 0)");
}

TEST(Compare, NanAndInfinityMustMatch) {
  HostArray e = array<float>(DType::F32, {3}, {NAN, INFINITY, 1.0f});
  EXPECT_TRUE(compareArrays(e, e, 1e-5).ok);
  HostArray poisoned = array<float>(DType::F32, {3}, {NAN, INFINITY, NAN});
  EXPECT_FALSE(compareArrays(poisoned, e, 1e-5).ok);
  HostArray wrongInf = array<float>(DType::F32, {3}, {NAN, -INFINITY, 1.0f});
  EXPECT_FALSE(compareArrays(wrongInf, e, 1e-5).ok);
}

TEST(Compare, ShapeOrDtypeMismatch) {
  HostArray e = array<float>(DType::F32, {2}, {1.0f, 2.0f});
  Comparison c = compareArrays(array<float>(DType::F32, {1, 2}, {1.0f, 2.0f}), e, 1e-5);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.firstMismatch, "got f32 [1, 2], expected f32 [2]");
  EXPECT_FALSE(compareArrays(array<double>(DType::F64, {2}, {1.0, 2.0}), e, 1e-5).ok);
}

TEST(Compare, HalfAndBfloat16Decode) {
  // 0x3c00 is 1.0 in f16, 0x3f80 is 1.0 in bf16, 0xc000 is -2.0 in both.
  HostArray h = array<uint16_t>(DType::F16, {2}, {0x3c00, 0xc000});
  EXPECT_EQ(elementAsDouble(h, 0), 1.0);
  EXPECT_EQ(elementAsDouble(h, 1), -2.0);
  HostArray b = array<uint16_t>(DType::BF16, {2}, {0x3f80, 0xc000});
  HostArray wide = widenForNpy(b);
  EXPECT_EQ(wide.dtype, DType::F32);
  EXPECT_EQ(elementAsDouble(wide, 0), 1.0);
  EXPECT_EQ(elementAsDouble(wide, 1), -2.0);
}

TEST(Compare, Bfloat16InputsComeAsF32) {
  // 1 + 2^-8 is halfway between bf16 1 and 1 + 2^-7: to even (1); 1 + 3 *
  // 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: to even (1 + 2^-6).
  HostArray f = array<float>(DType::F32, {4},
                             {1.0f + 1.0f / 256, 1.0f + 3.0f / 256, -2.0f, NAN});
  HostArray b = narrowFromNpy(f, DType::BF16);
  EXPECT_EQ(b.dtype, DType::BF16);
  EXPECT_EQ(b.shape, f.shape);
  EXPECT_EQ(elementAsDouble(b, 0), 1.0);
  EXPECT_EQ(elementAsDouble(b, 1), 1.0 + 1.0 / 64);
  EXPECT_EQ(elementAsDouble(b, 2), -2.0);
  EXPECT_TRUE(std::isnan(elementAsDouble(b, 3)));
  // Any other pairing is left as it is (and refused by the signature check).
  EXPECT_EQ(narrowFromNpy(f, DType::F32).dtype, DType::F32);
  EXPECT_EQ(narrowFromNpy(b, DType::BF16).data, b.data);
}

} // namespace
