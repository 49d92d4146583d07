//===- OutlineExecutable.cpp - Kernels out, the entry becomes a plan ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-outline-executable (Passes.td): each stride.kernel of the entry
// moves into one plan.executable, and the entry becomes steps over buffers.
//
//===----------------------------------------------------------------------===//

#include "stride/Dialect/Plan/Transforms/Passes.h"
#include "stride/Dialect/Stride/IR/Graph.h"
#include "stride/Dialect/Stride/IR/StrideAttrs.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace stride::plan {
#define GEN_PASS_DEF_OUTLINEEXECUTABLE
#include "stride/Dialect/Plan/Transforms/Passes.h.inc"
} // namespace stride::plan

using namespace mlir;

namespace stride::plan {

int64_t allocationBytes(int64_t bytes) {
  return std::max<int64_t>(16, (bytes + 15) / 16 * 16);
}

namespace {

/// Bytes of a tensor's storage (its layout's extent), or nullopt when it
/// overflows.
std::optional<int64_t> storageBytesOf(StridedTensorType type) {
  std::optional<int64_t> extent = storageExtent(type.getLayout());
  int64_t elementBytes = int64_t(dtypeSize(type.getDType()));
  if (!extent || *extent > std::numeric_limits<int64_t>::max() / elementBytes)
    return std::nullopt;
  return *extent * elementBytes;
}

/// Rewrites one entry function; `executable` receives its kernels.
class Outliner {
public:
  Outliner(func::FuncOp entry, ExecutableOp executable)
      : entry(entry), executable(executable), builder(entry.getContext()) {}

  LogicalResult run();

private:
  LogicalResult outlineKernel(KernelOp kernel);
  LogicalResult bindView(ViewOpInterface view);
  FailureOr<Value> allocFor(Value tensor, Location loc);
  LogicalResult rewriteReturn(func::ReturnOp ret);
  Value bufferOfOrError(Value tensor, Operation *user);

  func::FuncOp entry;
  ExecutableOp executable;
  OpBuilder builder;
  KernelNameTable names;
  /// The buffer that holds each tensor value (a view: its root's).
  llvm::DenseMap<Value, Value> bufferOf;
};

Value Outliner::bufferOfOrError(Value tensor, Operation *user) {
  Value buffer = bufferOf.lookup(tensor);
  if (!buffer)
    user->emitOpError() << "uses a value that has no buffer (not an "
                           "argument, a kernel result or a view of one)";
  return buffer;
}

LogicalResult Outliner::bindView(ViewOpInterface view) {
  Value buffer = bufferOfOrError(view.getSource(), view);
  if (!buffer)
    return failure();
  bufferOf[view->getResult(0)] = buffer;
  return success();
}

FailureOr<Value> Outliner::allocFor(Value tensor, Location loc) {
  auto type = cast<StridedTensorType>(tensor.getType());
  std::optional<int64_t> bytes = storageBytesOf(type);
  if (!bytes)
    return emitError(loc) << "the storage of " << type << " is too large";
  return AllocOp::create(builder, loc, allocationBytes(*bytes),
                         /*zeroed=*/false)
      .getResult();
}

LogicalResult Outliner::outlineKernel(KernelOp kernel) {
  builder.setInsertionPoint(kernel);
  SmallVector<Value> buffers;
  for (Value input : kernel.getInputs()) {
    Value buffer = bufferOfOrError(input, kernel);
    if (!buffer)
      return failure();
    buffers.push_back(buffer);
  }
  for (Value result : kernel.getResults()) {
    FailureOr<Value> buffer = allocFor(result, kernel.getLoc());
    if (failed(buffer))
      return failure();
    bufferOf[result] = *buffer;
    buffers.push_back(*buffer);
  }
  // Scratch starts zeroed and the kernel leaves it zeroed (Passes.td).
  if (auto schedule = kernel->getAttrOfType<KernelScheduleAttr>(
          KernelScheduleAttr::kAttrName))
    if (DenseI64ArrayAttr scratch = schedule.getScratch())
      for (int64_t bytes : scratch.asArrayRef())
        buffers.push_back(AllocOp::create(builder, kernel.getLoc(),
                                          allocationBytes(bytes),
                                          /*zeroed=*/true));

  std::string name = names.insert(kernel.getSymName());
  DispatchOp::create(
      builder, kernel.getLoc(),
      SymbolRefAttr::get(executable.getSymNameAttr(),
                         {FlatSymbolRefAttr::get(builder.getStringAttr(name))}),
      buffers);

  OpBuilder inExecutable = OpBuilder::atBlockEnd(&executable.getBodyBlock());
  auto outlined = KernelOp::create(inExecutable, kernel.getLoc(),
                                   kernel.getResultTypes(),
                                   inExecutable.getStringAttr(name),
                                   ValueRange());
  outlined->setDiscardableAttrs(kernel->getDiscardableAttrDictionary());
  outlined.getBody().takeBody(kernel.getBody());
  return success();
}

LogicalResult Outliner::rewriteReturn(func::ReturnOp ret) {
  builder.setInsertionPoint(ret);
  llvm::SmallPtrSet<Value, 8> returned;
  for (OpOperand &operand : ret->getOpOperands()) {
    Value value = operand.get();
    if (!isa_and_nonnull<KernelOp>(value.getDefiningOp()))
      return ret.emitOpError()
             << "returns as result #" << operand.getOperandNumber()
             << " a value that no kernel writes (an argument or a view); "
                "stride-legalize-layouts copies such results, and "
                "stride-outline-kernels puts the copy into a kernel";
    Value buffer = bufferOf.lookup(value);
    if (!returned.insert(value).second) {
      // Returned before: a buffer of its own, filled by a byte copy.
      auto source = buffer.getDefiningOp<AllocOp>();
      buffer = AllocOp::create(builder, ret.getLoc(), source.getSize(),
                               /*zeroed=*/false);
      CopyOp::create(builder, ret.getLoc(), source.getBuffer(), buffer,
                     *storageBytesOf(cast<StridedTensorType>(value.getType())));
    }
    operand.set(OutputOp::create(builder, ret.getLoc(), value.getType(), buffer));
  }
  return success();
}

LogicalResult Outliner::run() {
  Block &body = entry.getBody().front();
  builder.setInsertionPointToStart(&body);
  for (BlockArgument arg : entry.getArguments())
    bufferOf[arg] = InputOp::create(builder, arg.getLoc(), arg);

  SmallVector<Operation *> replaced;
  for (Operation &op : body) {
    LogicalResult done = success();
    if (auto view = dyn_cast<ViewOpInterface>(op))
      done = bindView(view);
    else if (auto kernel = dyn_cast<KernelOp>(op))
      done = outlineKernel(kernel);
    else if (isFunctional(&op))
      done = op.emitOpError() << "is outside a stride.kernel; the plan needs "
                                 "kernel formation (stride-outline-kernels) "
                                 "first";
    else
      continue;
    if (failed(done))
      return failure();
    replaced.push_back(&op);
  }
  if (failed(rewriteReturn(cast<func::ReturnOp>(body.getTerminator()))))
    return failure();
  for (Operation *op : llvm::reverse(replaced))
    op->erase();
  return success();
}

struct OutlineExecutablePass
    : impl::OutlineExecutableBase<OutlineExecutablePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<func::FuncOp> entry = findEntryFunction(module);
    if (failed(entry))
      return signalPassFailure();
    // Detached, then inserted by the symbol table, which renames it if
    // the module already has the name.
    OpBuilder builder(module.getContext());
    auto executable = ExecutableOp::create(
        builder, entry->getLoc(), (entry->getSymName() + "_kernels").str());
    SymbolTable(module).insert(executable, module.getBody()->begin());
    if (failed(Outliner(*entry, executable).run()))
      signalPassFailure();
  }
};

} // namespace
} // namespace stride::plan
