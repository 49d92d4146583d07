//===- SymbolicLayout.h - Layouts over symbolic sizes ---------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The layout rules of Layout.h for layouts whose sizes, strides and offset
// are SizeExprs: the view rules, and the overlap check of a fresh buffer,
// each proven for every value of the symbols in their declared ranges or
// refused with the values where it fails (python-free-docs/symbolic-sizes.md).
// A static layout is the special case where every expression is a
// constant; the dialect keeps static types on Layout.h's rules, so the
// static path is unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_SUPPORT_SYMBOLICLAYOUT_H
#define STRIDE_SUPPORT_SYMBOLICLAYOUT_H

#include "stride/Support/Layout.h"
#include "stride/Support/SizeExpr.h"

#include <optional>
#include <string>
#include <vector>

namespace stride {

using SizeExprs = std::vector<SizeExpr>;

struct SymbolicLayout {
  SizeExprs shape;
  SizeExprs strides;
  SizeExpr offset;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  bool operator==(const SymbolicLayout &other) const = default;

  /// The static layout as a symbolic one (every expression a constant).
  static SymbolicLayout fromLayout(const Layout &layout);
  /// The static layout, where every expression is a constant.
  std::optional<Layout> getStatic() const;
  /// The layout with every symbol replaced by its value; nullopt on
  /// overflow.
  std::optional<Layout> evaluate(const SymbolValues &values) const;
  /// The layout with each symbol of `values` replaced by its value and the
  /// others kept; nullopt on overflow.
  std::optional<SymbolicLayout> substitute(const SymbolValues &values) const;
  /// Every symbol the sizes, strides or offset mention.
  std::set<std::string> symbols() const;
};

/// The number of elements of a symbolic shape (the product of its sizes);
/// nullopt on overflow.
std::optional<SizeExpr> numElements(const SizeExprs &shape);

/// The storage extent in elements, `offset + sum_k (size_k - 1) * stride_k
/// + 1`: exact wherever every size is at least 1 (the backend's symbols
/// are); nullopt on overflow.
std::optional<SizeExpr> storageExtent(const SymbolicLayout &layout);

/// Row-major strides of a symbolic shape; nullopt on overflow.
std::optional<SizeExprs> rowMajorStrides(const SizeExprs &shape);

/// The symbolic form of sameAddressing: equal shapes and offsets, equal
/// strides in every dim whose size is not the constant 1.
bool sameAddressing(const SymbolicLayout &a, const SymbolicLayout &b);

/// "[batch, seq, 768]"
std::string formatSizes(const SizeExprs &sizes);

//===----------------------------------------------------------------------===//
// Views. Each proves its conditions (a slice within its dim, say) for every
// value of the symbols in `table`, or fails naming the values where they
// fail.
//===----------------------------------------------------------------------===//

struct SymbolicViewResult {
  std::optional<SymbolicLayout> layout;
  std::string error;

  static SymbolicViewResult success(SymbolicLayout l) {
    return {std::move(l), {}};
  }
  static SymbolicViewResult failure(std::string e) {
    return {std::nullopt, std::move(e)};
  }
  explicit operator bool() const { return layout.has_value(); }
};

SymbolicViewResult inferExpand(const SymbolicLayout &source,
                               const SizeExprs &shape);
SymbolicViewResult inferUnsqueeze(const SymbolicLayout &source, int64_t dim);
SymbolicViewResult inferSqueeze(const SymbolicLayout &source, DimsRef dims);
SymbolicViewResult inferPermute(const SymbolicLayout &source,
                                DimsRef permutation);
/// `[start, end)` of `dim` every `step`: `0 <= start <= end <= size`
/// proven for every value of the symbols; a bound may be an expression
/// (the length `end - start` of a symbolic slice takes step 1).
SymbolicViewResult inferSlice(const SymbolicLayout &source, int64_t dim,
                              const SizeExpr &start, const SizeExpr &end,
                              int64_t step, const SymbolRanges &table);
SymbolicViewResult inferSelect(const SymbolicLayout &source, int64_t dim,
                               int64_t index, const SymbolRanges &table);
/// PyTorch's computeStride rule over symbolic sizes: dims group where the
/// products of sizes are equal polynomials; a new dim's size must divide
/// (as a monomial) the group it splits.
SymbolicViewResult inferView(const SymbolicLayout &source,
                             const SizeExprs &shape);

//===----------------------------------------------------------------------===//
// Ranges
//===----------------------------------------------------------------------===//

/// Where, over the symbols' ranges, `size > 1` holds: "always", "never", or
/// the values (a single symbol: "when batch is in [2, 1024]"; several: the
/// condition and an example). For the refusal of a stride 0 on a dim of
/// symbolic size.
struct SizeAboveOne {
  enum class Kind { Never, Always, Sometimes } kind = Kind::Never;
  /// "when batch is in [2, 1024]"; empty for Never and Always.
  std::string where;
};
SizeAboveOne whereAboveOne(const SizeExpr &size, const SymbolRanges &table);

/// The result of the symbolic overlap check.
struct SymbolicOverlapVerdict {
  enum class Kind { NonOverlapping, ZeroStride, Overlapping, CannotProve };
  Kind kind = Kind::NonOverlapping;
  int64_t dim = -1;
  /// ZeroStride: where the size is above 1 ("when batch is in [2, 1024]",
  /// or empty when it always is). Overlapping: the symbol values of a
  /// witness ("batch = 1024") and the static verdict there.
  std::string where;
  OverlapVerdict witness;

  bool ok() const { return kind == Kind::NonOverlapping; }
};

/// checkNonOverlapping for every value of the symbols in `table`: a stride
/// 0 on a dim whose size may exceed 1 overlaps where it does; the other
/// dims, ordered by strides whose order holds over the whole range, must
/// each have a stride at least the span of the smaller ones for every
/// value (a polynomial inequality proven by its bounds). Where that proof
/// fails, the corners of the range (each symbol at its smallest or largest
/// value) are checked statically for a witness.
SymbolicOverlapVerdict checkNonOverlapping(const SymbolicLayout &layout,
                                           const SymbolRanges &table);

} // namespace stride

#endif // STRIDE_SUPPORT_SYMBOLICLAYOUT_H
