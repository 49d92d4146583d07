//===- MatmulLayoutTest.cpp - The in-place reading of matmul operands -----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Support/MatmulLayout.h"

#include <gtest/gtest.h>

using namespace stride;

namespace {

std::optional<MatmulOperandLayout> of(Dims shape, Dims strides,
                                      int64_t offset = 0) {
  return matmulOperandLayout(Layout{shape, strides, offset});
}

TEST(MatmulOperandLayout, RowMajor) {
  EXPECT_EQ(of({4, 8}, {8, 1}), (MatmulOperandLayout{false, 8, 0}));
  EXPECT_EQ(of({3, 4, 8}, {32, 8, 1}), (MatmulOperandLayout{false, 8, 32}));
}

TEST(MatmulOperandLayout, TransposedIsColumnMajor) {
  EXPECT_EQ(of({8, 4}, {1, 8}), (MatmulOperandLayout{true, 8, 0}));
  EXPECT_EQ(of({2, 33, 17}, {561, 1, 33}), (MatmulOperandLayout{true, 33, 561}));
}

TEST(MatmulOperandLayout, SlicedRowsKeepTheirLeadingDimension) {
  // Every other row of a 10x6 matrix, and a column window of it.
  EXPECT_EQ(of({5, 6}, {12, 1}), (MatmulOperandLayout{false, 12, 0}));
  EXPECT_EQ(of({10, 3}, {6, 1}, 2), (MatmulOperandLayout{false, 6, 0}));
}

TEST(MatmulOperandLayout, ZeroBatchStrideIsABroadcast) {
  EXPECT_EQ(of({3, 4, 8}, {0, 8, 1}), (MatmulOperandLayout{false, 8, 0}));
  EXPECT_EQ(of({2, 3, 4, 8}, {0, 0, 1, 4}), (MatmulOperandLayout{true, 4, 0}));
}

TEST(MatmulOperandLayout, BatchDimsCollapseOrNeedACopy) {
  EXPECT_EQ(of({2, 3, 4, 8}, {96, 32, 8, 1}),
            (MatmulOperandLayout{false, 8, 32}));
  // Size-1 batch dims do not count.
  EXPECT_EQ(of({2, 1, 4, 8}, {32, 7, 8, 1}), (MatmulOperandLayout{false, 8, 32}));
  // A gap between the outer batch dim and the inner one.
  EXPECT_EQ(of({2, 3, 4, 8}, {100, 32, 8, 1}), std::nullopt);
  // A broadcast outer batch over a real inner one.
  EXPECT_EQ(of({2, 3, 4, 8}, {0, 32, 8, 1}), std::nullopt);
}

TEST(MatmulOperandLayout, NeitherStrideOneNeedsACopy) {
  EXPECT_EQ(of({4, 8}, {16, 2}), std::nullopt);
  // A broadcast row: rows overlap.
  EXPECT_EQ(of({4, 8}, {0, 1}), std::nullopt);
  // Rows closer than a row is long (an overlapping window).
  EXPECT_EQ(of({4, 8}, {3, 1}), std::nullopt);
}

TEST(MatmulOperandLayout, VectorsAreReadEitherWay) {
  EXPECT_EQ(of({1, 8}, {100, 1}), (MatmulOperandLayout{false, 8, 0}));
  EXPECT_EQ(of({8, 1}, {5, 100}), (MatmulOperandLayout{false, 5, 0}));
  EXPECT_EQ(of({8, 1}, {1, 100}), (MatmulOperandLayout{false, 1, 0}));
  EXPECT_EQ(of({1, 1}, {0, 0}), (MatmulOperandLayout{false, 1, 0}));
}

} // namespace
