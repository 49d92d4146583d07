//===- CudaText.cpp - Pieces of CUDA C++ text the printers share ----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "CudaText.h"

#include "dialects/stride/IR/IndexMaps.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace stride {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

const char *storageType(DType t) {
  switch (t) {
  case DType::F16: return "__half";
  case DType::BF16: return "__nv_bfloat16";
  case DType::F32: return "float";
  case DType::F64: return "double";
  case DType::I1: return "unsigned char";
  case DType::I8: return "signed char";
  case DType::I32: return "int";
  case DType::I64: return "long long";
  }
  return "?";
}

const char *computeType(DType t) {
  switch (t) {
  case DType::F16:
  case DType::BF16:
  case DType::F32: return "float";
  case DType::F64: return "double";
  case DType::I1: return "bool";
  case DType::I8: return "signed char";
  case DType::I32: return "int";
  case DType::I64: return "long long";
  }
  return "?";
}

const char *accumulatorType(ReduceKind kind, DType t) {
  if (isArgKind(kind))
    return "unsigned long long";
  if (t == DType::F64)
    return "double";
  return isFloat(t) ? "float" : "long long";
}

bool isHalfLike(DType t) { return t == DType::F16 || t == DType::BF16; }

std::string roundTo(DType t, const std::string &expr) {
  if (t == DType::F16)
    return "stride_round_f16(" + expr + ")";
  if (t == DType::BF16)
    return "stride_round_bf16(" + expr + ")";
  return expr;
}

//===----------------------------------------------------------------------===//
// Literals
//===----------------------------------------------------------------------===//

std::string floatLiteral(double value, DType t) {
  bool isDouble = t == DType::F64;
  if (t != DType::F64) {
    llvm::APFloat f(value);
    bool lost = false;
    const llvm::fltSemantics &sem =
        t == DType::F16    ? llvm::APFloat::IEEEhalf()
        : t == DType::BF16 ? llvm::APFloat::BFloat()
                           : llvm::APFloat::IEEEsingle();
    f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
    f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    value = f.convertToDouble();
  }
  if (std::isnan(value))
    return isDouble ? "STRIDE_NAN_D" : "STRIDE_NAN_F";
  if (std::isinf(value))
    return std::string(value < 0 ? "-" : "") +
           (isDouble ? "STRIDE_INF_D" : "STRIDE_INF_F");
  std::string text = isDouble ? fmt::format("{}", value)
                              : fmt::format("{}", static_cast<float>(value));
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  if (!isDouble)
    text += "f";
  if (text[0] == '-')
    text = "(" + text + ")";
  return text;
}

std::string intLiteral(int64_t value, DType t) {
  switch (t) {
  case DType::I1:
    return value ? "true" : "false";
  case DType::I8:
    return fmt::format("((signed char){})", value);
  case DType::I32:
    if (value == std::numeric_limits<int32_t>::min())
      return "(-2147483647 - 1)";
    return value < 0 ? fmt::format("({})", value) : fmt::format("{}", value);
  case DType::I64:
    if (value == std::numeric_limits<int64_t>::min())
      return "(-9223372036854775807LL - 1)";
    return value < 0 ? fmt::format("({}LL)", value)
                     : fmt::format("{}LL", value);
  default:
    return floatLiteral(static_cast<double>(value), t);
  }
}

std::string literalOf(double value, DType t) {
  if (isFloat(t))
    return floatLiteral(value, t);
  return intLiteral(static_cast<int64_t>(value), t);
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

std::string opName(Operation *op) {
  return op->getName().stripDialect().str();
}

std::string cIdentifier(StringRef name) {
  std::string id;
  for (char c : name)
    id += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0])))
    id = "k_" + id;
  static const llvm::StringSet<> reserved = {
      "int", "float", "double", "char", "void", "long", "short", "bool",
      "if", "else", "for", "while", "do", "return", "const", "static",
      "signed", "unsigned", "switch", "case", "default", "break", "continue",
      "struct", "class", "union", "enum", "typedef", "using", "namespace",
      "template", "typename", "auto", "register", "volatile", "extern",
      "inline", "true", "false", "new", "delete", "this", "operator",
      "sizeof", "goto", "main", "atomicAdd", "atomicCAS", "atomicOr"};
  if (reserved.contains(id) || StringRef(id).starts_with("stride_") ||
      StringRef(id).starts_with("__"))
    id = "k_" + id;
  return id;
}

//===----------------------------------------------------------------------===//
// Coordinates
//===----------------------------------------------------------------------===//

static bool isSimple(const std::string &expr) {
  return llvm::all_of(expr, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string paren(const std::string &expr) {
  return isSimple(expr) ? expr : "(" + expr + ")";
}

std::string affine(const std::string &c, int64_t k, int64_t b) {
  std::string term;
  if (k == 0 || c == "0")
    term = "";
  else if (k == 1)
    term = c;
  else
    term = paren(c) + " * " + std::to_string(k);
  if (term.empty())
    return std::to_string(b);
  if (b == 0)
    return term;
  return term + " + " + std::to_string(b);
}

/// True when `expr` is non-negative for non-negative dims.
static bool isNonNegative(AffineExpr expr) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return c.getValue() >= 0;
  if (isa<AffineDimExpr>(expr))
    return true;
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return false;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
  case AffineExprKind::Mul:
    return isNonNegative(binary.getLHS()) && isNonNegative(binary.getRHS());
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv:
    return isNonNegative(binary.getLHS()) && isNonNegative(binary.getRHS());
  case AffineExprKind::Mod:
    return true; // a floor remainder by a positive divisor
  default:
    return false;
  }
}

/// The constant k when `expr` is `x * k` with k < 0 (printed as a
/// subtraction), with `x` in `term`.
static std::optional<int64_t> negativeFactor(AffineExpr expr,
                                             AffineExpr &term) {
  auto mul = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!mul || mul.getKind() != AffineExprKind::Mul)
    return std::nullopt;
  auto k = dyn_cast<AffineConstantExpr>(mul.getRHS());
  if (!k || k.getValue() >= 0)
    return std::nullopt;
  term = mul.getLHS();
  return k.getValue();
}

std::string indexText(AffineExpr expr, ArrayRef<std::string> dims) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return std::to_string(c.getValue());
  if (auto d = dyn_cast<AffineDimExpr>(expr))
    return dims[d.getPosition()];
  auto binary = cast<AffineBinaryOpExpr>(expr);
  std::string lhs = indexText(binary.getLHS(), dims);
  AffineExpr rhsExpr = binary.getRHS();
  switch (expr.getKind()) {
  case AffineExprKind::Add: {
    AffineExpr term;
    if (auto c = dyn_cast<AffineConstantExpr>(rhsExpr); c && c.getValue() < 0)
      return lhs + " - " + std::to_string(-c.getValue());
    if (std::optional<int64_t> k = negativeFactor(rhsExpr, term)) {
      std::string subtrahend = indexText(term, dims);
      return lhs + " - " +
             (*k == -1 ? paren(subtrahend) : affine(subtrahend, -*k, 0));
    }
    return lhs + " + " + indexText(rhsExpr, dims);
  }
  case AffineExprKind::Mul:
    if (auto k = dyn_cast<AffineConstantExpr>(rhsExpr))
      return affine(lhs, k.getValue(), 0);
    return paren(lhs) + " * " + paren(indexText(rhsExpr, dims));
  default:
    break;
  }
  std::string rhs = paren(indexText(rhsExpr, dims));
  bool exact = isNonNegative(binary.getLHS()) && isNonNegative(rhsExpr);
  switch (expr.getKind()) {
  case AffineExprKind::FloorDiv:
    return exact ? paren(lhs) + " / " + rhs
                 : fmt::format("stride_floordiv({}, {})", lhs, rhs);
  case AffineExprKind::CeilDiv:
    return exact ? fmt::format("({} + {} - 1) / {}", lhs, rhs, rhs)
                 : fmt::format("-stride_floordiv(-({}), {})", lhs, rhs);
  default: // Mod
    return exact ? paren(lhs) + " % " + rhs
                 : fmt::format("stride_floormod({}, {})", lhs, rhs);
  }
}

Coords applyIndexMap(AffineMap map, ArrayRef<std::string> coords,
                     ArrayRef<int64_t> shape) {
  MLIRContext *context = map.getContext();
  SmallVector<AffineExpr> known;
  for (auto [d, c] : llvm::enumerate(coords)) {
    long long value = 0;
    known.push_back(llvm::StringRef(c).getAsInteger(10, value)
                        ? getAffineDimExpr(d, context)
                        : getAffineConstantExpr(value, context));
  }
  map = simplifyInBounds(
      map.replaceDimsAndSymbols(known, {}, coords.size(), 0), shape);
  Coords mapped;
  for (AffineExpr expr : map.getResults())
    mapped.push_back(indexText(expr, coords));
  return mapped;
}

std::string addressText(const Layout &layout, ArrayRef<std::string> coords,
                        MLIRContext *context) {
  AffineExpr address = layoutAddress(layout, context) + layout.offset;
  return applyIndexMap(AffineMap::get(layout.rank(), 0, address), coords,
                       layout.shape)
      .front();
}

std::string sizeParameterName(StringRef name) {
  return ("size_" + name).str();
}

std::string sizeText(const SizeExpr &size) {
  if (std::optional<int64_t> value = size.getConstant())
    return std::to_string(*value);
  std::string text;
  for (const auto &[monomial, coefficient] : size.terms()) {
    std::string term;
    for (const std::string &name : monomial)
      term += (term.empty() ? "(idx_t)" : " * ") + sizeParameterName(name);
    if (monomial.empty())
      term = std::to_string(std::abs(coefficient));
    else if (std::abs(coefficient) != 1)
      term += " * " + std::to_string(std::abs(coefficient));
    text += text.empty() ? (coefficient < 0 ? "-" : "")
                         : (coefficient < 0 ? " - " : " + ");
    text += term;
  }
  return "(" + text + ")";
}

/// Whether `expr` is one parenthesized expression: its first '(' closes
/// at its last character.
static bool isParenthesized(const std::string &expr) {
  if (expr.size() < 2 || expr.front() != '(' || expr.back() != ')')
    return false;
  int depth = 0;
  for (size_t i = 0; i < expr.size(); ++i) {
    depth += expr[i] == '(' ? 1 : expr[i] == ')' ? -1 : 0;
    if (depth == 0)
      return i + 1 == expr.size();
  }
  return false;
}

std::string symbolicAddressText(const SymbolicLayout &layout,
                                ArrayRef<std::string> coords) {
  std::string text;
  for (int64_t d = 0; d < layout.rank(); ++d) {
    if (layout.shape[d].getConstant() == 1 ||
        layout.strides[d].getConstant() == 0)
      continue;
    std::string stride = sizeText(layout.strides[d]);
    // A coordinate may be an expression (a concatenation's `i - 3`).
    text += (text.empty() ? "" : " + ") +
            (stride == "1" || isParenthesized(coords[d])
                 ? coords[d]
                 : paren(coords[d])) +
            (stride == "1" ? "" : " * " + stride);
  }
  if (layout.offset.getConstant() != 0)
    text += (text.empty() ? "" : " + ") + sizeText(layout.offset);
  return text.empty() ? "0" : text;
}

std::string joinCoords(ArrayRef<std::string> coords) {
  std::string s;
  for (size_t i = 0; i < coords.size(); ++i)
    s += (i ? ", " : "") + coords[i];
  return s;
}

std::string dimsText(ArrayRef<int64_t> dims) {
  return joinCoords(llvm::to_vector(
      llvm::map_range(dims, [](int64_t d) { return std::to_string(d); })));
}

std::string shapeText(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s = std::to_string(shape.front());
  for (int64_t size : shape.drop_front()) {
    s += 'x';
    s += std::to_string(size);
  }
  return s;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

std::string identityOf(ReduceKind kind, DType t) {
  bool isF64 = t == DType::F64;
  bool isF = isFloat(t);
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::Mean:
  case ReduceKind::Any:
    return isF ? (isF64 ? "0.0" : "0.0f") : "0LL";
  case ReduceKind::Prod:
    return isF ? (isF64 ? "1.0" : "1.0f") : "1LL";
  case ReduceKind::Max:
    return isF ? (isF64 ? "(-STRIDE_INF_D)" : "(-STRIDE_INF_F)")
               : "(-9223372036854775807LL - 1)";
  case ReduceKind::Min:
    return isF ? (isF64 ? "STRIDE_INF_D" : "STRIDE_INF_F")
               : "9223372036854775807LL";
  case ReduceKind::ArgMax:
  case ReduceKind::ArgMin:
    return "0ULL";
  }
  return "0";
}

std::string combineOf(ReduceKind kind, const std::string &a,
                      const std::string &b) {
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::Mean:
    return "stride_add(" + a + ", " + b + ")";
  case ReduceKind::Prod:
    return "stride_mul(" + a + ", " + b + ")";
  case ReduceKind::Max:
    return "stride_maximum(" + a + ", " + b + ")";
  case ReduceKind::Min:
    return "stride_minimum(" + a + ", " + b + ")";
  case ReduceKind::Any:
    return "(" + a + " | " + b + ")";
  case ReduceKind::ArgMax:
  case ReduceKind::ArgMin:
    return "stride_arg_combine(" + a + ", " + b + ")";
  }
  return a;
}

std::string accumulated(const ReductionInfo &info, const std::string &value,
                        ArrayRef<std::string> inputCoords) {
  if (isArgKind(info.kind))
    return combineOf(info.kind, info.acc,
                     std::string(info.kind == ReduceKind::ArgMax
                                     ? "stride_argmax_key("
                                     : "stride_argmin_key(") +
                         value + ", " + inputCoords[info.dims.front()] + ")");
  std::string asAcc =
      isFloat(info.dtype) ? value : "(long long)" + paren(value);
  return combineOf(info.kind, info.acc, asAcc);
}

} // namespace stride
