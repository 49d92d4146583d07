//===- SymbolicLayout.cpp - Layouts over symbolic sizes -------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Support/SymbolicLayout.h"

#include <algorithm>
#include <functional>
#include <numeric>

using namespace stride;

namespace {
bool isConstantOne(const SizeExpr &size) { return size.getConstant() == 1; }

/// Every term but the constant has a positive coefficient: the value grows
/// with each symbol (symbols are non-negative).
bool isIncreasing(const SizeExpr &size) {
  return std::all_of(size.terms().begin(), size.terms().end(),
                     [](const auto &term) {
                       return term.first.empty() || term.second > 0;
                     });
}

/// `a >= b` for every value of the symbols: the bounds of `a - b`.
/// `a >= b` for every value of the symbols in `table`: the lower bound of
/// `a - b`, or, where interval arithmetic is too loose for that
/// (`s*s - s` over [1, 2048]), `a` a multiple `q * b` of a non-negative
/// monomial `b` with `q >= 1` everywhere (`s*s` is `s` times `s`).
bool provenAtLeast(const SizeExpr &a, const SizeExpr &b,
                   const SymbolRanges &table) {
  std::optional<SizeExpr> difference = a.minus(b);
  if (!difference)
    return false;
  std::optional<SizeInterval> range = difference->bounds(table);
  if (range && range->lo >= 0)
    return true;
  std::optional<SizeExpr> quotient = b.dividedInto(a);
  std::optional<SizeInterval> q =
      quotient ? quotient->bounds(table) : std::nullopt;
  std::optional<SizeInterval> divisor = b.bounds(table);
  return q && divisor && q->lo >= 1 && divisor->lo >= 0;
}

std::string dimError(int64_t dim, int64_t rank) {
  return "dim " + std::to_string(dim) + " is out of range [0, " +
         std::to_string(rank) + ")";
}

/// "when seq is in [1, 7]": the values of a lone symbol for which
/// `holds(value)` is true, where `holds` is monotone (true on a prefix of
/// the range, or a suffix: `fromBelow` says which).
std::string whereMonotone(const SizeSymbol &symbol, bool fromBelow,
                          const std::function<bool(int64_t)> &holds) {
  int64_t lo = *symbol.smallest(), hi = *symbol.largest();
  int64_t step = symbol.multipleOf;
  // Binary search over the multiples for the boundary of `holds`.
  int64_t first = lo / step, last = hi / step;
  int64_t a = first, b = last;
  if (fromBelow) {
    // holds on [first, k]: find the largest k.
    while (a < b) {
      int64_t mid = a + (b - a + 1) / 2;
      if (holds(mid * step))
        a = mid;
      else
        b = mid - 1;
    }
    return "when " + symbol.name + " is in [" + std::to_string(lo) + ", " +
           std::to_string(a * step) + "]";
  }
  // holds on [k, last]: find the smallest k.
  while (a < b) {
    int64_t mid = a + (b - a) / 2;
    if (holds(mid * step))
      b = mid;
    else
      a = mid + 1;
  }
  return "when " + symbol.name + " is in [" + std::to_string(a * step) +
         ", " + std::to_string(hi) + "]";
}

/// Every assignment of each symbol of `names` to its smallest or largest
/// value (at most 2^10 of them).
std::vector<SymbolValues> rangeCorners(const std::set<std::string> &names,
                                       const SymbolRanges &table) {
  std::vector<SymbolValues> corners{{}};
  for (const std::string &name : names) {
    auto it = table.find(name);
    if (it == table.end() || !it->second.smallest() || corners.size() > 512)
      return {};
    std::vector<SymbolValues> next;
    for (const SymbolValues &corner : corners)
      for (int64_t value : {*it->second.smallest(), *it->second.largest()}) {
        SymbolValues extended = corner;
        extended[name] = value;
        next.push_back(std::move(extended));
      }
    corners = std::move(next);
  }
  return corners;
}

std::string formatValues(const SymbolValues &values) {
  std::string text;
  for (const auto &[name, value] : values)
    text += (text.empty() ? "" : ", ") + name + " = " + std::to_string(value);
  return text;
}
} // namespace

//===----------------------------------------------------------------------===//
// SymbolicLayout
//===----------------------------------------------------------------------===//

SymbolicLayout SymbolicLayout::fromLayout(const Layout &layout) {
  SymbolicLayout result;
  for (int64_t size : layout.shape)
    result.shape.push_back(SizeExpr::constant(size));
  for (int64_t stride : layout.strides)
    result.strides.push_back(SizeExpr::constant(stride));
  result.offset = SizeExpr::constant(layout.offset);
  return result;
}

std::optional<Layout> SymbolicLayout::getStatic() const {
  return evaluate({});
}

std::optional<SymbolicLayout>
SymbolicLayout::substitute(const SymbolValues &values) const {
  SymbolicLayout result;
  for (const SizeExpr &size : shape)
    if (std::optional<SizeExpr> value = size.substitute(values))
      result.shape.push_back(*value);
    else
      return std::nullopt;
  for (const SizeExpr &stride : strides)
    if (std::optional<SizeExpr> value = stride.substitute(values))
      result.strides.push_back(*value);
    else
      return std::nullopt;
  std::optional<SizeExpr> value = offset.substitute(values);
  if (!value)
    return std::nullopt;
  result.offset = *value;
  return result;
}

std::optional<Layout> SymbolicLayout::evaluate(const SymbolValues &values) const {
  Layout layout;
  for (const SizeExpr &size : shape) {
    std::optional<int64_t> value = size.evaluate(values);
    if (!value)
      return std::nullopt;
    layout.shape.push_back(*value);
  }
  for (const SizeExpr &stride : strides) {
    std::optional<int64_t> value = stride.evaluate(values);
    if (!value)
      return std::nullopt;
    layout.strides.push_back(*value);
  }
  std::optional<int64_t> value = offset.evaluate(values);
  if (!value)
    return std::nullopt;
  layout.offset = *value;
  return layout;
}

std::optional<SizeExpr> stride::storageExtent(const SymbolicLayout &layout) {
  std::optional<SizeExpr> extent = layout.offset.plus(SizeExpr::constant(1));
  for (int64_t d = 0; extent && d < layout.rank(); ++d) {
    std::optional<SizeExpr> last =
        layout.shape[d].minus(SizeExpr::constant(1));
    std::optional<SizeExpr> reach =
        last ? last->times(layout.strides[d]) : std::nullopt;
    extent = reach ? extent->plus(*reach) : std::nullopt;
  }
  return extent;
}

std::set<std::string> SymbolicLayout::symbols() const {
  std::set<std::string> names = offset.symbols();
  for (const SizeExprs *list : {&shape, &strides})
    for (const SizeExpr &expr : *list)
      for (const std::string &name : expr.symbols())
        names.insert(name);
  return names;
}

std::optional<SizeExprs> stride::rowMajorStrides(const SizeExprs &shape) {
  SizeExprs strides(shape.size());
  SizeExpr running = SizeExpr::constant(1);
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = running;
    std::optional<SizeExpr> next = running.times(shape[i]);
    if (!next)
      return std::nullopt;
    running = *next;
  }
  return strides;
}

bool stride::sameAddressing(const SymbolicLayout &a, const SymbolicLayout &b) {
  if (a.shape != b.shape || a.offset != b.offset ||
      a.strides.size() != b.strides.size())
    return false;
  for (size_t d = 0; d < a.shape.size(); ++d)
    if (!isConstantOne(a.shape[d]) && a.strides[d] != b.strides[d])
      return false;
  return true;
}

std::optional<SizeExpr> stride::numElements(const SizeExprs &shape) {
  std::optional<SizeExpr> product = SizeExpr::constant(1);
  for (const SizeExpr &size : shape)
    product = product ? product->times(size) : std::nullopt;
  return product;
}

std::string stride::formatSizes(const SizeExprs &sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i)
    text += (i ? ", " : "") + sizes[i].str();
  return text + "]";
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

SymbolicViewResult stride::inferExpand(const SymbolicLayout &source,
                                       const SizeExprs &shape) {
  int64_t rank = static_cast<int64_t>(shape.size());
  if (rank < source.rank())
    return SymbolicViewResult::failure(
        "expand to rank " + std::to_string(rank) +
        " is below the operand's rank " + std::to_string(source.rank()));
  SymbolicLayout result{shape, SizeExprs(shape.size()), source.offset};
  int64_t lead = rank - source.rank();
  for (int64_t d = 0; d < rank; ++d) {
    if (d < lead) {
      result.strides[d] = SizeExpr::constant(0);
      continue;
    }
    const SizeExpr &from = source.shape[d - lead];
    if (from == shape[d]) {
      result.strides[d] = source.strides[d - lead];
    } else if (isConstantOne(from)) {
      result.strides[d] = SizeExpr::constant(0);
    } else {
      return SymbolicViewResult::failure(
          "dim " + std::to_string(d) + " of size " + from.str() +
          " cannot expand to " + shape[d].str() +
          " (only dims of size 1 broadcast)");
    }
  }
  return SymbolicViewResult::success(std::move(result));
}

SymbolicViewResult stride::inferUnsqueeze(const SymbolicLayout &source,
                                          int64_t dim) {
  if (dim < 0 || dim > source.rank())
    return SymbolicViewResult::failure(dimError(dim, source.rank() + 1));
  SymbolicLayout result = source;
  SizeExpr stride = SizeExpr::constant(1);
  if (dim < source.rank()) {
    std::optional<SizeExpr> span = source.shape[dim].times(source.strides[dim]);
    if (!span)
      return SymbolicViewResult::failure("the new dim's stride overflows");
    stride = *span;
  }
  result.shape.insert(result.shape.begin() + dim, SizeExpr::constant(1));
  result.strides.insert(result.strides.begin() + dim, stride);
  return SymbolicViewResult::success(std::move(result));
}

SymbolicViewResult stride::inferSqueeze(const SymbolicLayout &source,
                                        DimsRef dims) {
  SymbolicLayout result;
  result.offset = source.offset;
  for (int64_t d = 0; d < source.rank(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) {
      result.shape.push_back(source.shape[d]);
      result.strides.push_back(source.strides[d]);
    } else if (!isConstantOne(source.shape[d])) {
      return SymbolicViewResult::failure(
          "squeezed dim " + std::to_string(d) + " has size " +
          source.shape[d].str() + ", not 1");
    }
  }
  for (int64_t d : dims)
    if (d < 0 || d >= source.rank())
      return SymbolicViewResult::failure(dimError(d, source.rank()));
  return SymbolicViewResult::success(std::move(result));
}

SymbolicViewResult stride::inferPermute(const SymbolicLayout &source,
                                        DimsRef permutation) {
  Dims sorted(permutation.begin(), permutation.end());
  std::sort(sorted.begin(), sorted.end());
  Dims identity(source.rank());
  std::iota(identity.begin(), identity.end(), 0);
  if (sorted != identity)
    return SymbolicViewResult::failure(
        "dims " + formatDims(permutation) + " are not a permutation of 0.." +
        std::to_string(source.rank() - 1));
  SymbolicLayout result;
  result.offset = source.offset;
  for (int64_t d : permutation) {
    result.shape.push_back(source.shape[d]);
    result.strides.push_back(source.strides[d]);
  }
  return SymbolicViewResult::success(std::move(result));
}

/// "when seq is in [1, 7]": the values where `a < b`, for a difference
/// `a - b` of one symbol that only grows (or only shrinks) with it; the
/// condition otherwise (a constant difference fails for every value).
static std::string whereLess(const SizeExpr &a, const SizeExpr &b,
                             const SymbolRanges &table) {
  std::optional<SizeExpr> difference = a.minus(b);
  if (difference && difference->isConstant())
    return "for every value of the symbols";
  std::set<std::string> names =
      difference ? difference->symbols() : std::set<std::string>{};
  if (names.size() == 1 && table.count(*names.begin())) {
    const SizeSymbol &symbol = table.at(*names.begin());
    bool grows = isIncreasing(*difference);
    std::optional<SizeExpr> negated = difference->times(SizeExpr::constant(-1));
    if (grows || (negated && isIncreasing(*negated)))
      return whereMonotone(symbol, /*fromBelow=*/grows, [&](int64_t value) {
        std::optional<int64_t> at = difference->evaluate({{symbol.name, value}});
        return at && *at < 0;
      });
  }
  return "when " + a.str() + " < " + b.str();
}

/// The size of `[start, end)` taken every `step`: `end - start` for step
/// 1, else a constant length rounded up.
static std::optional<SizeExpr> sliceLength(const SizeExpr &start,
                                           const SizeExpr &end, int64_t step) {
  std::optional<SizeExpr> length = end.minus(start);
  if (!length || step == 1)
    return length;
  std::optional<int64_t> fixed = length->getConstant();
  if (!fixed)
    return std::nullopt;
  return SizeExpr::constant((*fixed + step - 1) / step);
}

SymbolicViewResult stride::inferSlice(const SymbolicLayout &source,
                                      int64_t dim, const SizeExpr &start,
                                      const SizeExpr &end, int64_t step,
                                      const SymbolRanges &table) {
  if (dim < 0 || dim >= source.rank())
    return SymbolicViewResult::failure(dimError(dim, source.rank()));
  std::optional<int64_t> fixedStart = start.getConstant();
  std::optional<int64_t> fixedEnd = end.getConstant();
  if (step < 1 || (fixedStart && fixedEnd &&
                   (*fixedStart < 0 || *fixedStart > *fixedEnd)))
    return SymbolicViewResult::failure(
        "slice needs 0 <= start <= end and step >= 1");
  SizeExpr zero = SizeExpr::constant(0);
  if (!provenAtLeast(start, zero, table))
    return SymbolicViewResult::failure("slice start " + start.str() +
                                       " is negative " +
                                       whereLess(start, zero, table));
  if (!provenAtLeast(end, start, table))
    return SymbolicViewResult::failure(
        "slice end " + end.str() + " is below its start " + start.str() +
        " " + whereLess(end, start, table));
  const SizeExpr &size = source.shape[dim];
  if (!provenAtLeast(size, end, table))
    return SymbolicViewResult::failure(
        "slice end " + end.str() + " exceeds the size " + size.str() +
        " of dim " + std::to_string(dim) + " " + whereLess(size, end, table));
  std::optional<SizeExpr> length = sliceLength(start, end, step);
  if (!length)
    return SymbolicViewResult::failure(
        "a slice from " + start.str() + " to " + end.str() + " step " +
        std::to_string(step) +
        " has a length that is not a polynomial of the symbols; a slice "
        "of symbolic length takes step 1");
  SymbolicLayout result = source;
  result.shape[dim] = *length;
  std::optional<SizeExpr> advance = source.strides[dim].times(start);
  std::optional<SizeExpr> stride =
      source.strides[dim].times(SizeExpr::constant(step));
  std::optional<SizeExpr> offset =
      advance ? source.offset.plus(*advance) : std::nullopt;
  if (!stride || !offset)
    return SymbolicViewResult::failure("the slice's layout overflows");
  result.strides[dim] = *stride;
  result.offset = *offset;
  return SymbolicViewResult::success(std::move(result));
}

SymbolicViewResult stride::inferSelect(const SymbolicLayout &source,
                                       int64_t dim, int64_t index,
                                       const SymbolRanges &table) {
  if (dim < 0 || dim >= source.rank())
    return SymbolicViewResult::failure(dimError(dim, source.rank()));
  const SizeExpr &size = source.shape[dim];
  if (index < 0 || !provenAtLeast(size, SizeExpr::constant(index + 1), table))
    return SymbolicViewResult::failure(
        "select index " + std::to_string(index) + " is out of range for dim " +
        std::to_string(dim) + " of size " + size.str() + " " +
        whereLess(size, SizeExpr::constant(index + 1), table));
  std::optional<SizeExpr> advance =
      source.strides[dim].times(SizeExpr::constant(index));
  std::optional<SizeExpr> offset =
      advance ? source.offset.plus(*advance) : std::nullopt;
  if (!offset)
    return SymbolicViewResult::failure("the select's layout overflows");
  SymbolicLayout result = source;
  result.shape.erase(result.shape.begin() + dim);
  result.strides.erase(result.strides.begin() + dim);
  result.offset = *offset;
  return SymbolicViewResult::success(std::move(result));
}

/// PyTorch's computeStride (aten/src/ATen/TensorUtils.cpp) with products
/// of sizes as polynomials: the old dims are walked from the innermost in
/// chunks that are contiguous among themselves, and the new dims consume a
/// chunk while their product properly divides the chunk's.
SymbolicViewResult stride::inferView(const SymbolicLayout &source,
                                     const SizeExprs &shape) {
  auto failure = [&] {
    return SymbolicViewResult::failure(
        "view of " + formatSizes(source.shape) + " with strides " +
        formatSizes(source.strides) + " as " + formatSizes(shape) +
        " needs a copy, or its sizes do not match for every value of the "
        "symbols");
  };
  SymbolicLayout result{shape, SizeExprs(shape.size()), source.offset};
  int64_t viewDim = static_cast<int64_t>(shape.size()) - 1;
  if (source.rank() == 0) {
    for (int64_t d = viewDim; d >= 0; --d)
      if (!isConstantOne(shape[d]))
        return failure();
    for (SizeExpr &stride : result.strides)
      stride = SizeExpr::constant(1);
    return SymbolicViewResult::success(std::move(result));
  }
  SizeExpr chunkStride = source.strides.back();
  SizeExpr tensorNumel = SizeExpr::constant(1);
  SizeExpr viewNumel = SizeExpr::constant(1);
  for (int64_t d = source.rank() - 1; d >= 0; --d) {
    std::optional<SizeExpr> grown = tensorNumel.times(source.shape[d]);
    if (!grown)
      return failure();
    tensorNumel = *grown;
    std::optional<SizeExpr> chunkEnd = tensorNumel.times(chunkStride);
    bool chunkEnds = d == 0 || (!isConstantOne(source.shape[d - 1]) &&
                                (!chunkEnd || source.strides[d - 1] != *chunkEnd));
    if (!chunkEnds)
      continue;
    // New dims join the chunk while their product stays a divisor of the
    // chunk's (PyTorch: while view_numel < tensor_numel), and size-1 dims
    // always.
    while (viewDim >= 0) {
      std::optional<SizeExpr> next = viewNumel.times(shape[viewDim]);
      std::optional<SizeExpr> stride = viewNumel.times(chunkStride);
      if (!stride || !next)
        return failure();
      bool joins = isConstantOne(shape[viewDim]) ||
                   (viewNumel != tensorNumel &&
                    (*next == tensorNumel || next->dividedInto(tensorNumel)));
      if (!joins)
        break;
      result.strides[viewDim] = *stride;
      viewNumel = *next;
      --viewDim;
    }
    if (viewNumel != tensorNumel)
      return failure();
    if (d > 0) {
      chunkStride = source.strides[d - 1];
      tensorNumel = SizeExpr::constant(1);
      viewNumel = SizeExpr::constant(1);
    }
  }
  if (viewDim != -1)
    return failure();
  return SymbolicViewResult::success(std::move(result));
}

//===----------------------------------------------------------------------===//
// Ranges
//===----------------------------------------------------------------------===//

SizeAboveOne stride::whereAboveOne(const SizeExpr &size,
                                   const SymbolRanges &table) {
  std::optional<SizeInterval> range = size.bounds(table);
  if (range && range->hi <= 1)
    return {SizeAboveOne::Kind::Never, ""};
  if (range && range->lo > 1)
    return {SizeAboveOne::Kind::Always, ""};
  std::set<std::string> names = size.symbols();
  if (names.size() == 1 && isIncreasing(size) && table.count(*names.begin())) {
    const SizeSymbol &symbol = table.at(*names.begin());
    return {SizeAboveOne::Kind::Sometimes,
            whereMonotone(symbol, /*fromBelow=*/false, [&](int64_t value) {
              std::optional<int64_t> at = size.evaluate({{symbol.name, value}});
              return !at || *at > 1;
            })};
  }
  return {SizeAboveOne::Kind::Sometimes, "when " + size.str() + " > 1"};
}

/// The stride and span checks of the symbolic overlap test, proven for
/// every value; false where the proof fails.
static bool provenNonOverlapping(const SymbolicLayout &layout,
                                 const SymbolRanges &table) {
  // A dim of size at most 1 for every value addresses nothing.
  Dims dims;
  for (int64_t d = 0; d < layout.rank(); ++d) {
    std::optional<SizeInterval> size = layout.shape[d].bounds(table);
    if (!size || size->hi > 1)
      dims.push_back(d);
  }
  // Order by stride, smallest first; the order must hold for every value.
  std::vector<int64_t> order = dims;
  for (size_t i = 1; i < order.size(); ++i)
    for (size_t j = i; j > 0; --j) {
      const SizeExpr &left = layout.strides[order[j - 1]];
      const SizeExpr &right = layout.strides[order[j]];
      if (provenAtLeast(right, left, table))
        break;
      if (!provenAtLeast(left, right, table))
        return false;
      std::swap(order[j - 1], order[j]);
    }
  SizeExpr span = SizeExpr::constant(1);
  for (int64_t d : order) {
    if (!provenAtLeast(layout.strides[d], span, table))
      return false;
    std::optional<SizeExpr> last =
        layout.shape[d].minus(SizeExpr::constant(1));
    std::optional<SizeExpr> reach =
        last ? last->times(layout.strides[d]) : std::nullopt;
    std::optional<SizeExpr> next = reach ? span.plus(*reach) : std::nullopt;
    if (!next)
      return false;
    span = *next;
  }
  return true;
}

SymbolicOverlapVerdict stride::checkNonOverlapping(const SymbolicLayout &layout,
                                                   const SymbolRanges &table) {
  SymbolicOverlapVerdict verdict;
  for (int64_t d = 0; d < layout.rank(); ++d) {
    if (layout.strides[d].getConstant() != 0)
      continue;
    SizeAboveOne above = whereAboveOne(layout.shape[d], table);
    if (above.kind == SizeAboveOne::Kind::Never)
      continue;
    verdict.kind = SymbolicOverlapVerdict::Kind::ZeroStride;
    verdict.dim = d;
    verdict.where = above.where;
    return verdict;
  }
  if (provenNonOverlapping(layout, table))
    return verdict;
  // No proof: look for a witness at the corners of the range.
  for (const SymbolValues &corner : rangeCorners(layout.symbols(), table)) {
    std::optional<Layout> at = layout.evaluate(corner);
    if (!at)
      continue;
    OverlapVerdict check = stride::checkNonOverlapping(at->shape, at->strides);
    if (check.kind != OverlapVerdict::Kind::Overlapping &&
        check.kind != OverlapVerdict::Kind::ZeroStride)
      continue;
    verdict.kind = SymbolicOverlapVerdict::Kind::Overlapping;
    verdict.dim = check.dim;
    verdict.where = formatValues(corner);
    verdict.witness = check;
    return verdict;
  }
  verdict.kind = SymbolicOverlapVerdict::Kind::CannotProve;
  return verdict;
}
