//===- KeepWeightsInL2.cpp - Weights kept in L2 across runs ---------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-keep-weights-in-l2 (Passes.td): gives the skinny products' weights,
// in the plan's order, L2 windows whose hits persist across runs, up to a
// budget of bytes.
//
//===----------------------------------------------------------------------===//

#include "dialects/plan/Transforms/Passes.h"

#include "llvm/ADT/DenseSet.h"

namespace stride::plan {
#define GEN_PASS_DEF_KEEPWEIGHTSINL2
#include "dialects/plan/Transforms/Passes.h.inc"
} // namespace stride::plan

using namespace mlir;

namespace stride::plan {
namespace {

bool isSkinnyProduct(KernelOp kernel) {
  KernelScheduleAttr schedule = scheduleOf(kernel);
  return schedule && schedule.getScheme() == KernelScheme::SkinnyMatmul;
}

/// The bytes of the storage a plan.constant holds.
int64_t constantBytes(ConstantOp constant) {
  return storageBytesOf(cast<StridedTensorType>(constant.getTensorType())).value_or(0);
}

/// The operand of `dispatch` that is its largest constant (the weight a
/// skinny product streams), or nullopt.
std::optional<unsigned> largestConstantOperand(DispatchOp dispatch) {
  std::optional<unsigned> largest;
  int64_t largestBytes = 0;
  for (auto [index, buffer] : llvm::enumerate(dispatch.getBuffers())) {
    auto constant = buffer.getDefiningOp<ConstantOp>();
    if (constant && constantBytes(constant) > largestBytes) {
      largest = index;
      largestBytes = constantBytes(constant);
    }
  }
  return largest;
}

struct KeepWeightsInL2Pass
    : public impl::KeepWeightsInL2Base<KeepWeightsInL2Pass> {
  using KeepWeightsInL2Base::KeepWeightsInL2Base;

  void runOnOperation() override {
    if (bytes < 0) {
      getOperation().emitError()
          << "stride-keep-weights-in-l2: bytes is " << static_cast<int64_t>(bytes)
          << "; expected 0 (none) or more";
      return signalPassFailure();
    }
    SymbolTableCollection symbols;
    int64_t left = bytes;
    llvm::DenseSet<Value> kept;
    getOperation().walk([&](DispatchOp dispatch) {
      if (left == 0)
        return WalkResult::interrupt();
      if (!isSkinnyProduct(dispatch.lookupKernel(symbols)))
        return WalkResult::advance();
      std::optional<unsigned> operand = largestConstantOperand(dispatch);
      if (!operand || !kept.insert(dispatch.getBuffers()[*operand]).second)
        return WalkResult::advance();
      int64_t window = std::min(
          left, constantBytes(dispatch.getBuffers()[*operand].getDefiningOp<ConstantOp>()));
      Builder builder(dispatch.getContext());
      dispatch.setL2ResidentOperandAttr(builder.getI64IntegerAttr(*operand));
      dispatch.setL2ResidentBytesAttr(builder.getI64IntegerAttr(window));
      left -= window;
      return WalkResult::advance();
    });
  }
};

} // namespace
} // namespace stride::plan
