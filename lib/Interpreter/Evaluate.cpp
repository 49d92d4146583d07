//===- Evaluate.cpp - Values known at compile time ------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The value's ops are copied into a function of no arguments, which the
// reference interpreter runs (Evaluate.h).
//
//===----------------------------------------------------------------------===//

#include "stride/Interpreter/Evaluate.h"

#include "stride/Interpreter/Interpreter.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

#include <cstring>

using namespace mlir;

namespace stride {

namespace {

/// The ops `value` is computed from, if none of them reads a function
/// argument or holds a region.
std::optional<llvm::SetVector<Operation *>> constantSlice(Value value) {
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> work{value};
  while (!work.empty()) {
    Operation *op = work.pop_back_val().getDefiningOp();
    if (!op || op->getNumRegions() != 0)
      return std::nullopt; // a function argument, or a kernel
    if (!ops.insert(op))
      continue;
    for (Value operand : op->getOperands())
      work.push_back(operand);
  }
  return ops;
}

/// Whether every element of `values` has the bytes of the first.
bool isSplat(const HostArray &values) {
  size_t size = dtypeSize(values.dtype);
  const uint8_t *data = values.data.data();
  for (size_t at = size; at + size <= values.data.size(); at += size)
    if (std::memcmp(data, data + at, size) != 0)
      return false;
  return true;
}

} // namespace

std::optional<HostArray> evaluateWithoutInputs(Value value) {
  std::optional<llvm::SetVector<Operation *>> slice = constantSlice(value);
  if (!slice)
    return std::nullopt;
  OpBuilder builder(value.getContext());
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(value.getLoc());
  builder.setInsertionPointToEnd(scratch->getBody());
  auto func = func::FuncOp::create(
      builder, value.getLoc(), "value",
      builder.getFunctionType({}, {value.getType()}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  IRMapping mapping;
  for (Operation *op : mlir::topologicalSort(*slice))
    builder.clone(*op, mapping);
  func::ReturnOp::create(builder, value.getLoc(), mapping.lookup(value));
  Result<std::vector<HostArray>> values = interpret(func, {});
  if (!values || values->size() != 1)
    return std::nullopt;
  return std::move((*values)[0]);
}

DenseElementsAttr elementsOf(const HostArray &values, Type elementType) {
  auto type = RankedTensorType::get(values.shape, elementType);
  bool splat = values.numElements() > 0 && isSplat(values);
  // i1 is one byte per element here and bit-packed in MLIR's raw buffers.
  if (values.dtype == DType::I1) {
    SmallVector<bool> bits;
    for (uint8_t byte : values.data) {
      bits.push_back(byte != 0);
      if (splat)
        break;
    }
    return DenseElementsAttr::get(type, bits);
  }
  size_t bytes = splat ? dtypeSize(values.dtype) : values.data.size();
  ArrayRef<char> raw(reinterpret_cast<const char *>(values.data.data()), bytes);
  return DenseElementsAttr::getFromRawBuffer(type, raw);
}

} // namespace stride
