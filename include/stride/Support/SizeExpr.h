//===- SizeExpr.h - Sizes and strides as polynomials of symbols ----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A symbolic size (python-free-docs/symbolic-sizes.md): a polynomial with
// integer coefficients over named symbols (`batch`, `seq`), each of which
// takes the values of a declared range. Sizes, strides and offsets of a
// layout over symbolic sizes are such polynomials: a stride is a product of
// sizes (`seq*768`), an offset a sum of index times stride. The form is
// canonical (like terms combined, no zero coefficient, terms ordered), so
// two expressions are equal exactly when they are the same polynomial.
//
// Plain C++ (no MLIR or LLVM), as Layout.h, so the runtime can use it.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_SUPPORT_SIZEEXPR_H
#define STRIDE_SUPPORT_SIZEEXPR_H

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace stride {

/// A symbol and its range: every value v with min <= v <= max and
/// v % multipleOf == 0.
struct SizeSymbol {
  std::string name;
  int64_t min = 1;
  int64_t max = 1;
  int64_t multipleOf = 1;

  /// The smallest and largest values the symbol takes (the range rounded
  /// inward to multiples); nullopt when it takes none.
  std::optional<int64_t> smallest() const;
  std::optional<int64_t> largest() const;
  /// "batch in [1, 1024]", with ", a multiple of 8" where that applies.
  std::string describe() const;

  bool operator==(const SizeSymbol &) const = default;
};

/// The symbols of a function, by name.
using SymbolRanges = std::map<std::string, SizeSymbol>;
/// One value for each symbol of an expression.
using SymbolValues = std::map<std::string, int64_t>;

/// Every symbol of `ranges` at its largest value (a range with no value
/// is left out; the dialect's verifier refuses one).
SymbolValues largestValues(const SymbolRanges &ranges);

/// An inclusive interval of int64 values.
struct SizeInterval {
  int64_t lo = 0;
  int64_t hi = 0;
};

class SizeExpr {
public:
  /// A product of symbols, sorted by name; a symbol appears once per power.
  using Monomial = std::vector<std::string>;

  SizeExpr() = default;
  static SizeExpr constant(int64_t value);
  static SizeExpr symbol(const std::string &name);
  /// The sum of `coefficient * monomial` over `terms`, made canonical.
  static SizeExpr fromTerms(
      const std::vector<std::pair<int64_t, Monomial>> &terms);

  /// The terms in canonical order (the constant term, whose monomial is
  /// empty, first).
  const std::map<Monomial, int64_t> &terms() const { return termMap; }
  std::optional<int64_t> getConstant() const;
  bool isConstant() const { return getConstant().has_value(); }
  /// True when the expression is exactly one symbol.
  std::optional<std::string> getSymbol() const;
  std::set<std::string> symbols() const;

  /// Arithmetic; nullopt where a coefficient overflows int64.
  std::optional<SizeExpr> plus(const SizeExpr &other) const;
  std::optional<SizeExpr> minus(const SizeExpr &other) const;
  std::optional<SizeExpr> times(const SizeExpr &other) const;

  /// The value at `values` (every symbol must have one); nullopt on
  /// overflow.
  std::optional<int64_t> evaluate(const SymbolValues &values) const;
  /// The expression with each symbol of `values` replaced by its value and
  /// the others kept (`batch*seq + 1` at seq = 33 is `33*batch + 1`);
  /// nullopt on overflow.
  std::optional<SizeExpr> substitute(const SymbolValues &values) const;
  /// Bounds that hold for every value of the symbols in `table` (interval
  /// arithmetic: exact for a polynomial with non-negative coefficients,
  /// sound otherwise); nullopt when a symbol is not in `table` or the
  /// bounds overflow.
  std::optional<SizeInterval> bounds(const SymbolRanges &table) const;
  /// `other` is `this` times a monomial with a positive coefficient, both
  /// single terms (`seq` divides `batch*seq*768`); the quotient.
  std::optional<SizeExpr> dividedInto(const SizeExpr &other) const;

  /// "batch*seq*768 + 1"; a constant prints as its value.
  std::string str() const;

  bool operator==(const SizeExpr &other) const = default;
  bool operator<(const SizeExpr &other) const {
    return termMap < other.termMap;
  }

private:
  std::map<Monomial, int64_t> termMap;
};

/// Reads the text of a size expression as torch.export writes it: sympy's
/// `str` ("768*s31", "s0*s1 + 1", "2*(s0 - 1)", "s0**2": integers, names,
/// `+`, `-`, `*`, `**` by a non-negative integer, and parentheses) or its
/// `srepr`, which torch 2.11 writes ("Mul(Integer(768), Symbol('s31',
/// positive=True, integer=True))": Symbol, Integer, Add, Mul, Pow). nullopt
/// for anything else (`floor`, `Mod`, `FloorDiv`, `//`, a float) or on
/// overflow.
std::optional<SizeExpr> parseSizeExprText(const std::string &text);

} // namespace stride

#endif // STRIDE_SUPPORT_SIZEEXPR_H
