//===- MatmulLayoutTest.cpp - The in-place reading of matmul operands -----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Support/MatmulLayout.h"

#include <numeric>

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

// GPT-2's bf16 logits, [8192, 768] @ [768, 50257] with the tied embedding
// [50257, 768] read column-major: 8 classes (50257 is odd).
const MatmulOperandLayout kRowMajorLhs{false, 768, 0};
const MatmulOperandLayout kColumnMajorWeight{true, 768, 0};

TEST(MatmulRowClasses, OddColumnsOfBf16TakeEightClasses) {
  EXPECT_EQ(matmulRowClasses(8192, 50257, 2, kRowMajorLhs, 0,
                             kColumnMajorWeight, 0),
            8);
  // Rows 16-byte aligned every 4, 2 rows: fewer classes.
  EXPECT_EQ(matmulRowClasses(8192, 50, 2, kRowMajorLhs, 0, kColumnMajorWeight,
                             0),
            4);
  EXPECT_EQ(matmulRowClasses(8192, 52, 2, kRowMajorLhs, 0, kColumnMajorWeight,
                             0),
            2);
}

TEST(MatmulRowClasses, OnlyWhereEveryCallIsAligned) {
  auto classes = [](int64_t rows, int64_t columns, int64_t bytes,
                    MatmulOperandLayout lhs, int64_t lhsOffset,
                    MatmulOperandLayout rhs, int64_t rhsOffset) {
    return matmulRowClasses(rows, columns, bytes, lhs, lhsOffset, rhs,
                            rhsOffset);
  };
  // Aligned rows already, f32, too few columns, too few rows per class.
  EXPECT_EQ(classes(8192, 50264, 2, kRowMajorLhs, 0, kColumnMajorWeight, 0),
            std::nullopt);
  EXPECT_EQ(classes(8192, 50257, 4, kRowMajorLhs, 0, kColumnMajorWeight, 0),
            std::nullopt);
  EXPECT_EQ(classes(8192, 15, 2, kRowMajorLhs, 0, kColumnMajorWeight, 0),
            std::nullopt);
  EXPECT_EQ(classes(8 * kMinRowsPerClass - 1, 50257, 2, kRowMajorLhs, 0,
                    kColumnMajorWeight, 0),
            std::nullopt);
  EXPECT_EQ(classes(8 * kMinRowsPerClass, 50257, 2, kRowMajorLhs, 0,
                    kColumnMajorWeight, 0),
            8);
  // A transposed lhs, a row-major weight, unaligned leading dimensions or
  // offsets.
  EXPECT_EQ(classes(8192, 50257, 2, {true, 8192, 0}, 0, kColumnMajorWeight, 0),
            std::nullopt);
  EXPECT_EQ(classes(8192, 50257, 2, kRowMajorLhs, 0, {false, 50257, 0}, 0),
            std::nullopt);
  EXPECT_EQ(classes(8192, 50257, 2, {false, 772, 0}, 0, kColumnMajorWeight, 0),
            std::nullopt);
  EXPECT_EQ(classes(8192, 50257, 2, kRowMajorLhs, 4, kColumnMajorWeight, 0),
            std::nullopt);
  EXPECT_EQ(classes(8192, 50257, 2, kRowMajorLhs, 0, kColumnMajorWeight, 8),
            8);
}

TEST(MatmulRowClassParts, GptLogits) {
  std::vector<MatmulPart> parts = matmulRowClassParts(8192, 50257, 8, 2);
  ASSERT_EQ(parts.size(), 10u);
  // Class 0 from column 0, class j from column 8 - j: element
  // j * 50257 + 8 - j = 50256 * j + 8, a multiple of 8.
  EXPECT_EQ(parts[0], (MatmulPart{0, 8, 1024, 0, 50256}));
  EXPECT_EQ(parts[1], (MatmulPart{1, 8, 1024, 7, 50248}));
  EXPECT_EQ(parts[6], (MatmulPart{6, 8, 1024, 2, 50248}));
  EXPECT_EQ(parts[7], (MatmulPart{7, 8, 1024, 1, 50256}));
  // The columns before the latest start (7) and after the earliest end
  // (2 + 50248), over all rows.
  EXPECT_EQ(parts[8], (MatmulPart{0, 1, 8192, 0, 7}));
  EXPECT_EQ(parts[9], (MatmulPart{0, 1, 8192, 50250, 7}));
}

/// Every element of a `[rows, columns]` product is written by some part,
/// and no part writes outside it.
void expectCovers(int64_t rows, int64_t columns, int64_t classes) {
  std::vector<int> written(rows * columns, 0);
  for (const MatmulPart &part : matmulRowClassParts(rows, columns, classes, 2))
    for (int64_t i = 0; i < part.rows; ++i) {
      int64_t row = part.firstRow + i * part.rowStep;
      ASSERT_LT(row, rows);
      ASSERT_LE(part.firstColumn + part.columns, columns);
      // A class's rows start at a 16-byte aligned element.
      if (part.rowStep > 1)
        EXPECT_EQ((row * columns + part.firstColumn) % 8, 0);
      for (int64_t c = 0; c < part.columns; ++c)
        ++written[row * columns + part.firstColumn + c];
    }
  for (int64_t e = 0; e < rows * columns; ++e)
    ASSERT_GT(written[e], 0) << "element " << e << " of [" << rows << ", "
                             << columns << "] in " << classes << " classes";
}

TEST(MatmulRowClassParts, CoverEveryElement) {
  for (int64_t columns : {16, 17, 23, 50, 52, 101})
    for (int64_t rows : {1, 3, 8, 9, 37})
      expectCovers(rows, columns, 8 / std::gcd<int64_t>(8, columns));
}

} // namespace
