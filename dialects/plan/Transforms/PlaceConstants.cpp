//===- PlaceConstants.cpp - Large constants become plan buffers -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-place-constants (Passes.td): a large stride.constant in an outlined
// kernel becomes a kernel parameter bound to a plan.constant; a kernel that
// only passes such constants through is not dispatched.
//
//===----------------------------------------------------------------------===//

#include "dialects/plan/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace stride::plan {
#define GEN_PASS_DEF_PLACECONSTANTS
#include "dialects/plan/Transforms/Passes.h.inc"
} // namespace stride::plan

using namespace mlir;

namespace stride::plan {
namespace {

/// A constant that left a kernel: its new parameter's position among the
/// kernel body's arguments, and the constant itself.
struct PlacedConstant {
  unsigned argument;
  ElementsAttr value;
  StridedTensorType type;
};

/// Whether the kernel does nothing with `constant` but write it out: a
/// kernel of its own would copy it into a buffer at every run.
bool onlyYielded(stride::ConstantOp constant) {
  return llvm::all_of(constant->getUsers(), [](Operation *user) {
    return isa<stride::YieldOp>(user);
  });
}

/// Adds input `index` to the inputs `kernel` reads before its wait
/// (kReadOnlyInputsAttrName): a constant it was to preload that became a
/// parameter.
void markReadOnly(KernelOp kernel, unsigned index) {
  SmallVector<int64_t> inputs;
  if (auto marked =
          kernel->getAttrOfType<DenseI64ArrayAttr>(kReadOnlyInputsAttrName))
    llvm::append_range(inputs, marked.asArrayRef());
  inputs.push_back(index);
  kernel->setAttr(kReadOnlyInputsAttrName,
                  DenseI64ArrayAttr::get(kernel.getContext(), inputs));
}

/// Turns the large constants of `kernel`, and those it only yields, into
/// parameters after its others.
SmallVector<PlacedConstant> hoistConstants(KernelOp kernel,
                                           int64_t maxInlineElements) {
  SmallVector<PlacedConstant> placed;
  Block &body = kernel.getBodyBlock();
  for (auto constant :
       llvm::make_early_inc_range(body.getOps<stride::ConstantOp>())) {
    if (constant.getValue().getNumElements() <= maxInlineElements &&
        !onlyYielded(constant))
      continue;
    StridedTensorType type = constant.getResult().getType();
    BlockArgument arg = body.addArgument(type, constant.getLoc());
    placed.push_back({arg.getArgNumber(), constant.getValue(), type});
    if (constant->hasAttr(kPreloadAttrName))
      markReadOnly(kernel, arg.getArgNumber());
    constant.getResult().replaceAllUsesWith(arg);
    constant.erase();
  }
  return placed;
}

/// One plan.constant per distinct constant and function, at its start.
class ConstantBuffers {
public:
  Value get(func::FuncOp function, const PlacedConstant &constant) {
    Value &buffer = buffers[{function, constant.value, constant.type}];
    if (!buffer) {
      auto builder = OpBuilder::atBlockBegin(&function.getBody().front());
      buffer = ConstantOp::create(builder, function.getLoc(), constant.value,
                                  Type(constant.type));
    }
    return buffer;
  }

private:
  llvm::DenseMap<std::tuple<Operation *, Attribute, Type>, Value> buffers;
};

/// Binds the placed constants to the new parameters in `dispatch`.
void bindConstants(DispatchOp dispatch,
                   ArrayRef<PlacedConstant> placed, ConstantBuffers &buffers) {
  unsigned inputsBefore = placed.front().argument;
  SmallVector<Value> operands(dispatch.getBuffers());
  auto function = dispatch->getParentOfType<func::FuncOp>();
  SmallVector<Value> constants;
  for (const PlacedConstant &constant : placed)
    constants.push_back(buffers.get(function, constant));
  operands.insert(operands.begin() + inputsBefore, constants.begin(),
                  constants.end());
  dispatch.getBuffersMutable().assign(operands);
}

/// The buffer holding result `index` of a dispatch whose kernel only
/// yields a placed constant unchanged (a weight the fusion pass left on its
/// own), or null. Such a dispatch would copy the weight on every run.
Value forwardedConstant(DispatchOp dispatch, KernelOp kernel, unsigned index) {
  Value yielded = kernel.getYield().getOperand(index);
  auto argument = dyn_cast<BlockArgument>(yielded);
  if (!argument)
    return {};
  Value source = dispatch.getBuffers()[argument.getArgNumber()];
  return source.getDefiningOp<ConstantOp>() ? source : Value();
}

/// Drops the dispatches of kernels that only pass constants through (their
/// bodies hold nothing but the yield): the results' readers read the
/// constant's buffer instead, which no step writes. A result the graph
/// returns keeps its copy (a returned value owns its plan.alloc).
void forwardConstantCopies(ModuleOp module) {
  SymbolTableCollection symbols;
  SmallVector<DispatchOp> dropped;
  module.walk([&](DispatchOp dispatch) {
    KernelOp kernel = dispatch.lookupKernel(symbols);
    if (!kernel || !llvm::hasSingleElement(kernel.getBodyBlock()))
      return;
    unsigned numArguments = kernel.getBodyBlock().getNumArguments();
    unsigned numResults = kernel.getYield().getNumOperands();
    SmallVector<std::pair<Value, Value>> replacements; // (result, constant)
    for (unsigned r = 0; r < numResults; ++r) {
      Value result = dispatch.getBuffers()[numArguments + r];
      Value constant = forwardedConstant(dispatch, kernel, r);
      bool returned = llvm::any_of(result.getUsers(), [](Operation *user) {
        return isa<OutputOp>(user);
      });
      if (!constant || returned || !result.getDefiningOp<AllocOp>())
        return;
      replacements.push_back({result, constant});
    }
    for (auto [result, constant] : replacements)
      result.replaceAllUsesExcept(constant, dispatch);
    dropped.push_back(dispatch);
  });
  llvm::SmallPtrSet<Operation *, 8> orphans;
  for (DispatchOp dispatch : dropped) {
    orphans.insert(dispatch.lookupKernel(symbols));
    SmallVector<Operation *> allocs;
    for (Value buffer : dispatch.getBuffers())
      if (auto alloc = buffer.getDefiningOp<AllocOp>())
        allocs.push_back(alloc);
    dispatch.erase();
    for (Operation *alloc : allocs)
      if (alloc->use_empty())
        alloc->erase();
  }
  // A kernel no dispatch runs any more is not compiled.
  module.walk([&](DispatchOp dispatch) {
    orphans.erase(dispatch.lookupKernel(symbols));
  });
  for (Operation *kernel : orphans)
    kernel->erase();
}

struct PlaceConstantsPass : impl::PlaceConstantsBase<PlaceConstantsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseMap<Operation *, SmallVector<PlacedConstant>> placedIn;
    for (auto executable : module.getOps<ExecutableOp>())
      for (auto kernel : executable.getBodyBlock().getOps<KernelOp>()) {
        SmallVector<PlacedConstant> placed =
            hoistConstants(kernel, maxInlineElements);
        if (!placed.empty())
          placedIn[kernel] = std::move(placed);
      }
    if (placedIn.empty())
      return;
    SymbolTableCollection symbols;
    ConstantBuffers buffers;
    module.walk([&](DispatchOp dispatch) {
      KernelOp kernel = dispatch.lookupKernel(symbols);
      auto it = placedIn.find(kernel);
      if (it != placedIn.end())
        bindConstants(dispatch, it->second, buffers);
    });
    forwardConstantCopies(module);
  }
};

} // namespace
} // namespace stride::plan
