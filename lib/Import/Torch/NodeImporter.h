//===- NodeImporter.h - One aten node into stride ops ---------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Internal to the importer: what an op builder of the table (Ops.cpp and
// the *Ops.cpp files beside it) sees of one node: its arguments by schema
// name with the op's defaults, the types the file gives its outputs, and
// helpers that make PyTorch's implicit broadcasting and type promotion
// explicit.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_IMPORT_TORCH_NODEIMPORTER_H
#define STRIDE_LIB_IMPORT_TORCH_NODEIMPORTER_H

#include "dialects/stride/IR/StrideDialect.h"
#include "dialects/stride/IR/StrideOps.h"
#include "stride/Import/Torch/Schema.h"
#include "stride/Support/SymbolicLayout.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <functional>

namespace stride::torch {

/// A failure of any FailureOr<T>, for `ok ? next() : Fail()` chains.
struct Fail {
  template <typename T> operator mlir::FailureOr<T>() const {
    return mlir::failure();
  }
};

/// The SymInts and SymBools earlier nodes computed (sym_size, operator.mul,
/// operator.ge...), by name, and the ranges of the program's symbols.
struct SymbolicScalars {
  llvm::StringMap<SizeExpr> ints;
  /// A SymBool's value where it is the same for every value of the
  /// symbols, nullopt where it depends on them.
  llvm::StringMap<std::optional<bool>> bools;
  SymbolRanges ranges;
};

class NodeImporter {
public:
  NodeImporter(const Node &node, mlir::OpBuilder &builder, mlir::Location loc,
               llvm::StringMap<mlir::Value> &values,
               std::vector<StridedTensorType> outputTypes,
               const SymbolicScalars &scalars)
      : node(node), builder(builder), loc(loc), values(values),
        outputTypes(std::move(outputTypes)), scalars(scalars) {}

  mlir::OpBuilder &b() { return builder; }
  mlir::Location location() const { return loc; }
  mlir::MLIRContext *context() { return builder.getContext(); }
  mlir::InFlightDiagnostic error() { return mlir::emitError(loc); }

  // Arguments by schema name; a missing one takes the default.
  const Argument *arg(llvm::StringRef name) const;
  bool isTensor(llvm::StringRef name) const;
  bool isNone(llvm::StringRef name) const;
  /// The value an earlier node or a graph input defines under `name`.
  mlir::FailureOr<mlir::Value> value(llvm::StringRef name);
  /// A required tensor argument (an error when absent).
  mlir::FailureOr<mlir::Value> tensor(llvm::StringRef name);
  /// An optional tensor argument: null when absent or None.
  mlir::FailureOr<mlir::Value> optionalTensor(llvm::StringRef name);
  /// A static int (an error for a SymInt whose value is symbolic).
  mlir::FailureOr<int64_t> integer(llvm::StringRef name,
                                   std::optional<int64_t> fallback);
  mlir::FailureOr<std::vector<int64_t>>
  integers(llvm::StringRef name, std::optional<std::vector<int64_t>> fallback);
  /// An int or SymInt argument as an expression (a SymInt an earlier node
  /// computed, by name: sym_size's `s0`).
  mlir::FailureOr<SizeExpr> size(llvm::StringRef name,
                                 std::optional<int64_t> fallback);
  /// A list of ints and SymInts as expressions.
  mlir::FailureOr<SizeExprs> sizes(llvm::StringRef name);
  /// A SymBool argument (as_sym_bool) or a bool: its value where it is the
  /// same over the symbols' ranges, nullopt where it depends on them.
  mlir::FailureOr<std::optional<bool>> symbolicBool(llvm::StringRef name);
  /// The ranges of the program's symbols.
  const SymbolRanges &symbolRanges() const { return scalars.ranges; }
  /// An int or float scalar argument.
  mlir::FailureOr<double> scalar(llvm::StringRef name,
                                 std::optional<double> fallback);
  /// A bool argument (as_bool).
  mlir::FailureOr<bool> boolean(llvm::StringRef name, bool fallback);
  /// A string argument.
  mlir::FailureOr<std::string> string(llvm::StringRef name,
                                      std::string fallback);
  /// Whether the scalar argument `name` is a float (not an int).
  bool isFloatScalar(llvm::StringRef name) const;

  // Outputs.
  size_t numOutputs() const { return outputTypes.size(); }
  /// Whether output `i` is a named tensor (not None, not a SymInt); only
  /// the builders of ops that acceptsAbsentOutputs() see absent ones.
  bool hasOutput(size_t i) const {
    return i < outputTypes.size() && outputTypes[i];
  }
  StridedTensorType outputType(size_t i = 0) const { return outputTypes[i]; }
  DType outputDType(size_t i = 0) const { return outputTypes[i].getDType(); }
  llvm::ArrayRef<int64_t> outputShape(size_t i = 0) const {
    return outputTypes[i].getShape();
  }
  /// Output `i`'s sizes as expressions (constants where static).
  SizeExprs outputSizes(size_t i = 0) const {
    return outputTypes[i].getSymbolicLayout().shape;
  }
  void setOutput(size_t i, mlir::Value value) { results[i] = value; }
  /// The value of output `i`, a SymInt (sym_size's, sym_numel's): later
  /// nodes that name it read `value`.
  void setSymbolicOutput(size_t i, SizeExpr value) {
    symInts[i] = std::move(value);
  }
  const SizeExpr *symbolicOutput(size_t i) const {
    auto it = symInts.find(i);
    return it == symInts.end() ? nullptr : &it->second;
  }
  /// The value of output `i`, a SymBool (operator.ge's), where it is the
  /// same over the symbols' ranges.
  void setSymbolicBoolOutput(size_t i, std::optional<bool> value) {
    symBools[i] = value;
  }
  std::optional<std::optional<bool>> symbolicBoolOutput(size_t i) const {
    auto it = symBools.find(i);
    return it == symBools.end() ? std::nullopt : std::optional(it->second);
  }
  /// Binds the name of tensor argument `name` to `value`: later nodes that
  /// name it read `value` (an in-place op's new value of its `self`).
  void rebind(llvm::StringRef name, mlir::Value value);
  mlir::Value output(size_t i) const {
    auto it = results.find(i);
    return it == results.end() ? mlir::Value() : it->second;
  }

  // Building blocks. Each takes a static shape, or (contiguousOf,
  // broadcastTo, conformTo) sizes as expressions: a symbolic type where a
  // size names a symbol, the static one where every size is a constant.
  StridedTensorType contiguous(llvm::ArrayRef<int64_t> shape, DType dtype);
  StridedTensorType contiguousOf(const SizeExprs &shape, DType dtype);
  /// `value` as `dtype` (a stride.cast, or `value` itself).
  mlir::Value cast(mlir::Value value, DType dtype);
  /// `value` broadcast to `shape` (stride.expand, PyTorch's rules; over
  /// symbolic sizes, a dim keeps an equal expression or broadcasts from
  /// the constant 1).
  mlir::FailureOr<mlir::Value> broadcast(mlir::Value value,
                                         llvm::ArrayRef<int64_t> shape);
  mlir::FailureOr<mlir::Value> broadcastTo(mlir::Value value,
                                           const SizeExprs &shape);
  /// cast, then broadcast.
  mlir::FailureOr<mlir::Value> conform(mlir::Value value, DType dtype,
                                       llvm::ArrayRef<int64_t> shape);
  mlir::FailureOr<mlir::Value> conformTo(mlir::Value value, DType dtype,
                                         const SizeExprs &shape);
  /// A rank-0 stride.full.
  mlir::Value scalarTensor(double value, DType dtype);
  /// A tensor argument, or a scalar argument as a rank-0 full of `dtype`.
  mlir::FailureOr<mlir::Value> tensorOrScalar(llvm::StringRef name,
                                              DType scalarDType);
  /// A functional result in row-major layout, then copied into `type`'s
  /// layout when that differs (what an op that computes row-major gives
  /// a file that claims another layout).
  mlir::Value toType(mlir::Value value, StridedTensorType type);
  /// A dim argument normalized into [0, rank).
  mlir::FailureOr<int64_t> dim(llvm::StringRef name, int64_t rank,
                               std::optional<int64_t> fallback);

  /// The import's world size (ImportOptions::worldSize; 0: unknown).
  int64_t worldSize() const { return importWorldSize; }
  void setWorldSize(int64_t size) { importWorldSize = size; }

  /// The element type of `dtype`.
  mlir::Type elementType(DType dtype);

private:
  const Node &node;
  mlir::OpBuilder &builder;
  mlir::Location loc;
  llvm::StringMap<mlir::Value> &values;
  std::vector<StridedTensorType> outputTypes;
  const SymbolicScalars &scalars;
  std::map<size_t, mlir::Value> results;
  std::map<size_t, SizeExpr> symInts;
  std::map<size_t, std::optional<bool>> symBools;
  int64_t importWorldSize = 0;
};

/// Builds the stride ops of one node; emits an error and fails on bad input.
using OpBuilderFn = std::function<mlir::LogicalResult(NodeImporter &)>;

/// The op table: aten target ("torch.ops.aten.add.Tensor") to its builder;
/// nullptr for a target Stride does not import.
const OpBuilderFn *lookupOp(llvm::StringRef target);

/// Whether the builder of `target` takes nodes with absent outputs (None
/// or a SymInt, a null outputType); every other builder is given a named
/// tensor for each output.
bool acceptsAbsentOutputs(llvm::StringRef target);

/// Whether `target` is a check with no outputs (_assert_tensor_metadata,
/// _assert_scalar, sym_constrain_range_for_size).
bool hasNoOutputs(llvm::StringRef target);

/// The MLIR element type of `dtype`.
mlir::Type elementTypeOf(DType dtype, mlir::MLIRContext *context);

/// The DType of a torch ScalarType; nullopt for the ones Stride lacks.
std::optional<DType> dtypeOfScalarType(int64_t scalarType);

} // namespace stride::torch

#endif // STRIDE_LIB_IMPORT_TORCH_NODEIMPORTER_H
