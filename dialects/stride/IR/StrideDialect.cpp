//===- StrideDialect.cpp - The stride dialect and its tensor type --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/StrideDialect.h"
#include "dialects/stride/IR/StrideOps.h"
#include "dialects/stride/IR/StrideAttrs.h"
#include "dialects/stride/IR/SymbolicSizes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace stride;

#include "dialects/stride/IR/StrideDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/stride/IR/StrideTypes.cpp.inc"

#include "dialects/stride/IR/StrideAttrEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "dialects/stride/IR/StrideAttrs.cpp.inc"

void StrideDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/stride/IR/StrideTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/stride/IR/StrideAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/stride/IR/StrideOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Argument and result attributes
//===----------------------------------------------------------------------===//

/// Checks the value of stride.name on argument or result #`index` (`what`):
/// a non-empty string.
static LogicalResult verifyName(Location loc, StringRef what, unsigned index,
                                Attribute value) {
  auto name = dyn_cast<StringAttr>(value);
  if (!name || name.getValue().empty())
    return emitError(loc) << "'" << StrideDialect::kNameAttrName << "' of "
                          << what << " #" << index
                          << " must be a non-empty string (the name of a "
                             "graph input or output), but is "
                          << value;
  return success();
}

static InFlightDiagnostic unknownAttribute(Location loc, StringRef what,
                                           unsigned index, StringAttr name) {
  return emitError(loc) << "unknown attribute '" << name.getValue() << "' on "
                        << what << " #" << index
                        << "; the stride dialect defines '"
                        << StrideDialect::kNameAttrName << "' (the name of a "
                        << "graph input or output), '"
                        << StrideDialect::kStateAttrName
                        << "' (an argument that is state), '"
                        << StrideDialect::kBindsAttrName
                        << "' (an argument whose value binds a symbol) and '"
                        << StrideDialect::kWritesAttrName
                        << "' (a result written back into an argument)";
}

/// Whether `type` names the symbol `name` in its layout.
static bool namesSymbol(Type type, StringRef name) {
  auto tensor = dyn_cast<StridedTensorType>(type);
  return tensor && tensor.isSymbolic() &&
         tensor.getSymbolicLayout().symbols().count(name.str());
}

/// stride.binds on argument #`index` of `func`: a symbol the function
/// declares, bound by no other argument, from the argument's one i32 or
/// i64, and named by no argument or result type (it is no size).
static LogicalResult verifyBinds(Location loc, FunctionOpInterface func,
                                 unsigned index, Attribute value) {
  auto symbol = dyn_cast<StringAttr>(value);
  auto diag = [&] {
    return emitError(loc) << "'" << StrideDialect::kBindsAttrName
                          << "' of argument #" << index << " ";
  };
  if (!symbol)
    return diag() << "must be the name of a declared symbol, but is "
                  << value;
  if (!declaredSymbols(func).count(symbol.str()))
    return diag() << "names '" << symbol.getValue()
                  << "', which the function's '"
                  << StrideDialect::kSymbolsAttrName << "' does not declare";
  auto type = dyn_cast<StridedTensorType>(func.getArgumentTypes()[index]);
  Type element = type ? type.getElementType() : Type();
  if (!type || type.isSymbolic() || type.getNumElements() != 1 ||
      !(element.isSignlessInteger(32) || element.isSignlessInteger(64)))
    return diag() << "binds '" << symbol.getValue() << "' from an argument of "
                  << func.getArgumentTypes()[index]
                  << "; a symbol is bound from one i32 or i64";
  for (unsigned i = 0; i < index; ++i)
    if (func.getArgAttr(i, StrideDialect::kBindsAttrName) == symbol)
      return diag() << "binds '" << symbol.getValue()
                    << "', which argument #" << i << " binds";
  for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                         func.getResultTypes()))
    if (namesSymbol(t, symbol.getValue()))
      return diag() << "binds '" << symbol.getValue()
                    << "' from a value, and " << t
                    << " names it as a size";
  return success();
}

/// stride.state on argument #`index` of `func`: elements of the argument's
/// shape and element type.
static LogicalResult verifyState(Location loc, FunctionOpInterface func,
                                 unsigned index, Attribute value) {
  auto init = dyn_cast<ElementsAttr>(value);
  auto type = dyn_cast<StridedTensorType>(func.getArgumentTypes()[index]);
  if (!init || !type || init.getShapedType().getShape() != type.getShape() ||
      init.getElementType() != type.getElementType())
    return emitError(loc) << "'" << StrideDialect::kStateAttrName
                          << "' of argument #" << index
                          << " must be the initial elements of the argument's "
                             "shape and element type ("
                          << func.getArgumentTypes()[index] << "), but is "
                          << value;
  return success();
}

/// stride.writes on result #`index` of `func`: the name of an argument of
/// the result's type that no other result writes.
static LogicalResult verifyWrites(Location loc, FunctionOpInterface func,
                                  unsigned index, Attribute value) {
  auto target = dyn_cast<StringAttr>(value);
  if (!target)
    return emitError(loc) << "'" << StrideDialect::kWritesAttrName
                          << "' of result #" << index
                          << " must be the name of an argument, but is "
                          << value;
  std::optional<unsigned> argument;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, StrideDialect::kNameAttrName) == target)
      argument = i;
  if (!argument)
    return emitError(loc) << "result #" << index << " writes '"
                          << target.getValue()
                          << "', which names no argument";
  Type argType = func.getArgumentTypes()[*argument],
       resultType = func.getResultTypes()[index];
  if (argType != resultType)
    return emitError(loc) << "result #" << index << " of type " << resultType
                          << " writes argument '" << target.getValue()
                          << "' of another type, " << argType;
  for (unsigned i = 0; i < index; ++i)
    if (func.getResultAttr(i, StrideDialect::kWritesAttrName) == target)
      return emitError(loc) << "results #" << i << " and #" << index
                            << " both write argument '" << target.getValue()
                            << "'";
  return success();
}

LogicalResult StrideDialect::verifyRegionArgAttribute(Operation *op,
                                                      unsigned regionIndex,
                                                      unsigned argIndex,
                                                      NamedAttribute attr) {
  Region &region = op->getRegion(regionIndex);
  Location loc = region.empty() ? op->getLoc()
                                : region.getArgument(argIndex).getLoc();
  if (attr.getName() == kNameAttrName)
    return verifyName(loc, "argument", argIndex, attr.getValue());
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (attr.getName() == kStateAttrName && func)
    return verifyState(loc, func, argIndex, attr.getValue());
  if (attr.getName() == kBindsAttrName && func)
    return verifyBinds(loc, func, argIndex, attr.getValue());
  return unknownAttribute(loc, "argument", argIndex, attr.getName());
}

LogicalResult StrideDialect::verifyRegionResultAttribute(Operation *op,
                                                         unsigned regionIndex,
                                                         unsigned resultIndex,
                                                         NamedAttribute attr) {
  if (attr.getName() == kNameAttrName)
    return verifyName(op->getLoc(), "result", resultIndex, attr.getValue());
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (attr.getName() == kWritesAttrName && func)
    return verifyWrites(op->getLoc(), func, resultIndex, attr.getValue());
  return unknownAttribute(op->getLoc(), "result", resultIndex, attr.getName());
}

//===----------------------------------------------------------------------===//
// Operation attributes
//===----------------------------------------------------------------------===//

/// stride.absent_outputs on a function: strictly increasing positions, each
/// below the number of results plus the number of absent outputs.
static LogicalResult verifyAbsentOutputs(Operation *op, Attribute attr) {
  StringRef name = StrideDialect::kAbsentOutputsAttrName;
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return op->emitError() << "'" << name
                           << "' belongs on the graph's function, not on '"
                           << op->getName() << "'";
  auto positions = dyn_cast<DenseI64ArrayAttr>(attr);
  if (!positions)
    return op->emitError() << "'" << name
                           << "' must be an array<i64> of output positions, "
                              "but is "
                           << attr;
  int64_t outputs =
      func.getNumResults() + static_cast<int64_t>(positions.size());
  int64_t previous = -1;
  for (int64_t p : positions.asArrayRef()) {
    if (p <= previous || p >= outputs)
      return op->emitError()
             << "'" << name << "' must list positions in [0, " << outputs
             << ") (the " << func.getNumResults() << " results and "
             << positions.size() << " absent outputs), each once and in "
             << "increasing order, but is " << attr;
    previous = p;
  }
  return success();
}

LogicalResult StrideDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == kAbsentOutputsAttrName)
    return verifyAbsentOutputs(op, attr.getValue());
  if (attr.getName() == kSymbolsAttrName)
    return verifySymbolsAttr(op, attr.getValue());
  // stride.schedule and stride.keep_fused are read where they are used.
  return success();
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

std::optional<DType> stride::dtypeOfElementType(Type type) {
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  if (type.isSignlessInteger(1))
    return DType::I1;
  if (type.isSignlessInteger(8))
    return DType::I8;
  if (type.isSignlessInteger(32))
    return DType::I32;
  if (type.isSignlessInteger(64))
    return DType::I64;
  return std::nullopt;
}

std::optional<DType> stride::dtypeOf(Type type) {
  if (auto tensor = dyn_cast<StridedTensorType>(type))
    return tensor.getDType();
  return dtypeOfElementType(type);
}

//===----------------------------------------------------------------------===//
// StridedTensorType
//===----------------------------------------------------------------------===//

StridedTensorType StridedTensorType::getContiguous(ArrayRef<int64_t> shape,
                                                   Type elementType) {
  Layout layout{Dims(shape.begin(), shape.end()), rowMajorStrides(shape), 0};
  return get(elementType, layout);
}

Layout StridedTensorType::getLayout() const {
  return Layout{Dims(getShape().begin(), getShape().end()),
                Dims(getStrides().begin(), getStrides().end()), getOffset()};
}

DType StridedTensorType::getDType() const {
  return *dtypeOfElementType(getElementType());
}

int64_t StridedTensorType::getNumElements() const {
  return checkedNumElements(getShape()).value_or(-1);
}

StridedTensorType StridedTensorType::withLayout(const Layout &layout) const {
  return get(getElementType(), layout);
}

// The symbolic builders are here, where the type's storage is defined
// (StrideTypes.cpp.inc); the rest of the symbolic half is SymbolicSizes.cpp.

/// The static entries of a symbolic layout: the constants, and
/// ShapedType::kDynamic for the expressions.
static SmallVector<int64_t> staticEntries(const SizeExprs &exprs) {
  SmallVector<int64_t> entries;
  for (const SizeExpr &expr : exprs)
    entries.push_back(expr.getConstant().value_or(ShapedType::kDynamic));
  return entries;
}

static SmallVector<SizeExprAttr> exprAttrs(MLIRContext *context,
                                           const SizeExprs &exprs) {
  SmallVector<SizeExprAttr> attrs;
  for (const SizeExpr &expr : exprs)
    attrs.push_back(SizeExprAttr::get(context, expr));
  return attrs;
}

StridedTensorType StridedTensorType::get(Type elementType,
                                         const SymbolicLayout &layout) {
  if (std::optional<Layout> fixed = layout.getStatic())
    return get(elementType, *fixed);
  MLIRContext *context = elementType.getContext();
  SmallVector<int64_t> shape = staticEntries(layout.shape);
  SmallVector<int64_t> strides = staticEntries(layout.strides);
  SmallVector<SizeExprAttr> shapeExprs = exprAttrs(context, layout.shape);
  SmallVector<SizeExprAttr> strideExprs = exprAttrs(context, layout.strides);
  return Base::get(context, ArrayRef<int64_t>(shape), elementType,
                   ArrayRef<int64_t>(strides),
                   layout.offset.getConstant().value_or(ShapedType::kDynamic),
                   ArrayRef<SizeExprAttr>(shapeExprs),
                   ArrayRef<SizeExprAttr>(strideExprs),
                   SizeExprAttr::get(context, layout.offset));
}

StridedTensorType
StridedTensorType::getChecked(function_ref<InFlightDiagnostic()> emitError,
                              Type elementType, const SymbolicLayout &layout) {
  if (std::optional<Layout> fixed = layout.getStatic())
    return getChecked(emitError, elementType, *fixed);
  MLIRContext *context = elementType.getContext();
  SmallVector<int64_t> shape = staticEntries(layout.shape);
  SmallVector<int64_t> strides = staticEntries(layout.strides);
  SmallVector<SizeExprAttr> shapeExprs = exprAttrs(context, layout.shape);
  SmallVector<SizeExprAttr> strideExprs = exprAttrs(context, layout.strides);
  return Base::getChecked(
      emitError, context, ArrayRef<int64_t>(shape), elementType,
      ArrayRef<int64_t>(strides),
      layout.offset.getConstant().value_or(ShapedType::kDynamic),
      ArrayRef<SizeExprAttr>(shapeExprs), ArrayRef<SizeExprAttr>(strideExprs),
      SizeExprAttr::get(context, layout.offset));
}

bool StridedTensorType::isEquivalentTo(StridedTensorType other) const {
  if (getElementType() != other.getElementType())
    return false;
  if (isSymbolic() || other.isSymbolic())
    return sameAddressing(getSymbolicLayout(), other.getSymbolicLayout());
  return sameAddressing(getLayout(), other.getLayout());
}

LogicalResult
StridedTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<int64_t> shape, Type elementType,
                          ArrayRef<int64_t> strides, int64_t offset,
                          ArrayRef<SizeExprAttr> symbolicShape,
                          ArrayRef<SizeExprAttr> symbolicStrides,
                          SizeExprAttr symbolicOffset) {
  if (!dtypeOfElementType(elementType))
    return emitError() << "unsupported element type " << elementType
                       << "; a stride tensor holds f16, bf16, f32, f64, i1, "
                          "i8, i32 or i64";
  if (static_cast<int64_t>(shape.size()) > kMaxRank)
    return emitError() << "rank " << shape.size()
                       << " exceeds the limit of " << kMaxRank << " dims";
  if (strides.size() != shape.size())
    return emitError() << "the shape has rank " << shape.size() << " but "
                       << strides.size() << " strides are given";
  if (symbolicOffset)
    return detail::verifySymbolicTensorType(emitError, shape, strides, offset,
                                            symbolicShape, symbolicStrides,
                                            symbolicOffset);
  if (!symbolicShape.empty() || !symbolicStrides.empty())
    return emitError() << "symbolic sizes or strides need a symbolic offset";
  for (auto [dim, size] : llvm::enumerate(shape))
    if (size < 0)
      return emitError() << "dim " << dim << " has negative size " << size;
  for (auto [dim, stride] : llvm::enumerate(strides))
    if (stride < 0)
      return emitError() << "dim " << dim << " has negative stride " << stride
                         << "; strides must be non-negative (a stride of 0 "
                            "broadcasts)";
  if (offset < 0)
    return emitError() << "the storage offset " << offset
                       << " is negative";
  if (!checkedNumElements(shape)) {
    if (llvm::is_contained(shape, 0))
      return emitError() << "the non-zero dims of this empty tensor multiply "
                            "to more than 2^40, the limit on a tensor's size";
    return emitError() << "the tensor has more than 2^40 elements, the limit "
                          "on a tensor's size";
  }
  Layout layout{Dims(shape.begin(), shape.end()),
                Dims(strides.begin(), strides.end()), offset};
  std::optional<int64_t> extent = storageExtent(layout);
  if (!extent || *extent > (int64_t(1) << 48))
    return emitError() << "the layout reaches beyond storage address 2^48, "
                          "the limit on a tensor's storage";
  return success();
}

/// Parses `[1, 2, 3]` after `name =`.
static ParseResult parseIntegerList(AsmParser &parser,
                                    SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        int64_t value;
        if (parser.parseInteger(value))
          return failure();
        values.push_back(value);
        return success();
      });
}

ParseResult stride::detail::parseStridesAndOffset(
    AsmParser &parser, function_ref<ParseResult()> parseStrides,
    function_ref<ParseResult()> parseOffset) {
  bool sawStrides = false, sawOffset = false;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keywordLoc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword) || parser.parseEqual())
      return failure();
    if (keyword == "strides" && !sawStrides) {
      sawStrides = true;
      if (parseStrides())
        return failure();
    } else if (keyword == "offset" && !sawOffset) {
      sawOffset = true;
      if (parseOffset())
        return failure();
    } else {
      return parser.emitError(keywordLoc)
             << "expected 'strides = [...]' or 'offset = N' (each at most "
                "once), got '"
             << keyword << "'";
    }
  }
  return parser.parseGreater();
}

Type StridedTensorType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess())
    return {};
  // A bracketed shape is a list of size expressions (symbolic sizes).
  if (succeeded(parser.parseOptionalLSquare()))
    return detail::parseSymbolicTensorType(parser, loc);
  if (parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  std::optional<SmallVector<int64_t>> strides;
  std::optional<int64_t> offset;
  auto parseStrides = [&] {
    strides.emplace();
    return parseIntegerList(parser, *strides);
  };
  auto parseOffset = [&] {
    offset.emplace();
    return parser.parseInteger(*offset);
  };
  if (detail::parseStridesAndOffset(parser, parseStrides, parseOffset))
    return {};
  SmallVector<int64_t> layoutStrides;
  if (strides)
    layoutStrides = *strides;
  else
    llvm::append_range(layoutStrides, rowMajorStrides(shape));
  return parser.getChecked<StridedTensorType>(
      loc, parser.getContext(), ArrayRef<int64_t>(shape), elementType,
      ArrayRef<int64_t>(layoutStrides), offset.value_or(0));
}

void StridedTensorType::print(AsmPrinter &printer) const {
  if (isSymbolic())
    return detail::printSymbolicTensorType(printer, *this);
  printer << "<";
  for (int64_t size : getShape())
    printer << size << "x";
  printer << getElementType() << ", strides = [";
  llvm::interleaveComma(getStrides(), printer);
  printer << "], offset = " << getOffset() << ">";
}
