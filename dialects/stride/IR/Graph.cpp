//===- Graph.cpp - Walking and naming in a stride graph -------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/Graph.h"

#include "mlir/IR/IRMapping.h"
#include "stride/Support/Layout.h"
#include "stride/Support/SymbolicLayout.h"

using namespace mlir;

namespace stride {

FailureOr<func::FuncOp> findEntryFunction(ModuleOp module) {
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  if (funcs.size() == 1)
    return funcs.front();
  if (funcs.empty())
    return (module.emitError()
                   << "expected one func.func (the graph), found none");
  InFlightDiagnostic diag = funcs[1].emitError()
                            << "expected one func.func (the graph), found "
                            << funcs.size();
  diag.attachNote(funcs[0].getLoc()) << "the first is here";
  return failure();
}

std::string argumentName(func::FuncOp func, unsigned index) {
  if (auto name = func.getArgAttrOfType<StringAttr>(
          index, StrideDialect::kNameAttrName))
    return name.str();
  return "arg" + std::to_string(index);
}

std::string resultName(func::FuncOp func, unsigned index) {
  if (auto name = func.getResultAttrOfType<StringAttr>(
          index, StrideDialect::kNameAttrName))
    return name.str();
  return "result" + std::to_string(index);
}

void forEachSink(Value value, function_ref<void(OpOperand &)> fn) {
  for (OpOperand &use : value.getUses()) {
    auto view = dyn_cast<ViewOpInterface>(use.getOwner());
    if (view && view.getSource() == value)
      forEachSink(use.getOwner()->getResult(0), fn);
    else
      fn(use);
  }
}

/// True when `value` is a tensor whose layout is row-major with offset 0.
/// A row-major tensor: over symbolic sizes, its strides the row-major
/// strides of its sizes for every value of the symbols, offset 0.
static bool isRowMajorTensor(Value value) {
  auto type = dyn_cast<StridedTensorType>(value.getType());
  if (!type || !type.isSymbolic())
    return type && isRowMajor(type.getLayout());
  SymbolicLayout layout = type.getSymbolicLayout();
  std::optional<SizeExprs> strides = rowMajorStrides(layout.shape);
  return strides && *strides == layout.strides &&
         layout.offset == SizeExpr::constant(0);
}

bool isReshapeOfFreshBuffer(Value value) {
  if (!isRowMajorTensor(value))
    return false;
  Value root = value;
  while (auto view = root.getDefiningOp<ViewOpInterface>())
    root = view.getSource();
  Operation *def = root.getDefiningOp();
  // A select_variant's value is the buffer its two operands, fresh
  // results only it reads, share (python-free-docs/symbolic-sizes.md).
  bool fresh = def && (writesFreshBuffers(def) || isa<SelectVariantOp>(def));
  if (root == value || !fresh || !isRowMajorTensor(root))
    return false;
  // As many elements for every value of the symbols: the same bytes.
  auto type = cast<StridedTensorType>(value.getType());
  auto rootType = cast<StridedTensorType>(root.getType());
  std::optional<SizeExpr> elements =
      numElements(type.getSymbolicLayout().shape);
  return type.getElementType() == rootType.getElementType() && elements &&
         elements == numElements(rootType.getSymbolicLayout().shape);
}

std::optional<unsigned> returnedInput(func::FuncOp func, Value value) {
  Value root = value;
  while (auto view = root.getDefiningOp<ViewOpInterface>())
    root = view.getSource();
  auto arg = dyn_cast<BlockArgument>(root);
  if (!arg || arg.getOwner() != &func.getBody().front() ||
      !isa<StridedTensorType>(arg.getType()))
    return std::nullopt;
  unsigned index = arg.getArgNumber();
  if (func.getArgAttr(index, StrideDialect::kStateAttrName))
    return std::nullopt;
  std::string name = argumentName(func, index);
  for (unsigned r = 0, e = func.getNumResults(); r < e; ++r) {
    auto target =
        func.getResultAttrOfType<StringAttr>(r, StrideDialect::kWritesAttrName);
    if (target && target.getValue() == name)
      return std::nullopt;
  }
  return index;
}

KernelNameTable::KernelNameTable(func::FuncOp func) {
  func.walk([&](KernelOp kernel) { names.insert(kernel.getSymName()); });
}

std::string KernelNameTable::insert(StringRef base) {
  std::string name = base.str();
  for (unsigned &n = nextSuffix[base]; names.contains(name);)
    name = base.str() + "_" + std::to_string(++n);
  names.insert(name);
  return name;
}

KernelOp variantKernelOf(Operation *op, StringRef base, ArrayAttr when,
                         KernelNameTable &names, TypeRange argumentTypes,
                         TypeRange resultTypes, Operation *&clone) {
  if (argumentTypes.empty())
    argumentTypes = op->getOperandTypes();
  if (resultTypes.empty())
    resultTypes = op->getResultTypes();
  OpBuilder builder(op);
  auto kernel = KernelOp::create(builder, op->getLoc(), resultTypes,
                                 builder.getStringAttr(names.insert(base)),
                                 op->getOperands(), when);
  Block *body = new Block();
  kernel.getBody().push_back(body);
  IRMapping mapping;
  for (auto [operand, type] : llvm::zip(op->getOperands(), argumentTypes))
    mapping.map(operand, body->addArgument(type, op->getLoc()));
  OpBuilder inBody = OpBuilder::atBlockEnd(body);
  clone = inBody.clone(*op, mapping);
  for (auto [result, type] : llvm::zip(clone->getResults(), resultTypes))
    result.setType(type);
  YieldOp::create(inBody, op->getLoc(), clone->getResults());
  return kernel;
}

} // namespace stride
