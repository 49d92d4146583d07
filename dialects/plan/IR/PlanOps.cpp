//===- PlanOps.cpp - The plan dialect: host programs ----------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "dialects/plan/IR/PlanOps.h"
#include "dialects/stride/IR/StrideAttrs.h"
#include "dialects/stride/IR/SymbolicSizes.h"
#include "stride/Support/BufferLimits.h"
#include "stride/Support/Layout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace stride;
using namespace stride::plan;

#include "dialects/plan/IR/PlanDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/plan/IR/PlanTypes.cpp.inc"

void PlanDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/plan/IR/PlanTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/plan/IR/PlanOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// ExecutableOp
//===----------------------------------------------------------------------===//

void ExecutableOp::build(OpBuilder &builder, OperationState &state,
                         StringRef name) {
  state.addAttribute(mlir::SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addRegion()->emplaceBlock();
}

LogicalResult ExecutableOp::verify() {
  for (Operation &op : getBodyBlock()) {
    if (isa<KernelOp>(op))
      continue;
    InFlightDiagnostic diag = emitOpError()
                              << "holds '" << op.getName()
                              << "'; an executable holds only stride.kernel ops";
    diag.attachNote(op.getLoc()) << "this op";
    return diag;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

LogicalResult InputOp::verify() {
  auto arg = dyn_cast<BlockArgument>(getTensor());
  auto function = (*this)->getParentOfType<func::FuncOp>();
  if (!arg || !function || arg.getOwner() != &function.getBody().front())
    return emitOpError() << "expects an argument of the enclosing function";
  return success();
}

LogicalResult StateOp::verify() {
  auto type = dyn_cast<StridedTensorType>(getTensorType());
  auto initType = cast<ShapedType>(getInit().getType());
  if (!type)
    return emitOpError() << "expects a !stride.tensor type, not "
                         << getTensorType();
  if (getName().empty())
    return emitOpError() << "expects a non-empty name";
  if (initType.getShape() != type.getShape() ||
      initType.getElementType() != type.getElementType())
    return emitOpError() << "initial value of type " << initType
                         << " does not match the shape and element type of "
                         << type;
  return success();
}

LogicalResult plan::ConstantOp::verify() {
  auto type = dyn_cast<StridedTensorType>(getTensorType());
  auto valueType = cast<ShapedType>(getValue().getType());
  if (!type)
    return emitOpError() << "expects a !stride.tensor type, not "
                         << getTensorType();
  if (valueType.getShape() != type.getShape() ||
      valueType.getElementType() != type.getElementType())
    return emitOpError() << "value of type " << valueType
                         << " does not match the shape and element type of "
                         << type;
  return success();
}

LogicalResult AllocOp::verify() {
  std::optional<int64_t> offset = getArenaOffset();
  if (!offset)
    return success();
  if (getZeroed())
    return emitOpError() << "is zeroed and in the arena; a zeroed buffer "
                            "keeps its zeros across runs, so it has storage "
                            "of its own";
  if (*offset % kArenaAlignment != 0)
    return emitOpError() << "has the arena offset " << *offset
                         << ", which is no multiple of " << kArenaAlignment;
  if (*offset > kMaxBufferBytes - static_cast<int64_t>(getSize()))
    return emitOpError() << "ends past 2^48 bytes of arena (offset "
                         << *offset << ", " << getSize() << " bytes)";
  return success();
}

/// An aliased output (a plan.output of a plan.input) reads the input's
/// storage at its own layout: the input must hold every element it reaches,
/// of the same element type, and no step may write it.
static LogicalResult verifyAlias(OutputOp output, InputOp input) {
  auto type = cast<StridedTensorType>(output.getTensor().getType());
  auto inputType = dyn_cast<StridedTensorType>(input.getTensor().getType());
  if (input.getWritten())
    return output.emitOpError()
           << "returns the storage of an input the plan writes; an aliased "
              "output is the input as the caller passed it";
  if (!inputType || inputType.getElementType() != type.getElementType())
    return output.emitOpError()
           << "of type " << type << " aliases an input of type "
           << input.getTensor().getType() << ", of another element type";
  // Over symbolic sizes, at the symbols' largest values, where the plan is
  // laid out (python-free-docs/symbolic-sizes.md): an extent grows with
  // each size.
  std::optional<Layout> layout = layoutAtLargest(type, output);
  std::optional<Layout> inputLayout = layoutAtLargest(inputType, output);
  std::optional<int64_t> extent, inputExtent;
  if (layout && inputLayout) {
    extent = storageExtent(*layout);
    inputExtent = storageExtent(*inputLayout);
  }
  if (!extent || !inputExtent || *extent > *inputExtent)
    return output.emitOpError()
           << "of type " << type << " reaches past the end of the storage "
           << "of the input it aliases, of type " << inputType;
  return success();
}

LogicalResult OutputOp::verify() {
  if (!isa<StridedTensorType>(getTensor().getType()))
    return emitOpError() << "expects a !stride.tensor result, not "
                         << getTensor().getType();
  if (auto input = getBuffer().getDefiningOp<InputOp>()) {
    if (failed(verifyAlias(*this, input)))
      return failure();
  } else if (!getBuffer().getDefiningOp<AllocOp>()) {
    return emitOpError() << "expects a buffer of a plan.alloc (a graph "
                            "output has storage of its own) or of a "
                            "plan.input (an aliased output)";
  }
  for (Operation *user : getTensor().getUsers())
    if (!isa<func::ReturnOp>(user))
      return emitOpError() << "is used by '" << user->getName()
                           << "'; only func.return uses a graph output";
  return success();
}

//===----------------------------------------------------------------------===//
// Steps
//===----------------------------------------------------------------------===//

KernelOp DispatchOp::lookupKernel(SymbolTableCollection &symbols) {
  SymbolRefAttr ref = getKernel();
  if (ref.getNestedReferences().size() != 1)
    return nullptr;
  auto executable = symbols.lookupNearestSymbolFrom<ExecutableOp>(
      getOperation(), ref.getRootReference());
  if (!executable)
    return nullptr;
  return dyn_cast_or_null<KernelOp>(
      symbols.lookupSymbolIn(executable, ref.getLeafReference()));
}

std::optional<int64_t> plan::storageBytesOf(StridedTensorType type) {
  std::optional<int64_t> extent = storageExtent(type.getLayout());
  int64_t elementBytes = int64_t(dtypeSize(type.getDType()));
  if (!extent || *extent > std::numeric_limits<int64_t>::max() / elementBytes)
    return std::nullopt;
  return *extent * elementBytes;
}

/// The L2 window (`l2_resident_operand`, `l2_resident_bytes`): both or
/// neither, over a constant operand, within its storage.
LogicalResult DispatchOp::verify() {
  std::optional<int64_t> operand = getL2ResidentOperand();
  std::optional<int64_t> bytes = getL2ResidentBytes();
  if (!operand && !bytes)
    return success();
  if (!operand || !bytes)
    return emitOpError() << "has " << (operand ? "l2_resident_operand" : "l2_resident_bytes")
                         << " without "
                         << (operand ? "l2_resident_bytes" : "l2_resident_operand")
                         << "; an L2 window needs both";
  if (*operand >= static_cast<int64_t>(getBuffers().size()))
    return emitOpError() << "keeps operand " << *operand << " in L2, but has "
                         << getBuffers().size() << " buffers";
  auto constant = getBuffers()[*operand].getDefiningOp<plan::ConstantOp>();
  if (!constant)
    return emitOpError() << "keeps operand " << *operand
                         << " in L2, which is no plan.constant; only a "
                            "module constant is the same bytes at every run";
  int64_t storage =
      storageBytesOf(cast<StridedTensorType>(constant.getTensorType())).value_or(0);
  if (*bytes > storage)
    return emitOpError() << "keeps " << *bytes << " bytes of operand " << *operand
                         << " in L2, but the constant has " << storage << " bytes";
  return success();
}

LogicalResult
DispatchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  KernelOp kernel = lookupKernel(symbols);
  if (!kernel)
    return emitOpError() << "dispatches " << getKernel()
                         << ", which is no kernel of a plan.executable";
  size_t scratch = 0;
  if (auto schedule =
          kernel->getAttrOfType<KernelScheduleAttr>(KernelScheduleAttr::kAttrName))
    if (schedule.getScratch())
      scratch = schedule.getScratch().size();
  size_t expected = kernel.getBodyBlock().getNumArguments() +
                    kernel.getNumResults() + scratch;
  if (getBuffers().size() != expected)
    return emitOpError() << "passes " << getBuffers().size()
                         << " buffers, but kernel " << getKernel()
                         << " takes " << expected << " ("
                         << kernel.getBodyBlock().getNumArguments()
                         << " inputs, " << kernel.getNumResults()
                         << " results, " << scratch << " scratch)";
  return success();
}

LogicalResult LibraryCallOp::verify() {
  auto [library, routine] = getRoutine().split('.');
  if (library.empty() || routine.empty())
    return emitOpError() << "names routine '" << getRoutine()
                         << "'; expected 'library.routine', e.g. "
                            "'cublaslt.matmul'";
  return success();
}

//===----------------------------------------------------------------------===//
// CollectiveOp
//===----------------------------------------------------------------------===//

/// NCCL's element types: floats of 16, 32 and 64 bits, integers of 8, 32
/// and 64 bits, and booleans (bytes) for an all_gather, which only moves
/// them.
static bool isNcclElementType(Type type, bool moveOnly) {
  if (auto f = dyn_cast<FloatType>(type))
    return f.isF16() || f.isBF16() || f.isF32() || f.isF64();
  if (auto i = dyn_cast<IntegerType>(type))
    return i.getWidth() == 8 || i.getWidth() == 32 || i.getWidth() == 64 ||
           (moveOnly && i.getWidth() == 1);
  return false;
}

int64_t CollectiveOp::inputElements() {
  return getKind() == CollectiveOperation::reduce_scatter
             ? getCount() * getWorldSize()
             : getCount();
}

int64_t CollectiveOp::outputElements() {
  return getKind() == CollectiveOperation::all_gather
             ? getCount() * getWorldSize()
             : getCount();
}

LogicalResult CollectiveOp::verify() {
  bool gather = getKind() == CollectiveOperation::all_gather;
  if (gather == getReduction().has_value())
    return emitOpError() << (gather ? "is an all_gather, which takes no "
                                      "reduction"
                                    : "needs a reduction (sum, avg, max or "
                                      "min)");
  Type element = getElementType();
  if (!isNcclElementType(element, gather))
    return emitOpError() << "exchanges elements of type " << element
                         << "; NCCL takes f16, bf16, f32, f64 and integers "
                            "of 8, 32 and 64 bits (and i1 in an all_gather)";
  if (getReduction() == CollectiveReduction::avg && !isa<FloatType>(element))
    return emitOpError() << "averages elements of type " << element
                         << "; avg takes floating-point elements";
  return success();
}

LogicalResult WaitEventOp::verify() {
  auto record = getEvent().getDefiningOp<RecordEventOp>();
  if (!record)
    return emitOpError() << "waits for an event that no plan.record_event "
                            "in this function records";
  if (record.getCollectiveStream() == getCollectiveStream())
    return emitOpError() << "waits on the "
                         << (getCollectiveStream() ? "collective" : "main")
                         << " stream for an event that stream recorded; a "
                            "stream waits for the other stream's events (its "
                            "own steps run in order)";
  return success();
}

LogicalResult CopyOp::verify() {
  if (getSource() == getTarget())
    return emitOpError() << "copies a buffer onto itself";
  return success();
}

#define GET_OP_CLASSES
#include "dialects/plan/IR/PlanOps.cpp.inc"
