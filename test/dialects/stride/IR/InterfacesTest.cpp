//===- InterfacesTest.cpp - The stride dialect's op interfaces ------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// ReductionOpInterface, IndexedOpInterface and IndexScatterOpInterface give
// each op of their family the answers its semantics (python-free-docs/dialect.md) say;
// ops that can fail at run time are not speculatable.
//
//===----------------------------------------------------------------------===//

#include "ParsedOpsTest.h"
#include "dialects/stride/IR/StrideOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cmath>

using namespace mlir;
using namespace stride;

namespace {

using InterfacesTest = ParsedOpsTest;

constexpr const char *kReductions = R"mlir(
func.func @f(%x: !stride.tensor<2x3x4xf32>) {
  %0 = stride.sum %x dims [2, 0] : !stride.tensor<2x3x4xf32> -> !stride.tensor<3xf32>
  %1 = stride.mean %x dims [1] keepdim : !stride.tensor<2x3x4xf32> -> !stride.tensor<2x1x4xf32>
  %2 = stride.prod %x dims [0] : !stride.tensor<2x3x4xf32> -> !stride.tensor<3x4xf32>
  %3 = stride.max %x dims [1] : !stride.tensor<2x3x4xf32> -> !stride.tensor<2x4xf32>
  %4 = stride.min %x dims [1] : !stride.tensor<2x3x4xf32> -> !stride.tensor<2x4xf32>
  return
}
)mlir";

constexpr const char *kArgReductions = R"mlir(
func.func @f(%x: !stride.tensor<2x3x4xf32>) {
  %0 = stride.argmax %x dim 2 : !stride.tensor<2x3x4xf32> -> !stride.tensor<2x3xi64>
  %1 = stride.argmin %x dim 0 keepdim : !stride.tensor<2x3x4xf32> -> !stride.tensor<1x3x4xi64>
  return
}
)mlir";

// argmax and argmin reduce their one dim; their identity is max's and
// min's, the value half of their (value, index) pairs.
TEST_F(InterfacesTest, ArgReductionsGiveTheirDimAndCombiner) {
  std::vector<Operation *> ops = parseOps(kArgReductions);
  ASSERT_EQ(ops.size(), 2u);
  Type f32 = Float32Type::get(&context);
  auto argmax = cast<ReductionOpInterface>(ops[0]);
  auto argmin = cast<ReductionOpInterface>(ops[1]);
  EXPECT_EQ(argmax.getReducedDims(), SmallVector<int64_t>{2});
  EXPECT_EQ(argmin.getReducedDims(), SmallVector<int64_t>{0});
  EXPECT_FALSE(argmax.getKeepdim());
  EXPECT_TRUE(argmin.getKeepdim());
  EXPECT_EQ(argmax.getCombiner(), ReductionCombiner::argmax);
  EXPECT_EQ(argmin.getCombiner(), ReductionCombiner::argmin);
  EXPECT_FALSE(argmax.isAverage());
  EXPECT_EQ(cast<FloatAttr>(argmax.getIdentity(f32)).getValueAsDouble(),
            -INFINITY);
  EXPECT_EQ(cast<FloatAttr>(argmin.getIdentity(f32)).getValueAsDouble(),
            INFINITY);
}

TEST_F(InterfacesTest, ReductionsGiveDimsKeepdimAndCombiner) {
  std::vector<Operation *> ops = parseOps(kReductions);
  ASSERT_EQ(ops.size(), 5u);
  struct Expected {
    SmallVector<int64_t> dims;
    bool keepdim;
    ReductionCombiner combiner;
    bool average;
  } expected[] = {
      {{0, 2}, false, ReductionCombiner::add, false},
      {{1}, true, ReductionCombiner::add, true},
      {{0}, false, ReductionCombiner::mul, false},
      {{1}, false, ReductionCombiner::max, false},
      {{1}, false, ReductionCombiner::min, false},
  };
  for (auto [op, want] : llvm::zip(ops, expected)) {
    auto reduction = dyn_cast<ReductionOpInterface>(op);
    ASSERT_TRUE(reduction) << op->getName().getStringRef().str();
    EXPECT_EQ(reduction.getInput(), op->getOperand(0));
    EXPECT_EQ(reduction.getReducedDims(), want.dims);
    EXPECT_EQ(reduction.getKeepdim(), want.keepdim);
    EXPECT_EQ(reduction.getCombiner(), want.combiner);
    EXPECT_EQ(reduction.isAverage(), want.average);
  }
}

TEST_F(InterfacesTest, ReductionIdentities) {
  std::vector<Operation *> ops = parseOps(kReductions);
  ASSERT_EQ(ops.size(), 5u);
  Type f32 = Float32Type::get(&context);
  Type i8 = IntegerType::get(&context, 8);
  auto floatIdentity = [&](Operation *op) {
    TypedAttr identity = cast<ReductionOpInterface>(op).getIdentity(f32);
    EXPECT_EQ(identity.getType(), f32);
    return cast<FloatAttr>(identity).getValueAsDouble();
  };
  auto intIdentity = [&](Operation *op) {
    TypedAttr identity = cast<ReductionOpInterface>(op).getIdentity(i8);
    EXPECT_EQ(identity.getType(), i8);
    return cast<IntegerAttr>(identity).getInt();
  };
  EXPECT_EQ(floatIdentity(ops[0]), 0.0);
  EXPECT_EQ(floatIdentity(ops[1]), 0.0);
  EXPECT_EQ(floatIdentity(ops[2]), 1.0);
  EXPECT_EQ(floatIdentity(ops[3]), -INFINITY);
  EXPECT_EQ(floatIdentity(ops[4]), INFINITY);
  EXPECT_EQ(intIdentity(ops[0]), 0);
  EXPECT_EQ(intIdentity(ops[2]), 1);
  EXPECT_EQ(intIdentity(ops[3]), -128);
  EXPECT_EQ(intIdentity(ops[4]), 127);
}

constexpr const char *kIndexed = R"mlir(
func.func @f(%x: !stride.tensor<4x3xf32>, %i: !stride.tensor<2x3xi64>,
             %s: !stride.tensor<2x3xf32>, %j: !stride.tensor<2xi32>) {
  %0 = stride.scatter %x, %i, %s dim 0 : !stride.tensor<4x3xf32>, !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
  %1 = stride.scatter_add %x, %i, %s dim 0 : !stride.tensor<4x3xf32>, !stride.tensor<2x3xi64>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
  %2 = stride.index_add %x, %j, %s dim 0 : !stride.tensor<4x3xf32>, !stride.tensor<2xi32>, !stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>
  %3 = stride.gather %x, %i dim 1 : !stride.tensor<4x3xf32>, !stride.tensor<2x3xi64> -> !stride.tensor<2x3xf32>
  %4 = stride.index_select %x, %j dim 1 : !stride.tensor<4x3xf32>, !stride.tensor<2xi32> -> !stride.tensor<4x2xf32>
  return
}
)mlir";

TEST_F(InterfacesTest, IndexScattersGiveOperandsAndKind) {
  std::vector<Operation *> ops = parseOps(kIndexed);
  ASSERT_EQ(ops.size(), 5u);
  struct Expected {
    bool accumulating;
    bool sliceIndex;
  } expected[] = {{false, false}, {true, false}, {true, true}};
  for (auto [op, want] : llvm::zip(ArrayRef(ops).take_front(3), expected)) {
    auto scatter = dyn_cast<IndexScatterOpInterface>(op);
    ASSERT_TRUE(scatter) << op->getName().getStringRef().str();
    EXPECT_EQ(scatter.getInput(), op->getOperand(0));
    EXPECT_EQ(scatter.getIndex(), op->getOperand(1));
    EXPECT_EQ(scatter.getSrc(), op->getOperand(2));
    EXPECT_EQ(scatter.getDim(), 0);
    EXPECT_EQ(scatter.isAccumulating(), want.accumulating);
    EXPECT_EQ(scatter.isSliceIndex(), want.sliceIndex);
  }
  EXPECT_FALSE(isa<IndexScatterOpInterface>(ops[3]));
  EXPECT_FALSE(isa<IndexScatterOpInterface>(ops[4]));
}

TEST_F(InterfacesTest, IndexedOpsGiveTheIndexOperand) {
  std::vector<Operation *> ops = parseOps(kIndexed);
  ASSERT_EQ(ops.size(), 5u);
  int64_t dims[] = {0, 0, 0, 1, 1};
  for (auto [op, dim] : llvm::zip(ops, dims)) {
    auto indexed = dyn_cast<IndexedOpInterface>(op);
    ASSERT_TRUE(indexed) << op->getName().getStringRef().str();
    EXPECT_EQ(indexed.getInput(), op->getOperand(0));
    EXPECT_EQ(&indexed.getIndexMutable(), &op->getOpOperand(1));
    EXPECT_EQ(indexed.getDim(), dim);
  }
}

TEST_F(InterfacesTest, OpsThatCanFailAreNotSpeculatable) {
  std::vector<Operation *> ops = parseOps(R"mlir(
func.func @f(%x: !stride.tensor<4xf32>, %n: !stride.tensor<4xi32>) {
  %0 = stride.div %x, %x : !stride.tensor<4xf32>, !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %1 = stride.div %n, %n : !stride.tensor<4xi32>, !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  %2 = stride.gather %x, %n dim 0 : !stride.tensor<4xf32>, !stride.tensor<4xi32> -> !stride.tensor<4xf32>
  %3 = stride.add %n, %n : !stride.tensor<4xi32>, !stride.tensor<4xi32> -> !stride.tensor<4xi32>
  return
}
)mlir");
  ASSERT_EQ(ops.size(), 4u);
  // Float division and addition: pure.
  EXPECT_TRUE(isPure(ops[0]));
  EXPECT_TRUE(isPure(ops[3]));
  // Integer division (by zero) and gather (an index out of range) can fail:
  // no memory effects, so dead ones are erased, but never speculated.
  for (Operation *op : {ops[1], ops[2]}) {
    EXPECT_TRUE(isMemoryEffectFree(op)) << op->getName().getStringRef().str();
    EXPECT_FALSE(isSpeculatable(op)) << op->getName().getStringRef().str();
    EXPECT_FALSE(isPure(op)) << op->getName().getStringRef().str();
  }
}

TEST_F(InterfacesTest, KernelsAreNotFunctionalButWriteFreshBuffers) {
  std::vector<Operation *> ops = parseOps(R"mlir(
func.func @f(%x: !stride.tensor<4xf32>) {
  %0 = stride.kernel "exp_kernel" ins(%x : !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4xf32>):
    %e = stride.exp %a : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    stride.yield %e : !stride.tensor<4xf32>
  }
  %1 = stride.exp %x : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  %2 = stride.expand %x : !stride.tensor<4xf32> -> !stride.tensor<2x4xf32, strides = [0, 1], offset = 0>
  return
}
)mlir");
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_FALSE(isFunctional(ops[0]));
  EXPECT_TRUE(writesFreshBuffers(ops[0]));
  EXPECT_TRUE(isFunctional(ops[1]));
  EXPECT_TRUE(writesFreshBuffers(ops[1]));
  EXPECT_FALSE(isFunctional(ops[2]));
  EXPECT_FALSE(writesFreshBuffers(ops[2]));
}

} // namespace
