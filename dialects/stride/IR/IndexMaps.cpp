//===- IndexMaps.cpp - Views as maps of coordinates -----------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/IndexMaps.h"

#include "dialects/stride/IR/StrideOps.h"
#include "stride/Support/Layout.h"


#include <functional>
#include <limits>
#include <numeric>
#include <optional>

using namespace mlir;

namespace stride {

namespace {
/// The values an index expression takes, [lo, hi], in 128 bits so that no
/// product of a coordinate bound and a stride overflows; nullopt when
/// unbounded (a symbol, or beyond what the arithmetic below may trust).
struct Range {
  __int128 lo, hi;
};
using MaybeRange = std::optional<Range>;

constexpr __int128 kTrusted = __int128(1) << 100;

MaybeRange trusted(__int128 lo, __int128 hi) {
  if (lo < -kTrusted || hi > kTrusted)
    return std::nullopt;
  return Range{lo, hi};
}

__int128 floorDivide(__int128 a, __int128 b) {
  __int128 q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

/// Simplifies bottom-up, computing each subexpression's range.
class BoundedSimplifier {
public:
  explicit BoundedSimplifier(ArrayRef<int64_t> dimSizes) : dimSizes(dimSizes) {}

  std::pair<AffineExpr, MaybeRange> simplify(AffineExpr expr) {
    auto [result, range] = simplifyParts(expr);
    if (range && range->lo == range->hi)
      return {getAffineConstantExpr(static_cast<int64_t>(range->lo),
                                    expr.getContext()),
              range};
    return {result, range};
  }

private:
  std::pair<AffineExpr, MaybeRange> simplifyParts(AffineExpr expr) {
    if (auto c = dyn_cast<AffineConstantExpr>(expr))
      return {expr, Range{c.getValue(), c.getValue()}};
    if (auto d = dyn_cast<AffineDimExpr>(expr)) {
      unsigned k = d.getPosition();
      // A symbolic size (ShapedType::kDynamic in a static shape) bounds
      // nothing: the coordinate is kept, never taken for a constant.
      if (k >= dimSizes.size() || dimSizes[k] < 0)
        return {expr, std::nullopt};
      return {expr, Range{0, std::max<int64_t>(dimSizes[k], 1) - 1}};
    }
    auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
    if (!binary)
      return {expr, std::nullopt}; // a symbol
    auto [lhs, l] = simplify(binary.getLHS());
    auto [rhs, r] = simplify(binary.getRHS());
    switch (expr.getKind()) {
    case AffineExprKind::Add:
      return {lhs + rhs, (l && r) ? trusted(l->lo + r->lo, l->hi + r->hi)
                                  : std::nullopt};
    case AffineExprKind::Mul: {
      MaybeRange range;
      if (l && r) {
        __int128 a = l->lo * r->lo, b = l->lo * r->hi, c = l->hi * r->lo,
                 d = l->hi * r->hi;
        range = trusted(std::min({a, b, c, d}), std::max({a, b, c, d}));
      }
      return {lhs * rhs, range};
    }
    case AffineExprKind::FloorDiv:
    case AffineExprKind::CeilDiv:
    case AffineExprKind::Mod:
      return divide(expr.getKind(), lhs, l, rhs);
    default:
      return {expr, std::nullopt};
    }
  }

  /// floordiv, ceildiv and mod by a positive constant (the only divisors
  /// an index map has).
  std::pair<AffineExpr, MaybeRange> divide(AffineExprKind kind, AffineExpr lhs,
                                           MaybeRange l, AffineExpr rhs) {
    auto divisor = dyn_cast<AffineConstantExpr>(rhs);
    if (!divisor || divisor.getValue() <= 0) {
      AffineExpr rebuilt = kind == AffineExprKind::Mod        ? lhs % rhs
                           : kind == AffineExprKind::FloorDiv ? lhs.floorDiv(rhs)
                                                              : lhs.ceilDiv(rhs);
      return {rebuilt, std::nullopt};
    }
    __int128 c = divisor.getValue();
    if (kind == AffineExprKind::Mod && l && l->lo >= 0 && l->hi < c)
      return {lhs, l}; // a dividend already in [0, c) is its own remainder
    if (kind != AffineExprKind::CeilDiv)
      if (std::optional<std::pair<AffineExpr, MaybeRange>> digit =
              divideMixedRadix(kind, lhs, divisor.getValue()))
        return *digit;
    if (kind == AffineExprKind::Mod)
      return {lhs % rhs, Range{0, c - 1}};
    if (kind == AffineExprKind::CeilDiv)
      return {lhs.ceilDiv(rhs),
              l ? trusted(-floorDivide(-l->lo, c), -floorDivide(-l->hi, c))
                : std::nullopt};
    MaybeRange range =
        l ? trusted(floorDivide(l->lo, c), floorDivide(l->hi, c)) : std::nullopt;
    // (e floordiv a) floordiv c == e floordiv (a * c) for positive a, c.
    if (auto inner = dyn_cast<AffineBinaryOpExpr>(lhs);
        inner && inner.getKind() == AffineExprKind::FloorDiv)
      if (auto a = dyn_cast<AffineConstantExpr>(inner.getRHS());
          a && a.getValue() > 0 && a.getValue() <= kTrusted / c)
        return {inner.getLHS().floorDiv(a.getValue() * divisor.getValue()),
                range};
    return {lhs.floorDiv(rhs), range};
  }

  /// The terms of a sum, its nested `+` flattened.
  static void collectTerms(AffineExpr expr, SmallVectorImpl<AffineExpr> &terms) {
    if (auto sum = dyn_cast<AffineBinaryOpExpr>(expr);
        sum && sum.getKind() == AffineExprKind::Add) {
      collectTerms(sum.getLHS(), terms);
      collectTerms(sum.getRHS(), terms);
      return;
    }
    terms.push_back(expr);
  }

  /// `lhs floordiv c` or `lhs mod c` for a sum `lhs` that is g * M + R,
  /// where g divides c, M is the sum of the terms that are multiples of g
  /// (divided by g) and the other terms R lie, together, in one interval
  /// [q g, (q + 1) g): a digit of a mixed-radix address, as an as_strided
  /// window over a dense tensor, or a copy's iteration over a matrix of
  /// windows, reads it. Then lhs floordiv c = (M + q) floordiv (c / g) and
  /// lhs mod c = ((M + q) mod (c / g)) g + R - q g, with no division where
  /// g is c. (A pooling window: (n 831744 + c 12996 + oh 228 + kh 114 + ow
  /// 2 + kw) floordiv 114 mod 114 is 2 oh + kh; an im2col row: (p 147 + k)
  /// floordiv 16464 is p floordiv 112 for k < 147.) g is tried from c down
  /// through its common divisors with the terms' coefficients.
  std::optional<std::pair<AffineExpr, MaybeRange>>
  divideMixedRadix(AffineExprKind kind, AffineExpr lhs, int64_t c) {
    SmallVector<AffineExpr> terms;
    collectTerms(lhs, terms);
    if (terms.size() < 2)
      return std::nullopt;
    SmallVector<int64_t> radices = {c};
    for (AffineExpr term : terms) {
      int64_t g = std::gcd(c, term.getLargestKnownDivisor());
      if (g > 1 && !llvm::is_contained(radices, g))
        radices.push_back(g);
    }
    llvm::sort(radices, std::greater<int64_t>());
    for (int64_t g : radices)
      if (auto digit = divideByRadix(kind, terms, c, g))
        return digit;
    return std::nullopt;
  }

  /// divideMixedRadix with one radix g.
  std::optional<std::pair<AffineExpr, MaybeRange>>
  divideByRadix(AffineExprKind kind, ArrayRef<AffineExpr> terms, int64_t c,
                int64_t g) {
    MLIRContext *context = terms.front().getContext();
    AffineExpr multiples = getAffineConstantExpr(0, context);
    AffineExpr rest = getAffineConstantExpr(0, context);
    bool anyMultiple = false, anyRest = false;
    for (AffineExpr term : terms) {
      if (term.getLargestKnownDivisor() % g == 0) {
        multiples = multiples + term;
        anyMultiple = true;
      } else {
        rest = rest + term;
        anyRest = true;
      }
    }
    if (!anyMultiple || !anyRest)
      return std::nullopt;
    auto [restExpr, restRange] = simplify(rest);
    if (!restRange)
      return std::nullopt;
    __int128 q = floorDivide(restRange->lo, g);
    // q g must be an int64_t constant of the expression.
    constexpr __int128 kLargest = std::numeric_limits<int64_t>::max();
    if (floorDivide(restRange->hi, g) != q || q > kLargest / g ||
        q < -kLargest / g)
      return std::nullopt;
    AffineExpr digits = multiples.floorDiv(g) + static_cast<int64_t>(q);
    AffineExpr low = restExpr - static_cast<int64_t>(q * g);
    if (kind == AffineExprKind::Mod)
      return simplify(g == c ? low : (digits % (c / g)) * g + low);
    return simplify(g == c ? digits : digits.floorDiv(c / g));
  }

  ArrayRef<int64_t> dimSizes;
};
} // namespace

AffineExpr simplifyInBounds(AffineExpr expr, ArrayRef<int64_t> dimSizes) {
  return BoundedSimplifier(dimSizes).simplify(expr).first;
}

AffineMap simplifyInBounds(AffineMap map, ArrayRef<int64_t> dimSizes) {
  SmallVector<AffineExpr> results;
  for (AffineExpr expr : map.getResults())
    results.push_back(simplifyInBounds(expr, dimSizes));
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                        map.getContext());
}

AffineMap indexMapToBase(Value value) {
  auto type = cast<StridedTensorType>(value.getType());
  AffineMap map = simplifyInBounds(
      AffineMap::getMultiDimIdentityMap(type.getRank(), value.getContext()),
      type.getShape());
  while (auto view = value.getDefiningOp<ViewOpInterface>()) {
    AffineMap step = view.getIndexMap();
    if (!step)
      return AffineMap();
    map = simplifyInBounds(step.compose(map), type.getShape());
    value = view.getSource();
  }
  return map;
}

SmallVector<AffineExpr> delinearizeAddress(AffineExpr address,
                                           ArrayRef<int64_t> shape,
                                           ArrayRef<int64_t> strides) {
  MLIRContext *context = address.getContext();
  SmallVector<AffineExpr> coords(shape.size(),
                                 getAffineConstantExpr(0, context));
  bool outermost = true;
  for (int64_t d : dimOrderByStride(strides)) {
    if (shape[d] == 1)
      continue;
    AffineExpr quotient = address.floorDiv(strides[d]);
    coords[d] = outermost ? quotient : quotient % shape[d];
    outermost = false;
  }
  return coords;
}

AffineExpr layoutAddress(const Layout &layout, MLIRContext *context) {
  AffineExpr address = getAffineConstantExpr(0, context);
  for (int64_t d = 0; d < layout.rank(); ++d)
    if (layout.shape[d] != 1)
      address = address + getAffineDimExpr(d, context) * layout.strides[d];
  return address;
}

} // namespace stride
