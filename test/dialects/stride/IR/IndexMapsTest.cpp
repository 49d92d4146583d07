//===- IndexMapsTest.cpp - Views as maps of coordinates --------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Every view's index map agrees with its layout: for every element c of the
// result, address(result, c) == address(operand, map(c)). The layouts are
// what the verifier infers (inferResultLayout) and what the interpreter
// reads; the maps are what the kernel contract, the scheduler and the CUDA
// printer read. Chains compose (indexMapToBase) and simplify with bounds.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/IndexMaps.h"
#include "ParsedOpsTest.h"
#include "dialects/stride/IR/StrideOps.h"

using namespace mlir;
using namespace stride;

namespace {

using IndexMapsTest = ParsedOpsTest;

/// How gtest messages show an op or a map.
template <typename T> std::string text(const T &printable) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << printable;
  return s;
}

StridedTensorType tensorTypeOf(Value value) {
  return cast<StridedTensorType>(value.getType());
}

int64_t addressOf(const Layout &layout, ArrayRef<int64_t> coords) {
  int64_t address = layout.offset;
  for (size_t d = 0; d < coords.size(); ++d)
    address += coords[d] * layout.strides[d];
  return address;
}

/// Calls `fn` on every coordinate vector of `shape`.
void forEachCoordinate(ArrayRef<int64_t> shape,
                       llvm::function_ref<void(ArrayRef<int64_t>)> fn) {
  for (int64_t size : shape)
    if (size == 0)
      return;
  SmallVector<int64_t> c(shape.size(), 0);
  while (true) {
    fn(c);
    int64_t d = static_cast<int64_t>(shape.size()) - 1;
    for (; d >= 0; --d) {
      if (++c[d] < shape[d])
        break;
      c[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// Checks `map` against the layouts of `from` (the map's domain) and `to`
/// element by element; returns the number of elements checked.
int64_t expectMapMatchesLayouts(AffineMap map, StridedTensorType from,
                                StridedTensorType to, Operation *where) {
  int64_t checked = 0;
  forEachCoordinate(from.getShape(), [&](ArrayRef<int64_t> c) {
    SmallVector<int64_t> mapped = map.compose(c);
    ASSERT_EQ(mapped.size(), static_cast<size_t>(to.getRank()));
    for (int64_t d = 0; d < to.getRank(); ++d)
      ASSERT_TRUE(mapped[d] >= 0 && mapped[d] < to.getShape()[d])
          << "coordinate " << d << " out of range at " << text(*where);
    EXPECT_EQ(addressOf(from.getLayout(), c), addressOf(to.getLayout(), mapped))
        << text(*where) << " map " << text(map);
    ++checked;
  });
  return checked;
}

// One of each view op, over operands with strided, offset and broadcast
// layouts, and views of views.
constexpr const char *kViews = R"mlir(
func.func @f(%x: !stride.tensor<4x6xf32>, %p: !stride.tensor<3x1x5xf32, strides = [40, 7, 2], offset = 3>, %s: !stride.tensor<24xf32>) {
  %0 = stride.expand %p : !stride.tensor<3x1x5xf32, strides = [40, 7, 2], offset = 3> -> !stride.tensor<2x3x4x5xf32, strides = [0, 40, 0, 2], offset = 3>
  %1 = stride.unsqueeze %x dim 1 : !stride.tensor<4x6xf32> -> !stride.tensor<4x1x6xf32, strides = [6, 6, 1], offset = 0>
  %2 = stride.squeeze %p dims [1] : !stride.tensor<3x1x5xf32, strides = [40, 7, 2], offset = 3> -> !stride.tensor<3x5xf32, strides = [40, 2], offset = 3>
  %3 = stride.permute %p dims [2, 0, 1] : !stride.tensor<3x1x5xf32, strides = [40, 7, 2], offset = 3> -> !stride.tensor<5x3x1xf32, strides = [2, 40, 7], offset = 3>
  %4 = stride.slice %x dim 1 start 1 end 6 step 2 : !stride.tensor<4x6xf32> -> !stride.tensor<4x3xf32, strides = [6, 2], offset = 1>
  %5 = stride.select %p dim 2 index 4 : !stride.tensor<3x1x5xf32, strides = [40, 7, 2], offset = 3> -> !stride.tensor<3x1xf32, strides = [40, 7], offset = 11>
  %6 = stride.view %x : !stride.tensor<4x6xf32> -> !stride.tensor<2x3x4xf32, strides = [12, 4, 1], offset = 0>
  %7 = stride.view %6 : !stride.tensor<2x3x4xf32, strides = [12, 4, 1], offset = 0> -> !stride.tensor<24xf32, strides = [1], offset = 0>
  %8 = stride.permute %6 dims [2, 0, 1] : !stride.tensor<2x3x4xf32, strides = [12, 4, 1], offset = 0> -> !stride.tensor<4x2x3xf32, strides = [1, 12, 4], offset = 0>
  %9 = stride.as_strided %s : !stride.tensor<24xf32> -> !stride.tensor<3x4xf32, strides = [5, 2], offset = 1>
  %10 = stride.as_strided %x : !stride.tensor<4x6xf32> -> !stride.tensor<5x2xf32, strides = [3, 7], offset = 2>
  %11 = stride.as_strided %8 : !stride.tensor<4x2x3xf32, strides = [1, 12, 4], offset = 0> -> !stride.tensor<6x2xf32, strides = [2, 1], offset = 5>
  %12 = stride.view %x : !stride.tensor<4x6xf32> -> !stride.tensor<24xf32, strides = [1], offset = 0>
  %13 = stride.view %12 : !stride.tensor<24xf32, strides = [1], offset = 0> -> !stride.tensor<4x6xf32, strides = [6, 1], offset = 0>
  return
}
)mlir";

TEST_F(IndexMapsTest, EveryViewsMapAgreesWithItsLayout) {
  std::vector<Operation *> ops = parseOps(kViews);
  ASSERT_EQ(ops.size(), 14u);
  int64_t checked = 0;
  for (Operation *op : ops) {
    auto view = cast<ViewOpInterface>(op);
    AffineMap map = view.getIndexMap();
    ASSERT_TRUE(map) << text(*op);
    EXPECT_EQ(map.getNumDims(), tensorTypeOf(op->getResult(0)).getRank());
    checked += expectMapMatchesLayouts(map, tensorTypeOf(op->getResult(0)),
                                       view.getSource().getType(), op);
  }
  EXPECT_EQ(checked, 343); // every element of every result
}

TEST_F(IndexMapsTest, ChainsComposeToTheBase) {
  std::vector<Operation *> ops = parseOps(kViews);
  ASSERT_EQ(ops.size(), 14u);
  // view(view(x)), permute(view(x)), as_strided(permute(view(x))) and
  // view(view(x)) read %x.
  for (Operation *op : {ops[7], ops[8], ops[11], ops[13]}) {
    Value value = op->getResult(0);
    AffineMap map = indexMapToBase(value);
    ASSERT_TRUE(map) << text(*op);
    Value base = value;
    while (auto view = base.getDefiningOp<ViewOpInterface>())
      base = view.getSource();
    EXPECT_GT(expectMapMatchesLayouts(map, tensorTypeOf(value),
                                      tensorTypeOf(base), op),
              0);
  }
}

TEST_F(IndexMapsTest, BoundsFoldWhatTheyProve) {
  std::vector<Operation *> ops = parseOps(kViews);
  ASSERT_EQ(ops.size(), 14u);
  MLIRContext *ctx = &context;
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
  // 4x6 viewed as 24 and back is the identity, which needs d1 < 6.
  EXPECT_TRUE(indexMapToBase(ops[13]->getResult(0)).isIdentity());
  EXPECT_EQ(simplifyInBounds((d0 * 6 + d1).floorDiv(6), {4, 6}), d0);
  EXPECT_EQ(simplifyInBounds((d0 * 6 + d1) % 6, {4, 6}), d1);
  // Nested quotients are one quotient.
  EXPECT_EQ(simplifyInBounds(d0.floorDiv(4).floorDiv(3), {100}),
            d0.floorDiv(12));
  // Without the bound nothing folds.
  EXPECT_NE(simplifyInBounds((d0 * 6 + d1).floorDiv(6), {4, 7}), d0);
  // A dim of size 1 reads 0.
  EXPECT_EQ(simplifyInBounds(d0 * 5 + d1, {1, 6}), d1);
}

TEST_F(IndexMapsTest, WindowsOverADenseTensorReadTheirDigits) {
  // ResNet's max pool: 3 x 3 windows, stride 2, over a padded
  // [64, 64, 114, 114] row-major tensor, as_strided to [64, 64, 56, 56, 3,
  // 3] with strides [831744, 12996, 228, 2, 114, 1]. Each coordinate of
  // the tensor is a sum of the window's coordinates, with no division.
  MLIRContext *ctx = &context;
  SmallVector<AffineExpr> d;
  for (unsigned k = 0; k < 6; ++k)
    d.push_back(getAffineDimExpr(k, ctx));
  AffineExpr address = d[0] * 831744 + d[1] * 12996 + d[2] * 228 + d[3] * 2 +
                       d[4] * 114 + d[5];
  SmallVector<int64_t> sizes = {64, 64, 56, 56, 3, 3};
  EXPECT_EQ(simplifyInBounds(address.floorDiv(831744), sizes), d[0]);
  EXPECT_EQ(simplifyInBounds(address.floorDiv(12996) % 64, sizes), d[1]);
  EXPECT_EQ(simplifyInBounds(address.floorDiv(114) % 114, sizes),
            d[2] * 2 + d[4]);
  EXPECT_EQ(simplifyInBounds(address % 114, sizes), d[3] * 2 + d[5]);
  // A constant offset inside the digit moves it: the window one row down.
  EXPECT_EQ(simplifyInBounds((address + 114).floorDiv(114) % 114, sizes),
            d[2] * 2 + d[4] + 1);
  // A copy iterating over a matrix of windows [P, 147] (ResNet's stem: 3
  // channels x 7 x 7) reads its row p's digits through p alone.
  AffineExpr p = d[0], k = d[1];
  SmallVector<int64_t> im2col = {802816, 147};
  EXPECT_EQ(simplifyInBounds((p * 147 + k).floorDiv(16464), im2col),
            p.floorDiv(112));
  EXPECT_EQ(simplifyInBounds((p * 147 + k) % 16464, im2col),
            (p % 112) * 147 + k);
  // Windows that can carry into the next digit (a 5-wide window at stride
  // 2 reaches 2 * 55 + 4 = 114) keep the division.
  SmallVector<int64_t> carrying = {64, 64, 56, 56, 3, 5};
  EXPECT_NE(simplifyInBounds(address % 114, carrying), d[3] * 2 + d[5]);
}

TEST_F(IndexMapsTest, WindowMapsAgreeWithTheirLayouts) {
  // as_strided windows of a dense operand, padded and strided, one of them
  // offset: the simplified maps still name the element the layout does.
  std::vector<Operation *> ops = parseOps(R"mlir(
func.func @f(%x: !stride.tensor<2x3x9x9xf32>) {
  %0 = stride.as_strided %x : !stride.tensor<2x3x9x9xf32> -> !stride.tensor<2x3x4x4x3x3xf32, strides = [243, 81, 18, 2, 9, 1], offset = 0>
  %1 = stride.as_strided %x : !stride.tensor<2x3x9x9xf32> -> !stride.tensor<2x3x3x3x2x2xf32, strides = [243, 81, 27, 3, 9, 1], offset = 10>
  return
}
)mlir");
  ASSERT_EQ(ops.size(), 2u);
  for (Operation *op : ops) {
    AffineMap map = simplifyInBounds(cast<ViewOpInterface>(op).getIndexMap(),
                                     tensorTypeOf(op->getResult(0)).getShape());
    EXPECT_GT(expectMapMatchesLayouts(map, tensorTypeOf(op->getResult(0)),
                                      tensorTypeOf(op->getOperand(0)), op),
              0);
    for (AffineExpr e : map.getResults())
      EXPECT_TRUE(text(e).find("floordiv") == std::string::npos &&
                  text(e).find("mod") == std::string::npos)
          << text(map);
  }
}

TEST_F(IndexMapsTest, AsStridedOfAnOverlappingOperandHasNoMap) {
  std::vector<Operation *> ops = parseOps(R"mlir(
func.func @f(%x: !stride.tensor<4x6xf32>) {
  %0 = stride.expand %x : !stride.tensor<4x6xf32> -> !stride.tensor<2x4x6xf32, strides = [0, 6, 1], offset = 0>
  %1 = stride.as_strided %0 : !stride.tensor<2x4x6xf32, strides = [0, 6, 1], offset = 0> -> !stride.tensor<3xf32, strides = [1], offset = 2>
  return
}
)mlir");
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_FALSE(cast<ViewOpInterface>(ops[1]).getIndexMap());
  EXPECT_FALSE(indexMapToBase(ops[1]->getResult(0)));
}

} // namespace
