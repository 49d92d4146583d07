//===- SizeExpr.cpp - Sizes and strides as polynomials of symbols --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Support/SizeExpr.h"

#include <algorithm>
#include <cctype>
#include <string_view>

using namespace stride;

namespace {
std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum))
    return std::nullopt;
  return sum;
}

std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product))
    return std::nullopt;
  return product;
}

/// Adds `coefficient * monomial` into `terms`, dropping a term that cancels.
bool accumulate(std::map<SizeExpr::Monomial, int64_t> &terms,
                const SizeExpr::Monomial &monomial, int64_t coefficient) {
  std::optional<int64_t> sum = checkedAdd(terms[monomial], coefficient);
  if (!sum)
    return false;
  if (*sum == 0)
    terms.erase(monomial);
  else
    terms[monomial] = *sum;
  return true;
}
} // namespace

//===----------------------------------------------------------------------===//
// SizeSymbol
//===----------------------------------------------------------------------===//

std::optional<int64_t> SizeSymbol::smallest() const {
  if (multipleOf < 1 || min > max)
    return std::nullopt;
  int64_t value = (min + multipleOf - 1) / multipleOf * multipleOf;
  if (value > max)
    return std::nullopt;
  return value;
}

std::optional<int64_t> SizeSymbol::largest() const {
  if (!smallest())
    return std::nullopt;
  return max / multipleOf * multipleOf;
}

SymbolValues stride::largestValues(const SymbolRanges &ranges) {
  SymbolValues values;
  for (const auto &[name, symbol] : ranges)
    if (std::optional<int64_t> v = symbol.largest())
      values[name] = *v;
  return values;
}

std::string SizeSymbol::describe() const {
  std::string text = name + " in [" + std::to_string(min) + ", " +
                     std::to_string(max) + "]";
  if (multipleOf != 1)
    text += ", a multiple of " + std::to_string(multipleOf);
  return text;
}

//===----------------------------------------------------------------------===//
// SizeExpr
//===----------------------------------------------------------------------===//

SizeExpr SizeExpr::constant(int64_t value) {
  SizeExpr expr;
  if (value != 0)
    expr.termMap[{}] = value;
  return expr;
}

SizeExpr SizeExpr::symbol(const std::string &name) {
  SizeExpr expr;
  expr.termMap[{name}] = 1;
  return expr;
}

SizeExpr SizeExpr::fromTerms(
    const std::vector<std::pair<int64_t, Monomial>> &terms) {
  SizeExpr expr;
  for (auto [coefficient, monomial] : terms) {
    std::sort(monomial.begin(), monomial.end());
    // The coefficients come from a verified attribute; a sum that
    // overflows keeps the last partial sum, which the verifier's limits
    // never reach.
    accumulate(expr.termMap, monomial, coefficient);
  }
  return expr;
}

std::optional<int64_t> SizeExpr::getConstant() const {
  if (termMap.empty())
    return 0;
  if (termMap.size() == 1 && termMap.begin()->first.empty())
    return termMap.begin()->second;
  return std::nullopt;
}

std::optional<std::string> SizeExpr::getSymbol() const {
  if (termMap.size() != 1)
    return std::nullopt;
  const auto &[monomial, coefficient] = *termMap.begin();
  if (coefficient != 1 || monomial.size() != 1)
    return std::nullopt;
  return monomial.front();
}

std::set<std::string> SizeExpr::symbols() const {
  std::set<std::string> names;
  for (const auto &term : termMap)
    names.insert(term.first.begin(), term.first.end());
  return names;
}

std::optional<SizeExpr> SizeExpr::plus(const SizeExpr &other) const {
  SizeExpr sum = *this;
  for (const auto &[monomial, coefficient] : other.termMap)
    if (!accumulate(sum.termMap, monomial, coefficient))
      return std::nullopt;
  return sum;
}

std::optional<SizeExpr> SizeExpr::minus(const SizeExpr &other) const {
  std::optional<SizeExpr> negated = other.times(constant(-1));
  if (!negated)
    return std::nullopt;
  return plus(*negated);
}

std::optional<SizeExpr> SizeExpr::times(const SizeExpr &other) const {
  SizeExpr product;
  for (const auto &[left, a] : termMap) {
    for (const auto &[right, b] : other.termMap) {
      std::optional<int64_t> coefficient = checkedMul(a, b);
      if (!coefficient)
        return std::nullopt;
      Monomial monomial;
      std::merge(left.begin(), left.end(), right.begin(), right.end(),
                 std::back_inserter(monomial));
      if (!accumulate(product.termMap, monomial, *coefficient))
        return std::nullopt;
    }
  }
  return product;
}

std::optional<int64_t> SizeExpr::evaluate(const SymbolValues &values) const {
  int64_t sum = 0;
  for (const auto &[monomial, coefficient] : termMap) {
    std::optional<int64_t> term = coefficient;
    for (const std::string &name : monomial) {
      auto it = values.find(name);
      if (it == values.end())
        return std::nullopt;
      term = checkedMul(*term, it->second);
      if (!term)
        return std::nullopt;
    }
    std::optional<int64_t> next = checkedAdd(sum, *term);
    if (!next)
      return std::nullopt;
    sum = *next;
  }
  return sum;
}

std::optional<SizeExpr>
SizeExpr::substitute(const SymbolValues &values) const {
  SizeExpr result;
  for (const auto &[monomial, coefficient] : termMap) {
    std::optional<int64_t> factor = coefficient;
    Monomial kept;
    for (const std::string &name : monomial) {
      auto it = values.find(name);
      if (it == values.end())
        kept.push_back(name);
      else if (!(factor = checkedMul(*factor, it->second)))
        return std::nullopt;
    }
    if (!accumulate(result.termMap, kept, *factor))
      return std::nullopt;
  }
  return result;
}

std::optional<SizeInterval> SizeExpr::bounds(const SymbolRanges &table) const {
  SizeInterval total{0, 0};
  for (const auto &[monomial, coefficient] : termMap) {
    // Symbols are non-negative, so a product of them is smallest at the
    // smallest values and largest at the largest.
    SizeInterval product{1, 1};
    for (const std::string &name : monomial) {
      auto it = table.find(name);
      if (it == table.end() || !it->second.smallest())
        return std::nullopt;
      std::optional<int64_t> lo = checkedMul(product.lo, *it->second.smallest());
      std::optional<int64_t> hi = checkedMul(product.hi, *it->second.largest());
      if (!lo || !hi)
        return std::nullopt;
      product = {*lo, *hi};
    }
    std::optional<int64_t> lo = checkedMul(product.lo, coefficient);
    std::optional<int64_t> hi = checkedMul(product.hi, coefficient);
    if (!lo || !hi)
      return std::nullopt;
    if (coefficient < 0)
      std::swap(lo, hi);
    std::optional<int64_t> sumLo = checkedAdd(total.lo, *lo);
    std::optional<int64_t> sumHi = checkedAdd(total.hi, *hi);
    if (!sumLo || !sumHi)
      return std::nullopt;
    total = {*sumLo, *sumHi};
  }
  return total;
}

std::optional<SizeExpr> SizeExpr::dividedInto(const SizeExpr &other) const {
  if (termMap.size() != 1 || other.termMap.size() != 1)
    return std::nullopt;
  const auto &[divisor, a] = *termMap.begin();
  const auto &[dividend, b] = *other.termMap.begin();
  if (a <= 0 || b % a != 0)
    return std::nullopt;
  if (!std::includes(dividend.begin(), dividend.end(), divisor.begin(),
                     divisor.end()))
    return std::nullopt;
  Monomial quotient;
  std::set_difference(dividend.begin(), dividend.end(), divisor.begin(),
                      divisor.end(), std::back_inserter(quotient));
  return fromTerms({{b / a, quotient}});
}

std::string SizeExpr::str() const {
  if (termMap.empty())
    return "0";
  std::string text;
  // Symbol terms first, the constant last: "seq*768 + 1".
  std::vector<std::pair<Monomial, int64_t>> ordered(termMap.rbegin(),
                                                    termMap.rend());
  for (const auto &[monomial, coefficient] : ordered) {
    // Unsigned: the magnitude of INT64_MIN (a module file can hold it) has
    // no int64_t.
    uint64_t magnitude = coefficient < 0 ? 0 - uint64_t(coefficient)
                                         : uint64_t(coefficient);
    if (text.empty())
      text = coefficient < 0 ? "-" : "";
    else
      text += coefficient < 0 ? " - " : " + ";
    std::string factors;
    for (const std::string &name : monomial)
      factors += (factors.empty() ? "" : "*") + name;
    if (factors.empty())
      text += std::to_string(magnitude);
    else
      text += factors + (magnitude == 1 ? "" : "*" + std::to_string(magnitude));
  }
  return text;
}

//===----------------------------------------------------------------------===//
// The text torch.export writes
//===----------------------------------------------------------------------===//

namespace {
/// A recursive-descent reader of sympy's printed polynomials.
class TextReader {
public:
  explicit TextReader(const std::string &text) : text(text) {}

  std::optional<SizeExpr> readAll() {
    std::optional<SizeExpr> expr = sum();
    skipSpaces();
    if (!expr || pos != text.size())
      return std::nullopt;
    return expr;
  }

private:
  void skipSpaces() {
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
  }
  bool consume(const char *token) {
    skipSpaces();
    std::string_view rest(text.data() + pos, text.size() - pos);
    std::string_view wanted(token);
    if (rest.substr(0, wanted.size()) != wanted)
      return false;
    pos += wanted.size();
    return true;
  }
  std::optional<int64_t> integer() {
    skipSpaces();
    size_t start = pos;
    int64_t value = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (__builtin_mul_overflow(value, 10, &value) ||
          __builtin_add_overflow(value, text[pos] - '0', &value))
        return std::nullopt;
      ++pos;
    }
    if (pos == start)
      return std::nullopt;
    return value;
  }
  std::optional<SizeExpr> factor() {
    skipSpaces();
    if (consume("-")) {
      std::optional<SizeExpr> inner = factor();
      return inner ? inner->times(SizeExpr::constant(-1)) : std::nullopt;
    }
    std::optional<SizeExpr> base;
    if (consume("(")) {
      base = sum();
      if (!base || !consume(")"))
        return std::nullopt;
    } else if (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      std::optional<int64_t> value = integer();
      if (!value)
        return std::nullopt;
      base = SizeExpr::constant(*value);
    } else {
      size_t start = pos;
      while (pos < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[pos])) ||
              text[pos] == '_'))
        ++pos;
      if (pos == start || std::isdigit(static_cast<unsigned char>(text[start])))
        return std::nullopt;
      std::string name = text.substr(start, pos - start);
      skipSpaces();
      if (pos < text.size() && text[pos] == '(')
        base = call(name); // sympy's srepr, or floor, Mod, Max, ...: nullopt
      else
        base = SizeExpr::symbol(name);
      if (!base)
        return std::nullopt;
    }
    if (!consume("**"))
      return base;
    std::optional<int64_t> exponent = integer();
    if (!exponent)
      return std::nullopt;
    return power(*base, SizeExpr::constant(*exponent));
  }
  /// The arguments of a call, `(` already next: each read by `item`.
  template <typename ItemFn> bool arguments(ItemFn item) {
    if (!consume("("))
      return false;
    do {
      if (!item())
        return false;
    } while (consume(","));
    return consume(")");
  }
  /// A quoted name: 's31'.
  std::optional<std::string> quoted() {
    if (!consume("'"))
      return std::nullopt;
    size_t end = text.find('\'', pos);
    if (end == std::string::npos)
      return std::nullopt;
    std::string name = text.substr(pos, end - pos);
    pos = end + 1;
    return name;
  }
  /// A keyword argument of Symbol: `positive=True`.
  bool keyword() {
    skipSpaces();
    size_t start = pos;
    while (pos < text.size() && text[pos] != ',' && text[pos] != ')')
      ++pos;
    return pos > start && text.find('=', start) < pos;
  }
  /// sympy's srepr, as torch.export 2.11 writes expressions:
  /// `Symbol('s31', positive=True, integer=True)`, `Integer(768)`,
  /// `Mul(Integer(768), Symbol(...))`, `Add(...)`, `Pow(Symbol(...),
  /// Integer(2))`. nullopt for any other function.
  std::optional<SizeExpr> call(const std::string &name) {
    if (name == "Symbol") {
      std::optional<std::string> symbol;
      bool ok = arguments([&] {
        if (symbol)
          return keyword();
        symbol = quoted();
        return symbol.has_value();
      });
      return ok ? std::optional(SizeExpr::symbol(*symbol)) : std::nullopt;
    }
    if (name == "Integer") {
      std::optional<SizeExpr> value;
      bool ok = arguments([&] {
        value = value ? std::nullopt : sum();
        return value && value->isConstant();
      });
      return ok ? value : std::nullopt;
    }
    if (name != "Mul" && name != "Add" && name != "Pow")
      return std::nullopt;
    std::vector<SizeExpr> operands;
    if (!arguments([&] {
          std::optional<SizeExpr> operand = sum();
          if (operand)
            operands.push_back(*operand);
          return operand.has_value();
        }))
      return std::nullopt;
    if (name == "Pow")
      return operands.size() == 2 ? power(operands[0], operands[1])
                                  : std::nullopt;
    std::optional<SizeExpr> result =
        SizeExpr::constant(name == "Mul" ? 1 : 0);
    for (const SizeExpr &operand : operands)
      result = !result          ? std::nullopt
               : name == "Mul" ? result->times(operand)
                                : result->plus(operand);
    return result;
  }
  /// `base` to a constant power from 0 to 64.
  static std::optional<SizeExpr> power(const SizeExpr &base,
                                       const SizeExpr &exponent) {
    std::optional<int64_t> n = exponent.getConstant();
    if (!n || *n < 0 || *n > 64)
      return std::nullopt;
    std::optional<SizeExpr> result = SizeExpr::constant(1);
    for (int64_t i = 0; i < *n && result; ++i)
      result = result->times(base);
    return result;
  }
  std::optional<SizeExpr> product() {
    std::optional<SizeExpr> expr = factor();
    while (expr) {
      skipSpaces();
      // `**` is a power, read by factor; `*` alone multiplies.
      if (text.compare(pos, 2, "**") == 0 || !consume("*"))
        return expr;
      std::optional<SizeExpr> next = factor();
      expr = next ? expr->times(*next) : std::nullopt;
    }
    return expr;
  }
  std::optional<SizeExpr> sum() {
    std::optional<SizeExpr> expr = product();
    while (expr) {
      bool add = consume("+");
      if (!add && !consume("-"))
        return expr;
      std::optional<SizeExpr> next = product();
      if (!next)
        return std::nullopt;
      expr = add ? expr->plus(*next) : expr->minus(*next);
    }
    return expr;
  }

  const std::string &text;
  size_t pos = 0;
};
} // namespace

std::optional<SizeExpr> stride::parseSizeExprText(const std::string &text) {
  return TextReader(text).readAll();
}
