//===- SymbolicSizes.cpp - Symbols, size expressions, symbolic types -----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The symbolic half of the tensor type (its static half is in
// StrideDialect.cpp), the #stride.symbol and #stride.size attributes, and
// the checks that every symbol a type names is declared by its function
// (python-free-docs/symbolic-sizes.md).
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/SymbolicSizes.h"

#include "dialects/stride/IR/StrideOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace stride;

//===----------------------------------------------------------------------===//
// Size expressions in the printed form
//===----------------------------------------------------------------------===//

static ParseResult parseSizeTerm(AsmParser &parser, SizeExpr &expr);

static ParseResult overflowError(AsmParser &parser, SMLoc loc) {
  return parser.emitError(loc, "the size expression overflows int64");
}

static ParseResult parseSizeFactor(AsmParser &parser, SizeExpr &expr) {
  SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalMinus())) {
    SizeExpr inner;
    if (parseSizeFactor(parser, inner))
      return failure();
    std::optional<SizeExpr> negated = inner.times(SizeExpr::constant(-1));
    if (!negated)
      return overflowError(parser, loc);
    expr = *negated;
    return success();
  }
  if (succeeded(parser.parseOptionalLParen()))
    return failure(parseSizeExpr(parser, expr) || parser.parseRParen());
  int64_t value = 0;
  OptionalParseResult integer = parser.parseOptionalInteger(value);
  if (integer.has_value()) {
    if (failed(*integer))
      return failure();
    expr = SizeExpr::constant(value);
    return success();
  }
  StringRef name;
  if (succeeded(parser.parseOptionalKeyword(&name))) {
    expr = SizeExpr::symbol(name.str());
    return success();
  }
  return parser.emitError(loc, "expected a size: an integer, a symbol name "
                               "or a parenthesized expression");
}

static ParseResult parseSizeTerm(AsmParser &parser, SizeExpr &expr) {
  if (parseSizeFactor(parser, expr))
    return failure();
  while (succeeded(parser.parseOptionalStar())) {
    SMLoc loc = parser.getCurrentLocation();
    SizeExpr factor;
    if (parseSizeFactor(parser, factor))
      return failure();
    std::optional<SizeExpr> product = expr.times(factor);
    if (!product)
      return overflowError(parser, loc);
    expr = *product;
  }
  return success();
}

ParseResult stride::parseSizeExpr(AsmParser &parser, SizeExpr &expr) {
  if (parseSizeTerm(parser, expr))
    return failure();
  while (true) {
    bool add = succeeded(parser.parseOptionalPlus());
    if (!add && failed(parser.parseOptionalMinus()))
      return success();
    SMLoc loc = parser.getCurrentLocation();
    SizeExpr term;
    if (parseSizeTerm(parser, term))
      return failure();
    std::optional<SizeExpr> next = add ? expr.plus(term) : expr.minus(term);
    if (!next)
      return overflowError(parser, loc);
    expr = *next;
  }
}

//===----------------------------------------------------------------------===//
// #stride.size
//===----------------------------------------------------------------------===//

SizeExprAttr SizeExprAttr::get(MLIRContext *context, const SizeExpr &expr) {
  SmallVector<int64_t> coefficients, degrees;
  SmallVector<StringAttr> factors;
  for (const auto &[monomial, coefficient] : expr.terms()) {
    coefficients.push_back(coefficient);
    degrees.push_back(static_cast<int64_t>(monomial.size()));
    for (const std::string &name : monomial)
      factors.push_back(StringAttr::get(context, name));
  }
  return get(context, coefficients, degrees, factors);
}

SizeExpr SizeExprAttr::getValue() const {
  std::vector<std::pair<int64_t, SizeExpr::Monomial>> terms;
  ArrayRef<StringAttr> factors = getFactors();
  size_t next = 0;
  for (auto [coefficient, degree] :
       llvm::zip_equal(getCoefficients(), getDegrees())) {
    SizeExpr::Monomial monomial;
    for (int64_t i = 0; i < degree && next < factors.size(); ++i)
      monomial.push_back(factors[next++].str());
    terms.emplace_back(coefficient, std::move(monomial));
  }
  return SizeExpr::fromTerms(terms);
}

Attribute SizeExprAttr::parse(AsmParser &parser, Type) {
  SizeExpr expr;
  if (parser.parseLess() || parseSizeExpr(parser, expr) ||
      parser.parseGreater())
    return {};
  return get(parser.getContext(), expr);
}

void SizeExprAttr::print(AsmPrinter &printer) const {
  printer << "<" << getValue().str() << ">";
}

//===----------------------------------------------------------------------===//
// #stride.symbol
//===----------------------------------------------------------------------===//

static bool isIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name.front()) || name.front() == '_'))
    return false;
  return llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

LogicalResult SymbolAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringAttr name, int64_t min, int64_t max,
                                 int64_t multipleOf) {
  if (!name || !isIdentifier(name.getValue()))
    return emitError() << "symbol name " << name
                       << " must be an identifier (a letter or '_', then "
                          "letters, digits or '_')";
  StringRef text = name.getValue();
  if (min < 0)
    return emitError() << "symbol '" << text << "' has the range [" << min
                       << ", " << max
                       << "], whose minimum is negative; a size is never "
                          "negative";
  if (min > max)
    return emitError() << "symbol '" << text << "' has the empty range ["
                       << min << ", " << max
                       << "]: its minimum exceeds its maximum";
  if (max > kMaxElements)
    return emitError() << "symbol '" << text << "' has the maximum " << max
                       << ", above 2^40, the limit on a tensor's size";
  if (multipleOf < 1)
    return emitError() << "symbol '" << text << "' has multiple_of "
                       << multipleOf << "; it must be at least 1";
  SizeSymbol symbol{text.str(), min, max, multipleOf};
  if (!symbol.smallest())
    return emitError() << "symbol '" << text << "' has no value in [" << min
                       << ", " << max << "] that is a multiple of "
                       << multipleOf;
  return success();
}

SizeSymbol SymbolAttr::getSizeSymbol() const {
  return SizeSymbol{getName().str(), getMin(), getMax(), getMultipleOf()};
}

//===----------------------------------------------------------------------===//
// The tensor type's symbolic half
//===----------------------------------------------------------------------===//

bool StridedTensorType::isSymbolic() const {
  return static_cast<bool>(getSymbolicOffset());
}

static SizeExprs sizeExprsOf(ArrayRef<SizeExprAttr> attrs) {
  SizeExprs exprs;
  for (SizeExprAttr attr : attrs)
    exprs.push_back(attr.getValue());
  return exprs;
}

SymbolicLayout StridedTensorType::getSymbolicLayout() const {
  if (!isSymbolic())
    return SymbolicLayout::fromLayout(getLayout());
  return SymbolicLayout{sizeExprsOf(getSymbolicShape()),
                        sizeExprsOf(getSymbolicStrides()),
                        getSymbolicOffset().getValue()};
}

/// The static entries agree with the expressions: each is the constant,
/// or kDynamic where the expression names a symbol.
static bool entriesMatch(ArrayRef<int64_t> entries,
                         ArrayRef<SizeExprAttr> exprs) {
  if (entries.size() != exprs.size())
    return false;
  for (auto [entry, expr] : llvm::zip_equal(entries, exprs))
    if (!expr || entry != expr.getValue().getConstant().value_or(
                              ShapedType::kDynamic))
      return false;
  return true;
}

LogicalResult stride::detail::verifySymbolicTensorType(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> shape,
    ArrayRef<int64_t> strides, int64_t offset,
    ArrayRef<SizeExprAttr> symbolicShape,
    ArrayRef<SizeExprAttr> symbolicStrides, SizeExprAttr symbolicOffset) {
  if (!entriesMatch(shape, symbolicShape) ||
      !entriesMatch(strides, symbolicStrides) ||
      !entriesMatch({offset}, {symbolicOffset}))
    return emitError() << "the static sizes, strides and offset of a "
                          "symbolic tensor type must be the constants of its "
                          "expressions (kDynamic where one names a symbol)";
  bool anySymbol = llvm::any_of(shape, ShapedType::isDynamic) ||
                   llvm::any_of(strides, ShapedType::isDynamic) ||
                   ShapedType::isDynamic(offset);
  if (!anySymbol)
    return emitError() << "a symbolic tensor type names no symbol; a type "
                          "of constants is the static type";
  for (auto [dim, size] : llvm::enumerate(shape))
    if (!ShapedType::isDynamic(size) && size < 0)
      return emitError() << "dim " << dim << " has negative size " << size;
  for (auto [dim, stride] : llvm::enumerate(strides))
    if (!ShapedType::isDynamic(stride) && stride < 0)
      return emitError() << "dim " << dim << " has negative stride "
                         << stride;
  if (!ShapedType::isDynamic(offset) && offset < 0)
    return emitError() << "the storage offset " << offset << " is negative";
  return success();
}

void stride::detail::printSymbolicTensorType(AsmPrinter &printer,
                                             StridedTensorType type) {
  SymbolicLayout layout = type.getSymbolicLayout();
  printer << "<" << formatSizes(layout.shape) << ", " << type.getElementType()
          << ", strides = " << formatSizes(layout.strides)
          << ", offset = " << layout.offset.str() << ">";
}

/// Parses the rest of `[size-expr, ...]` after its `[`.
static ParseResult parseSizeListAfterBracket(AsmParser &parser,
                                             SizeExprs &sizes) {
  if (succeeded(parser.parseOptionalRSquare()))
    return success();
  do {
    SizeExpr size;
    if (parseSizeExpr(parser, size))
      return failure();
    sizes.push_back(std::move(size));
  } while (succeeded(parser.parseOptionalComma()));
  return parser.parseRSquare();
}

/// Parses `[size-expr, ...]`.
static ParseResult parseSizeList(AsmParser &parser, SizeExprs &sizes) {
  return failure(parser.parseLSquare() ||
                 parseSizeListAfterBracket(parser, sizes));
}

Type stride::detail::parseSymbolicTensorType(AsmParser &parser, SMLoc loc) {
  SizeExprs shape;
  Type elementType;
  if (parseSizeListAfterBracket(parser, shape) || parser.parseComma() ||
      parser.parseType(elementType))
    return {};
  std::optional<SizeExprs> strides;
  std::optional<SizeExpr> offset;
  auto parseStrides = [&] {
    strides.emplace();
    return parseSizeList(parser, *strides);
  };
  auto parseOffset = [&] {
    offset.emplace();
    return parseSizeExpr(parser, *offset);
  };
  if (parseStridesAndOffset(parser, parseStrides, parseOffset))
    return {};
  if (!strides) {
    strides = rowMajorStrides(shape);
    if (!strides) {
      parser.emitError(loc) << "the row-major strides overflow int64";
      return {};
    }
  }
  if (strides->size() != shape.size()) {
    parser.emitError(loc) << "the shape has rank " << shape.size() << " but "
                          << strides->size() << " strides are given";
    return {};
  }
  SymbolicLayout layout{shape, *strides, offset.value_or(SizeExpr())};
  return StridedTensorType::getChecked(
      [&] { return parser.emitError(loc); }, elementType, layout);
}

//===----------------------------------------------------------------------===//
// Declared symbols
//===----------------------------------------------------------------------===//

/// The symbols `op` declares in `stride.symbols`.
static SymbolRanges symbolsOn(Operation *op) {
  SymbolRanges table;
  auto symbols = op->getAttrOfType<ArrayAttr>(StrideDialect::kSymbolsAttrName);
  if (!symbols)
    return table;
  for (Attribute attr : symbols)
    if (auto symbol = dyn_cast<SymbolAttr>(attr))
      table[symbol.getName().str()] = symbol.getSizeSymbol();
  return table;
}

SymbolRanges stride::declaredSymbols(FunctionOpInterface func) {
  return symbolsOn(func);
}

SymbolRanges stride::enclosingSymbols(Operation *op) {
  // A kernel outlined out of its function (into a plan.executable) carries
  // the function's symbols itself (stride-outline-executable).
  for (Operation *at = op; at; at = at->getParentOp())
    if (isa<FunctionOpInterface, KernelOp>(at) &&
        at->hasAttr(StrideDialect::kSymbolsAttrName))
      return symbolsOn(at);
  return SymbolRanges();
}

std::optional<Layout> stride::layoutAtLargest(StridedTensorType type,
                                              Operation *scope) {
  if (!type.isSymbolic())
    return type.getLayout();
  return type.getSymbolicLayout().evaluate(
      largestValues(enclosingSymbols(scope)));
}

static bool isSymbolicTensor(Type type) {
  auto tensor = dyn_cast<StridedTensorType>(type);
  return tensor && tensor.isSymbolic();
}

/// The first symbol `type`'s layout names, if it is symbolic.
static std::optional<std::string> firstSymbol(Type type) {
  if (!isSymbolicTensor(type))
    return std::nullopt;
  std::set<std::string> names =
      cast<StridedTensorType>(type).getSymbolicLayout().symbols();
  return *names.begin();
}

std::optional<SymbolicValue>
stride::firstSymbolicValue(FunctionOpInterface func) {
  if (func.isExternal())
    return std::nullopt;
  for (BlockArgument argument : func.getArguments())
    if (std::optional<std::string> symbol = firstSymbol(argument.getType()))
      return SymbolicValue{argument, *symbol};
  std::optional<SymbolicValue> found;
  func->walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (std::optional<std::string> symbol = firstSymbol(result.getType())) {
        found = SymbolicValue{result, *symbol};
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return found;
}

/// Every symbol of the symbolic `type` (`what`: "result #0 of type ...")
/// is in `table`, and no size, stride or offset can be negative; errors
/// through `emit`, with a note at `declarer` (the function).
static LogicalResult
checkTypeSymbols(Type type, const SymbolRanges &table, Location declarer,
                 const std::function<InFlightDiagnostic()> &emit) {
  if (!isSymbolicTensor(type))
    return success();
  SymbolicLayout layout = cast<StridedTensorType>(type).getSymbolicLayout();
  for (const std::string &name : layout.symbols()) {
    if (table.count(name))
      continue;
    InFlightDiagnostic diag = emit();
    diag << "names the symbol '" << name
         << "', which its function does not declare";
    diag.attachNote(declarer)
        << "the function declares its symbols with their ranges in '"
        << StrideDialect::kSymbolsAttrName << "', e.g. #stride.symbol<\""
        << name << "\", range = [1, 1024]>";
    return diag;
  }
  auto checkNonNegative = [&](const SizeExpr &expr,
                              StringRef what) -> LogicalResult {
    std::optional<SizeInterval> range = expr.bounds(table);
    if (range && range->lo >= 0)
      return success();
    return emit() << "has the " << what << " " << expr.str()
                  << ", which is negative for some values of its symbols' "
                     "ranges (or overflows int64)";
  };
  for (const SizeExpr &size : layout.shape)
    if (failed(checkNonNegative(size, "size")))
      return failure();
  for (const SizeExpr &stride : layout.strides)
    if (failed(checkNonNegative(stride, "stride")))
      return failure();
  return checkNonNegative(layout.offset, "offset");
}

LogicalResult stride::detail::verifyDeclaredSymbols(Operation *op) {
  if (llvm::none_of(op->getOperandTypes(), isSymbolicTensor) &&
      llvm::none_of(op->getResultTypes(), isSymbolicTensor))
    return success();
  SymbolRanges table = enclosingSymbols(op);
  auto func = op->getParentOfType<FunctionOpInterface>();
  Location declarer = func ? func.getLoc() : op->getLoc();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(checkTypeSymbols(type, table, declarer, [&, i = i] {
          return op->emitOpError() << "result #" << i << " ";
        })))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(checkTypeSymbols(type, table, declarer, [&, i = i] {
          return op->emitOpError() << "operand #" << i << " ";
        })))
      return failure();
  return success();
}

LogicalResult stride::verifySymbolsAttr(Operation *op, Attribute attr) {
  StringRef attrName = StrideDialect::kSymbolsAttrName;
  auto func = dyn_cast<FunctionOpInterface>(op);
  // An outlined kernel keeps its function's symbols (enclosingSymbols).
  if (isa<KernelOp>(op))
    return success();
  if (!func)
    return op->emitError() << "'" << attrName
                           << "' belongs on a function, not on '"
                           << op->getName() << "'";
  auto symbols = dyn_cast<ArrayAttr>(attr);
  if (!symbols || !llvm::all_of(symbols, llvm::IsaPred<SymbolAttr>))
    return op->emitError() << "'" << attrName
                           << "' must be an array of #stride.symbol, but is "
                           << attr;
  std::set<StringRef> names;
  for (Attribute symbol : symbols)
    if (!names.insert(cast<SymbolAttr>(symbol).getName().getValue()).second)
      return op->emitError() << "'" << attrName << "' declares the symbol '"
                             << cast<SymbolAttr>(symbol).getName().getValue()
                             << "' twice";
  SymbolRanges table = declaredSymbols(func);
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (failed(checkTypeSymbols(type, table, op->getLoc(), [&, i = i] {
          return op->emitError() << "argument #" << i << " ";
        })))
      return failure();
  for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
    if (failed(checkTypeSymbols(type, table, op->getLoc(), [&, i = i] {
          return op->emitError() << "result #" << i << " ";
        })))
      return failure();
  return success();
}

StridedTensorType stride::typeAtValues(StridedTensorType type,
                                       const SymbolValues &values) {
  if (!type.isSymbolic())
    return type;
  std::optional<SymbolicLayout> layout =
      type.getSymbolicLayout().substitute(values);
  return layout ? StridedTensorType::get(type.getElementType(), *layout)
                : StridedTensorType();
}

SymbolValues stride::pinnedValuesOf(ArrayAttr ranges) {
  SymbolValues pinned;
  for (auto range : ranges.getAsRange<SymbolAttr>())
    if (range.getMin() == range.getMax())
      pinned[range.getName().str()] = range.getMin();
  return pinned;
}

LogicalResult stride::verifySymbolRanges(Operation *op, ArrayAttr ranges,
                                         const SymbolRanges *declared) {
  if (ranges.empty())
    return op->emitOpError() << "has an empty 'when' guard; name at least "
                                "one symbol's range";
  llvm::StringSet<> named;
  for (auto range : ranges.getAsRange<SymbolAttr>()) {
    StringRef name = range.getName().getValue();
    if (!named.insert(name).second)
      return op->emitOpError()
             << "names symbol '" << name << "' twice in its 'when' guard";
    if (!declared)
      continue;
    auto symbol = declared->find(name.str());
    if (symbol == declared->end())
      return op->emitOpError()
             << "guards symbol '" << name
             << "', which the enclosing function does not declare";
    if (range.getMin() < symbol->second.min ||
        range.getMax() > symbol->second.max)
      return op->emitOpError()
             << "guards symbol '" << name << "' by [" << range.getMin()
             << ", " << range.getMax() << "], outside its range: "
             << symbol->second.describe();
  }
  return success();
}
