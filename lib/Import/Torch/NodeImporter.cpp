//===- NodeImporter.cpp - One aten node into stride ops -------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include "stride/Support/Layout.h"
#include "stride/Support/SymbolicLayout.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace stride::torch {

std::optional<DType> dtypeOfScalarType(int64_t scalarType) {
  switch (scalarType) {
  case 2: return DType::I8;
  case 4: return DType::I32;
  case 5: return DType::I64;
  case 6: return DType::F16;
  case 7: return DType::F32;
  case 8: return DType::F64;
  case 12: return DType::I1;
  case 13: return DType::BF16;
  default: return std::nullopt;
  }
}

const Argument *NodeImporter::arg(llvm::StringRef name) const {
  for (const NamedArgument &named : node.inputs)
    if (named.name == name)
      return &named.arg;
  return nullptr;
}

bool NodeImporter::isTensor(llvm::StringRef name) const {
  const Argument *a = arg(name);
  return a && a->kind == Argument::Kind::Tensor;
}

bool NodeImporter::isNone(llvm::StringRef name) const {
  const Argument *a = arg(name);
  return !a || a->kind == Argument::Kind::None;
}

FailureOr<Value> NodeImporter::optionalTensor(llvm::StringRef name) {
  const Argument *a = arg(name);
  if (!a || a->kind == Argument::Kind::None)
    return Value();
  if (a->kind != Argument::Kind::Tensor)
    return error() << "argument '" << name << "' is '" << a->key
                   << "', expected a tensor";
  return value(a->names[0]);
}

FailureOr<Value> NodeImporter::value(llvm::StringRef name) {
  auto it = values.find(name);
  if (it == values.end())
    return error() << "'" << name
                   << "' is not defined by an earlier node or an input";
  return it->second;
}

void NodeImporter::rebind(llvm::StringRef name, Value value) {
  if (const Argument *a = arg(name); a && a->kind == Argument::Kind::Tensor)
    values[a->names[0]] = value;
}

FailureOr<Value> NodeImporter::tensor(llvm::StringRef name) {
  FailureOr<Value> value = optionalTensor(name);
  if (succeeded(value) && !*value)
    return error() << "the tensor argument '" << name << "' is missing";
  return value;
}

namespace {

/// The argument `name` as `read` makes it (nullopt: the argument is of the
/// wrong kind), or `fallback` when it is absent or None, or an error saying
/// `what` was expected.
template <typename T, typename ReadFn>
FailureOr<T> readArgument(NodeImporter &n, llvm::StringRef name,
                          const std::optional<T> &fallback,
                          llvm::StringRef what, ReadFn read) {
  const Argument *a = n.arg(name);
  if ((!a || a->kind == Argument::Kind::None) && fallback)
    return *fallback;
  if (!a)
    return n.error() << "the argument '" << name << "' (" << what
                     << ") is missing";
  if (std::optional<T> value = read(*a))
    return *value;
  return n.error() << "argument '" << name << "' is '" << a->key
                   << "', expected " << what;
}

} // namespace

/// The first SymInt of `a` whose value is symbolic (the importer has put
/// every static one into `ints`), or "".
static llvm::StringRef symbolicElement(const Argument &a) {
  for (const std::string &symbol : a.symbols)
    if (!symbol.empty())
      return symbol;
  return "";
}

/// An error unless argument `name` is static: a builder that reads it as
/// an int takes no symbolic value.
static LogicalResult expectStatic(NodeImporter &n, llvm::StringRef name,
                                  const SymbolicScalars &scalars) {
  const Argument *a = n.arg(name);
  llvm::StringRef symbol = a ? symbolicElement(*a) : "";
  if (symbol.empty())
    return success();
  auto it = scalars.ints.find(symbol);
  return n.error() << "argument '" << name << "' is the symbolic integer '"
                   << symbol << "' ("
                   << (it == scalars.ints.end() ? "?" : it->second.str())
                   << "), where Stride takes a static value";
}

FailureOr<int64_t> NodeImporter::integer(llvm::StringRef name,
                                         std::optional<int64_t> fallback) {
  if (failed(expectStatic(*this, name, scalars)))
    return failure();
  return readArgument<int64_t>(
      *this, name, fallback, "an integer",
      [](const Argument &a) -> std::optional<int64_t> {
        if (a.kind == Argument::Kind::Int || a.kind == Argument::Kind::Bool)
          return a.ints[0];
        return std::nullopt;
      });
}

FailureOr<std::vector<int64_t>>
NodeImporter::integers(llvm::StringRef name,
                       std::optional<std::vector<int64_t>> fallback) {
  if (failed(expectStatic(*this, name, scalars)))
    return failure();
  return readArgument<std::vector<int64_t>>(
      *this, name, fallback, "a list of integers",
      [](const Argument &a) -> std::optional<std::vector<int64_t>> {
        if (a.kind == Argument::Kind::Int)
          return std::vector<int64_t>{a.ints[0]};
        if (a.kind == Argument::Kind::Ints)
          return a.ints;
        return std::nullopt;
      });
}

FailureOr<SizeExprs> NodeImporter::sizes(llvm::StringRef name) {
  const Argument *a = arg(name);
  if (!a || (a->kind != Argument::Kind::Int && a->kind != Argument::Kind::Ints))
    return error() << "argument '" << name << "' is '"
                   << (a ? a->key : "missing")
                   << "', expected a list of integers or SymInts";
  SizeExprs exprs;
  for (size_t i = 0; i < a->ints.size(); ++i) {
    // Not `cond ? a->symbols[i] : ""`: its type is a temporary std::string,
    // which a StringRef would outlive.
    llvm::StringRef symbol;
    if (i < a->symbols.size())
      symbol = a->symbols[i];
    if (symbol.empty()) {
      exprs.push_back(SizeExpr::constant(a->ints[i]));
      continue;
    }
    auto it = scalars.ints.find(symbol);
    if (it == scalars.ints.end())
      return error() << "argument '" << name << "' names the SymInt '"
                     << symbol << "', which no earlier node computes";
    exprs.push_back(it->second);
  }
  return exprs;
}

FailureOr<SizeExpr> NodeImporter::size(llvm::StringRef name,
                                       std::optional<int64_t> fallback) {
  if (isNone(name) && fallback)
    return SizeExpr::constant(*fallback);
  FailureOr<SizeExprs> exprs = sizes(name);
  if (failed(exprs))
    return failure();
  if (exprs->size() != 1 || arg(name)->kind != Argument::Kind::Int)
    return error() << "argument '" << name << "' is '" << arg(name)->key
                   << "', expected an integer or a SymInt";
  return exprs->front();
}

FailureOr<std::optional<bool>>
NodeImporter::symbolicBool(llvm::StringRef name) {
  const Argument *a = arg(name);
  if (a && a->kind == Argument::Kind::Bool)
    return std::optional<bool>(a->ints[0] != 0);
  if (!a || a->key != "as_sym_bool" || a->names.empty())
    return error() << "argument '" << name << "' is '"
                   << (a ? a->key : "missing") << "', expected a SymBool";
  auto it = scalars.bools.find(a->names[0]);
  if (it == scalars.bools.end())
    return error() << "argument '" << name << "' names the SymBool '"
                   << a->names[0] << "', which no earlier node computes";
  return it->second;
}

FailureOr<double> NodeImporter::scalar(llvm::StringRef name,
                                       std::optional<double> fallback) {
  return readArgument<double>(
      *this, name, fallback, "a number",
      [](const Argument &a) -> std::optional<double> {
        if (a.kind == Argument::Kind::Float)
          return a.floats[0];
        if (a.kind == Argument::Kind::Int || a.kind == Argument::Kind::Bool)
          return static_cast<double>(a.ints[0]);
        return std::nullopt;
      });
}

bool NodeImporter::isFloatScalar(llvm::StringRef name) const {
  const Argument *a = arg(name);
  return a && a->kind == Argument::Kind::Float;
}

FailureOr<bool> NodeImporter::boolean(llvm::StringRef name, bool fallback) {
  FailureOr<int64_t> value = integer(name, fallback ? 1 : 0);
  if (failed(value))
    return failure();
  return *value != 0;
}

FailureOr<std::string> NodeImporter::string(llvm::StringRef name,
                                            std::string fallback) {
  const Argument *a = arg(name);
  if (!a || a->kind == Argument::Kind::None)
    return fallback;
  if (a->kind != Argument::Kind::String)
    return error() << "argument '" << name << "' is '" << a->key
                   << "', expected a string";
  return a->text;
}

FailureOr<int64_t> NodeImporter::dim(llvm::StringRef name, int64_t rank,
                                     std::optional<int64_t> fallback) {
  FailureOr<int64_t> d = integer(name, fallback);
  if (failed(d))
    return failure();
  if (*d < -rank || *d >= rank)
    return error() << "dim " << *d << " is out of range for rank " << rank;
  return *d < 0 ? *d + rank : *d;
}

Type NodeImporter::elementType(DType dtype) {
  return elementTypeOf(dtype, context());
}

Type elementTypeOf(DType dtype, MLIRContext *ctx) {
  switch (dtype) {
  case DType::F16: return Float16Type::get(ctx);
  case DType::BF16: return BFloat16Type::get(ctx);
  case DType::F32: return Float32Type::get(ctx);
  case DType::F64: return Float64Type::get(ctx);
  case DType::I1: return IntegerType::get(ctx, 1);
  case DType::I8: return IntegerType::get(ctx, 8);
  case DType::I32: return IntegerType::get(ctx, 32);
  case DType::I64: return IntegerType::get(ctx, 64);
  }
  return {};
}

StridedTensorType NodeImporter::contiguous(llvm::ArrayRef<int64_t> shape,
                                           DType dtype) {
  return StridedTensorType::getContiguous(shape, elementType(dtype));
}

StridedTensorType NodeImporter::contiguousOf(const SizeExprs &shape,
                                             DType dtype) {
  std::optional<SizeExprs> strides = rowMajorStrides(shape);
  // The sizes are those of the archive's types (or 1, or their product),
  // whose product symbolicTypeOf checked to fit in int64.
  assert(strides && "row-major strides overflow");
  return StridedTensorType::get(elementType(dtype),
                                SymbolicLayout{shape, *strides,
                                               SizeExpr::constant(0)});
}

Value NodeImporter::cast(Value value, DType dtype) {
  auto tensorType = llvm::cast<StridedTensorType>(value.getType());
  if (tensorType.getDType() == dtype)
    return value;
  StridedTensorType type =
      tensorType.isSymbolic()
          ? contiguousOf(tensorType.getSymbolicLayout().shape, dtype)
          : contiguous(tensorType.getShape(), dtype);
  return CastOp::create(builder, loc, type, value);
}

FailureOr<Value> NodeImporter::broadcast(Value value,
                                         llvm::ArrayRef<int64_t> shape) {
  auto type = llvm::cast<StridedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  ViewResult expanded = inferExpand(type.getLayout(), Dims(shape.begin(), shape.end()));
  if (!expanded)
    return error() << "cannot broadcast an operand of shape "
                   << formatDims(type.getLayout().shape) << " to "
                   << formatDims(Dims(shape.begin(), shape.end())) << ": "
                   << expanded.error;
  return ExpandOp::create(
                 builder, loc,
                 StridedTensorType::get(type.getElementType(), *expanded.layout),
                 value)
      .getResult();
}

FailureOr<Value> NodeImporter::broadcastTo(Value value,
                                           const SizeExprs &shape) {
  auto type = llvm::cast<StridedTensorType>(value.getType());
  SymbolicLayout layout = type.getSymbolicLayout();
  if (!type.isSymbolic()) {
    std::vector<int64_t> dims;
    for (const SizeExpr &size : shape)
      if (std::optional<int64_t> constant = size.getConstant())
        dims.push_back(*constant);
    if (dims.size() == shape.size())
      return broadcast(value, dims);
  }
  if (layout.shape == shape)
    return value;
  SymbolicViewResult expanded = inferExpand(layout, shape);
  if (!expanded)
    return error() << "cannot broadcast an operand of shape "
                   << formatSizes(layout.shape) << " to " << formatSizes(shape)
                   << ": " << expanded.error;
  return ExpandOp::create(
             builder, loc,
             StridedTensorType::get(type.getElementType(), *expanded.layout),
             value)
      .getResult();
}

FailureOr<Value> NodeImporter::conform(Value value, DType dtype,
                                       llvm::ArrayRef<int64_t> shape) {
  return broadcast(cast(value, dtype), shape);
}

FailureOr<Value> NodeImporter::conformTo(Value value, DType dtype,
                                         const SizeExprs &shape) {
  return broadcastTo(cast(value, dtype), shape);
}

Value NodeImporter::scalarTensor(double value, DType dtype) {
  return FullOp::create(builder, loc, contiguous({}, dtype),
                        builder.getF64FloatAttr(value));
}

FailureOr<Value> NodeImporter::tensorOrScalar(llvm::StringRef name,
                                              DType scalarDType) {
  if (isTensor(name))
    return tensor(name);
  FailureOr<double> value = scalar(name, std::nullopt);
  if (failed(value))
    return failure();
  return scalarTensor(*value, scalarDType);
}

Value NodeImporter::toType(Value value, StridedTensorType type) {
  if (llvm::cast<StridedTensorType>(value.getType()).isEquivalentTo(type))
    return value;
  return CloneOp::create(builder, loc, type, value);
}

} // namespace stride::torch
