//===- Debugging.cpp - Passes behind the debugging tools ------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-keep-values makes every buffer a kernel or library call writes a
// graph output, so a run can be compared value by value with the reference
// interpreter (stride-run --compare-values). stride-test-inject-fault is a
// deliberate miscompilation that the tests of the debugging tools find
// (python-free-docs/debugging.md).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"
#include "dialects/stride/IR/StrideDialect.h"

#include "mlir/IR/Builders.h"

namespace stride {
#define GEN_PASS_DEF_KEEPVALUES
#define GEN_PASS_DEF_TESTINJECTFAULT
#include "dialects/stride/Transforms/Passes.h.inc"
} // namespace stride

using namespace mlir;
using namespace stride;

std::string stride::keptValueName(unsigned index) {
  return std::string(kKeptValuePrefix) + std::to_string(index);
}

namespace {

/// Appends `values` to the results of `func`, named keptValueName(0), ...
void appendKeptOutputs(func::FuncOp func, ArrayRef<Value> values) {
  auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
  SmallVector<Type> resultTypes(func.getResultTypes());
  SmallVector<Attribute> resultAttrs;
  for (unsigned r = 0; r < func.getNumResults(); ++r)
    resultAttrs.push_back(func.getResultAttrDict(r)
                              ? Attribute(func.getResultAttrDict(r))
                              : DictionaryAttr::get(func.getContext()));
  Builder builder(func.getContext());
  for (auto [index, value] : llvm::enumerate(values)) {
    resultTypes.push_back(value.getType());
    resultAttrs.push_back(builder.getDictionaryAttr(builder.getNamedAttr(
        StrideDialect::kNameAttrName,
        builder.getStringAttr(keptValueName(index)))));
    ret->insertOperands(ret->getNumOperands(), value);
  }
  func.setFunctionType(
      builder.getFunctionType(func.getArgumentTypes(), resultTypes));
  func.setAllResultAttrs(resultAttrs);
}

struct KeepValuesPass : public stride::impl::KeepValuesBase<KeepValuesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<Value> kept;
    for (Operation &op : func.getBody().getOps())
      if (isa<KernelOp>(op) || isLibraryCall(&op))
        llvm::append_range(kept, op.getResults());
    appendKeptOutputs(func, kept);
  }
};

/// The op each faulty op kind is replaced by (same operands and types).
std::optional<StringRef> faultyCounterpart(StringRef op) {
  static constexpr std::pair<StringLiteral, StringLiteral> kSwaps[] = {
      {"add", "sub"}, {"mul", "div"}, {"maximum", "minimum"}};
  for (auto [a, b] : kSwaps) {
    if (op == a)
      return b;
    if (op == b)
      return a;
  }
  return std::nullopt;
}

/// True when `op`'s result is floating point: integer ops (indices, shapes
/// computed in the graph) are left alone, so a fault gives wrong values
/// rather than an index out of range.
bool computesFloats(Operation *op) {
  auto type = dyn_cast<StridedTensorType>(op->getResult(0).getType());
  return type && isa<FloatType>(type.getElementType());
}

struct TestInjectFaultPass
    : public stride::impl::TestInjectFaultBase<TestInjectFaultPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<StringRef> counterpart = faultyCounterpart(op);
    if (!counterpart) {
      getOperation().emitError()
          << "stride-test-inject-fault has no fault for '" << op
          << "': expected one of add, sub, mul, div, maximum, minimum";
      return signalPassFailure();
    }
    MLIRContext *context = &getContext();
    OperationName from("stride." + op, context);
    OperationName to("stride." + counterpart->str(), context);
    SmallVector<Operation *> faulty;
    getOperation().walk([&](Operation *candidate) {
      if (candidate->getName() == from && computesFloats(candidate))
        faulty.push_back(candidate);
    });
    for (Operation *original : faulty) {
      OpBuilder builder(original);
      OperationState state(original->getLoc(), to);
      state.addOperands(original->getOperands());
      state.addTypes(original->getResultTypes());
      state.addAttributes(original->getAttrs());
      Operation *replacement = builder.create(state);
      original->replaceAllUsesWith(replacement);
      original->erase();
    }
  }
};

} // namespace
