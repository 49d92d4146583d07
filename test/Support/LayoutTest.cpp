//===- LayoutTest.cpp - Unit tests of the layout arithmetic ---------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Support/Layout.h"

#include <gtest/gtest.h>

using namespace stride;
using Kind = OverlapVerdict::Kind;

namespace {

OverlapVerdict check(Dims shape, Dims strides) {
  return checkNonOverlapping(shape, strides);
}

TEST(OverlapCheck, RowMajorIsNonOverlapping) {
  EXPECT_TRUE(check({4, 13, 33}, {429, 33, 1}).ok());
}

TEST(OverlapCheck, PermutedDenseOrdersAreNonOverlapping) {
  EXPECT_TRUE(check({4, 13, 33}, {1, 132, 4}).ok());
  EXPECT_TRUE(check({4, 13, 33}, {33, 132, 1}).ok());
  EXPECT_TRUE(check({2, 3}, {1, 2}).ok());
}

TEST(OverlapCheck, GapsAreNonOverlapping) {
  EXPECT_TRUE(check({4, 33}, {100, 1}).ok());
  EXPECT_TRUE(check({3, 3}, {3, 1}).ok());
  EXPECT_TRUE(check({5}, {7}).ok());
}

TEST(OverlapCheck, TheSeedLayoutHasAZeroStride) {
  OverlapVerdict v = check({4, 13, 33}, {33, 0, 1});
  EXPECT_EQ(v.kind, Kind::ZeroStride);
  EXPECT_EQ(v.dim, 1);
}

TEST(OverlapCheck, SizeOneDimsIgnoreTheirStride) {
  EXPECT_TRUE(check({4, 1, 33}, {33, 0, 1}).ok());
  EXPECT_TRUE(check({1, 1}, {0, 0}).ok());
  EXPECT_TRUE(check({4, 1, 33}, {33, 7, 1}).ok());
}

TEST(SameAddressing, SizeOneDimsAreNotCompared) {
  // The view of a LLaMA forward with one key/value head at batch 1: PyTorch
  // claims stride 128 for dim 0, Stride's view rule computes 0.
  EXPECT_TRUE(sameAddressing({{1, 2, 8, 16}, {128, 0, 16, 1}, 0},
                             {{1, 2, 8, 16}, {0, 0, 16, 1}, 0}));
  EXPECT_TRUE(sameAddressing({{1, 1}, {5, 9}, 3}, {{1, 1}, {0, 0}, 3}));
}

TEST(SameAddressing, OtherDimsOffsetsAndShapesAre) {
  EXPECT_FALSE(sameAddressing({{1, 2, 8, 16}, {128, 128, 16, 1}, 0},
                              {{1, 2, 8, 16}, {0, 0, 16, 1}, 0}));
  EXPECT_FALSE(sameAddressing({{4, 1}, {1, 1}, 1}, {{4, 1}, {1, 1}, 0}));
  EXPECT_FALSE(sameAddressing({{4, 1}, {1, 1}, 0}, {{1, 4}, {1, 1}, 0}));
  EXPECT_FALSE(sameAddressing({{4}, {1}, 0}, {{4, 1}, {1, 1}, 0}));
}

TEST(SameAddressing, TensorsWithoutElementsAddressNothing) {
  EXPECT_TRUE(sameAddressing({{2, 0, 3}, {5, 7, 1}, 9}, {{2, 0, 3}, {0, 3, 1}, 0}));
  EXPECT_FALSE(sameAddressing({{2, 0, 3}, {0, 3, 1}, 0}, {{0, 2, 3}, {6, 3, 1}, 0}));
}

TEST(OverlapCheck, ZeroSizeTensorsNeverOverlap) {
  EXPECT_TRUE(check({0, 13}, {0, 0}).ok());
  EXPECT_TRUE(check({4, 0}, {0, 0}).ok());
}

TEST(OverlapCheck, ScalarsAreNonOverlapping) { EXPECT_TRUE(check({}, {}).ok()); }

TEST(OverlapCheck, ThreeByThreeWithStridesTwoOneOverlaps) {
  OverlapVerdict v = check({3, 3}, {2, 1});
  ASSERT_EQ(v.kind, Kind::Overlapping);
  EXPECT_EQ(v.dim, 0);
  EXPECT_EQ(v.first, (Dims{1, 0}));
  EXPECT_EQ(v.second, (Dims{0, 2}));
  EXPECT_EQ(v.address, 2);
}

TEST(OverlapCheck, OverlapWitnessInPermutedOrder) {
  // Dim 1 has the larger stride here; index [0, 1] and [2, 0] both reach 2.
  OverlapVerdict v = check({3, 3}, {1, 2});
  ASSERT_EQ(v.kind, Kind::Overlapping);
  EXPECT_EQ(v.dim, 1);
  EXPECT_EQ(v.first, (Dims{0, 1}));
  EXPECT_EQ(v.second, (Dims{2, 0}));
}

TEST(OverlapCheck, EqualStridesOverlap) {
  OverlapVerdict v = check({2, 2}, {1, 1});
  EXPECT_EQ(v.kind, Kind::Overlapping);
}

TEST(OverlapCheck, UnprovableLayoutsAreReported) {
  // Addresses {0, 3, 6} and {4, 7, 10} are distinct, but the sufficient
  // test cannot show it: stride 4 is below the span 7 of the stride-3 dim.
  OverlapVerdict v = check({2, 3}, {4, 3});
  EXPECT_EQ(v.kind, Kind::CannotProve);
  EXPECT_EQ(v.dim, 0);
}

TEST(OverlapCheck, ExactlyAdjacentStridesAreProven) {
  EXPECT_TRUE(check({2, 2}, {3, 2}).ok()); // addresses 0, 2, 3, 5
}

TEST(OverlapCheck, HugeStridesDoNotOverflow) {
  OverlapVerdict v = check({3, 3}, {INT64_MAX / 2, 1});
  EXPECT_EQ(v.kind, Kind::CannotProve);
}

TEST(Density, DenseAndNotDense) {
  EXPECT_TRUE(isDense(Dims{4, 13, 33}, Dims{429, 33, 1}));
  EXPECT_TRUE(isDense(Dims{4, 13, 33}, Dims{1, 132, 4}));
  EXPECT_FALSE(isDense(Dims{4, 33}, Dims{100, 1}));
  EXPECT_FALSE(isDense(Dims{4, 13, 33}, Dims{33, 0, 1}));
}

TEST(Strides, RowMajorAndOrdered) {
  EXPECT_EQ(rowMajorStrides(Dims{4, 13, 33}), (Dims{429, 33, 1}));
  EXPECT_EQ(rowMajorStrides(Dims{}), (Dims{}));
  EXPECT_EQ(denseStridesInOrder(Dims{4, 13, 33}, Dims{1, 2, 0}),
            (Dims{1, 132, 4}));
  EXPECT_EQ(dimOrderByStride(Dims{1, 132, 4}), (Dims{1, 2, 0}));
}

TEST(Views, ExpandBroadcastsWithStrideZero) {
  Layout g{{4, 1, 33}, {33, 33, 1}, 0};
  ViewResult r = inferExpand(g, Dims{4, 13, 33});
  ASSERT_TRUE(r);
  EXPECT_EQ(r.layout->strides, (Dims{33, 0, 1}));
  Layout v{{3}, {1}, 2};
  r = inferExpand(v, Dims{5, 3});
  ASSERT_TRUE(r);
  EXPECT_EQ(r.layout->strides, (Dims{0, 1}));
  EXPECT_EQ(r.layout->offset, 2);
  EXPECT_FALSE(inferExpand(g, Dims{4, 13, 32}));
}

TEST(Views, UnsqueezeFollowsPyTorch) {
  Layout g{{4, 33}, {33, 1}, 0};
  EXPECT_EQ(inferUnsqueeze(g, 1).layout->strides, (Dims{33, 33, 1}));
  EXPECT_EQ(inferUnsqueeze(g, 2).layout->strides, (Dims{33, 1, 1}));
  EXPECT_FALSE(inferUnsqueeze(g, 3));
}

TEST(Views, SliceAndSelectMoveTheOffset) {
  Layout x{{4, 10}, {10, 1}, 0};
  ViewResult s = inferSlice(x, 1, 2, 8, 2);
  ASSERT_TRUE(s);
  EXPECT_EQ(s.layout->shape, (Dims{4, 3}));
  EXPECT_EQ(s.layout->strides, (Dims{10, 2}));
  EXPECT_EQ(s.layout->offset, 2);
  ViewResult e = inferSelect(x, 0, 3);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.layout->offset, 30);
  EXPECT_EQ(e.layout->shape, (Dims{10}));
  EXPECT_FALSE(inferSlice(x, 1, 2, 11, 1));
  EXPECT_FALSE(inferSlice(x, 1, 0, 4, 0));
}

TEST(Views, ViewNeedsCompatibleStrides) {
  Layout x{{4, 6}, {6, 1}, 0};
  ViewResult v = inferView(x, Dims{2, 2, 6});
  ASSERT_TRUE(v);
  EXPECT_EQ(v.layout->strides, (Dims{12, 6, 1}));
  Layout t{{6, 4}, {1, 6}, 0}; // a transpose
  EXPECT_FALSE(inferView(t, Dims{24}));
  ViewResult split = inferView(t, Dims{6, 2, 2});
  ASSERT_TRUE(split);
  EXPECT_EQ(split.layout->strides, (Dims{1, 12, 6}));
}

TEST(Views, AsStridedStaysInsideTheOperand) {
  Layout x{{8}, {1}, 0};
  EXPECT_TRUE(checkAsStrided(x, Layout{{3, 4}, {2, 1}, 0}));
  EXPECT_FALSE(checkAsStrided(x, Layout{{3, 4}, {3, 1}, 0}));
}

TEST(Limits, CheckedNumElements) {
  EXPECT_EQ(checkedNumElements(Dims{4, 13, 33}), 1716);
  EXPECT_FALSE(checkedNumElements(Dims{int64_t(1) << 32, int64_t(1) << 32}));
  EXPECT_FALSE(checkedNumElements(Dims{INT64_MAX, 2}));
  EXPECT_EQ(checkedNumElements(Dims{kMaxElements}), kMaxElements);
  EXPECT_FALSE(checkedNumElements(Dims{kMaxElements + 1}));
  EXPECT_FALSE(checkedNumElements(Dims{-1}));
}

TEST(Limits, StorageExtentOfTheLargestAddress) {
  // The largest address is INT64_MAX: one past it does not fit.
  EXPECT_FALSE(storageExtent(Layout{{2}, {INT64_MAX}, 0}));
  EXPECT_FALSE(storageExtent(Layout{{2}, {INT64_MAX - 1}, 1}));
  EXPECT_EQ(storageExtent(Layout{{2}, {INT64_MAX - 1}, 0}), INT64_MAX);
  EXPECT_EQ(storageExtent(Layout{{0}, {1}, 7}), 7);
}

TEST(Limits, EmptyTensorsAreBoundedByTheirNonZeroDims) {
  EXPECT_EQ(checkedNumElements(Dims{0, int64_t(1) << 20, int64_t(1) << 20}), 0);
  // In any order: the product of the non-zero dims bounds every partial
  // product, so a zero dim does not excuse huge ones.
  EXPECT_FALSE(checkedNumElements(Dims{0, int64_t(1) << 62}));
  EXPECT_FALSE(checkedNumElements(Dims{int64_t(1) << 62, int64_t(1) << 62, 0}));
}

// The view rules are plain functions that any caller may give any layout:
// their arithmetic is checked even where a verified type could not overflow.
TEST(Limits, SliceWithAHugeStepDoesNotOverflow) {
  Layout x{{4}, {1}, 0};
  ViewResult r = inferSlice(x, 0, 0, 4, INT64_MAX);
  ASSERT_TRUE(r) << r.error;
  EXPECT_EQ(*r.layout, (Layout{{1}, {INT64_MAX}, 0}));
  r = inferSlice(x, 0, 1, 4, INT64_MAX - 1);
  ASSERT_TRUE(r) << r.error;
  EXPECT_EQ(r.layout->shape, Dims{1});
  r = inferSlice(Layout{{4}, {2}, 0}, 0, 0, 4, int64_t(1) << 62);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error, "the result's stride, stride 2 of dim 0 times step "
                     "4611686018427387904, overflows a 64-bit integer");
}

TEST(Limits, OffsetOverflowNamesThePosition) {
  Layout wide{{2, 3}, {INT64_MAX, 1}, INT64_MAX};
  ViewResult r = inferSelect(wide, 0, 1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error, "the result's offset, 9223372036854775807 + index 1 times "
                     "stride 9223372036854775807, overflows a 64-bit integer");
  r = inferSlice(wide, 0, 1, 2, 1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error, "the result's offset, 9223372036854775807 + start 1 times "
                     "stride 9223372036854775807, overflows a 64-bit integer");
}

TEST(Limits, OffsetsAndStridesOfViewsAreChecked) {
  Layout wide{{2, 3}, {INT64_MAX, 1}, INT64_MAX};
  EXPECT_FALSE(inferSelect(wide, 0, 1));
  EXPECT_FALSE(inferSlice(wide, 0, 1, 2, 1));
  EXPECT_FALSE(inferUnsqueeze(wide, 0));
  Layout x{{3, 1}, {1, INT64_MAX}, 0};
  ViewResult r = inferView(x, Dims{1, 3, 1});
  ASSERT_TRUE(r) << r.error;
  EXPECT_EQ(r.layout->strides[1], 1);
}

} // namespace
