//===- Layout.cpp - Strided layouts: views, density and overlap ----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Support/Layout.h"

#include <algorithm>
#include <numeric>

namespace stride {

namespace {

bool mulOverflows(int64_t a, int64_t b, int64_t &out) {
  return __builtin_mul_overflow(a, b, &out);
}

bool addOverflows(int64_t a, int64_t b, int64_t &out) {
  return __builtin_add_overflow(a, b, &out);
}

std::string str(int64_t v) { return std::to_string(v); }

bool dimInRange(int64_t dim, int64_t rank) { return dim >= 0 && dim < rank; }

/// `offset + index * stride`, or nullopt when it overflows int64.
std::optional<int64_t> checkedAddress(int64_t offset, int64_t index,
                                      int64_t stride) {
  int64_t term, result;
  if (mulOverflows(index, stride, term) || addOverflows(offset, term, result))
    return std::nullopt;
  return result;
}

/// The message of a view whose result layout does not fit in int64.
std::string overflowError(const std::string &what) {
  return what + " overflows a 64-bit integer";
}

/// Moves `result`'s offset to element `position` of `source` along `dim`
/// (a slice's start, a select's index); on overflow, the error names the
/// position as `what`.
std::optional<std::string> offsetToPosition(Layout &result,
                                            const Layout &source, int64_t dim,
                                            int64_t position,
                                            const std::string &what) {
  std::optional<int64_t> offset =
      checkedAddress(source.offset, position, source.strides[dim]);
  if (!offset)
    return overflowError("the result's offset, " + str(source.offset) + " + " +
                         what + " " + str(position) + " times stride " +
                         str(source.strides[dim]) + ",");
  result.offset = *offset;
  return std::nullopt;
}

/// Largest address (relative to the offset) of a layout with no empty dim.
std::optional<int64_t> largestRelativeAddress(DimsRef shape, DimsRef strides) {
  int64_t result = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t term;
    if (mulOverflows(shape[i] - 1, strides[i], term) ||
        addOverflows(result, term, result))
      return std::nullopt;
  }
  return result;
}

bool hasNoElements(DimsRef shape) {
  return std::any_of(shape.begin(), shape.end(),
                     [](int64_t s) { return s == 0; });
}

} // namespace

std::string formatDims(DimsRef dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    out += (i ? ", " : "") + str(dims[i]);
  return out + "]";
}

Dims rowMajorStrides(DimsRef shape) {
  Dims strides(shape.size());
  int64_t running = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = running;
    // Saturate instead of overflowing; checkedNumElements rejects such
    // shapes at verification anyway.
    if (mulOverflows(running, std::max<int64_t>(shape[i], 1), running))
      running = INT64_MAX;
  }
  return strides;
}

Dims denseStridesInOrder(DimsRef shape, DimsRef order) {
  Dims strides(shape.size());
  int64_t running = 1;
  for (size_t k = order.size(); k-- > 0;) {
    strides[order[k]] = running;
    if (mulOverflows(running, std::max<int64_t>(shape[order[k]], 1), running))
      running = INT64_MAX;
  }
  return strides;
}

std::optional<int64_t> checkedNumElements(DimsRef shape) {
  // The product of the non-zero dims bounds every partial product of the
  // dims, so code that multiplies some of them never overflows either.
  int64_t n = 1;
  bool empty = false;
  for (int64_t s : shape) {
    if (s < 0)
      return std::nullopt;
    if (s == 0)
      empty = true;
    else if (mulOverflows(n, s, n) || n > kMaxElements)
      return std::nullopt;
  }
  return empty ? 0 : n;
}

std::optional<int64_t> storageExtent(const Layout &layout) {
  if (hasNoElements(layout.shape))
    return layout.offset;
  auto largest = largestRelativeAddress(layout.shape, layout.strides);
  // offset + largest + 1, each step checked (largest may be INT64_MAX).
  int64_t extent;
  if (!largest || addOverflows(layout.offset, *largest, extent) ||
      addOverflows(extent, 1, extent))
    return std::nullopt;
  return extent;
}

bool isRowMajor(const Layout &layout) {
  if (layout.offset != 0)
    return false;
  Dims expected = rowMajorStrides(layout.shape);
  for (size_t i = 0; i < expected.size(); ++i)
    if (layout.shape[i] > 1 && layout.strides[i] != expected[i])
      return false;
  return true;
}

bool sameAddressing(const Layout &a, const Layout &b) {
  if (a.shape != b.shape || a.strides.size() != b.strides.size())
    return false;
  if (hasNoElements(a.shape))
    return true;
  if (a.offset != b.offset)
    return false;
  for (size_t i = 0; i < a.shape.size(); ++i)
    if (a.shape[i] != 1 && a.strides[i] != b.strides[i])
      return false;
  return true;
}

Dims dimOrderByStride(DimsRef strides) {
  Dims order(strides.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return strides[a] > strides[b];
  });
  return order;
}

OverlapVerdict checkNonOverlapping(DimsRef shape, DimsRef strides) {
  OverlapVerdict verdict;
  if (hasNoElements(shape))
    return verdict;
  Dims dims;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1)
      continue;
    if (strides[i] == 0) {
      verdict.kind = OverlapVerdict::Kind::ZeroStride;
      verdict.dim = static_cast<int64_t>(i);
      return verdict;
    }
    dims.push_back(static_cast<int64_t>(i));
  }
  std::stable_sort(dims.begin(), dims.end(),
                   [&](int64_t a, int64_t b) { return strides[a] < strides[b]; });

  // `span` is one past the largest address reachable by the dims checked so
  // far; each further stride must reach beyond it.
  int64_t span = 1;
  for (size_t k = 0; k < dims.size(); ++k) {
    int64_t d = dims[k];
    if (strides[d] < span) {
      verdict.dim = d;
      // The smaller dims nest (each stride >= the span below it), so a
      // greedy decomposition from the largest finds the unique index that
      // reaches address strides[d], if any.
      Dims witness(shape.size(), 0);
      int64_t remaining = strides[d];
      for (size_t j = k; j-- > 0;) {
        int64_t dj = dims[j];
        witness[dj] = std::min(remaining / strides[dj], shape[dj] - 1);
        remaining -= witness[dj] * strides[dj];
      }
      if (remaining != 0) {
        verdict.kind = OverlapVerdict::Kind::CannotProve;
        return verdict;
      }
      verdict.kind = OverlapVerdict::Kind::Overlapping;
      verdict.first = Dims(shape.size(), 0);
      verdict.first[d] = 1;
      verdict.second = witness;
      verdict.address = strides[d];
      return verdict;
    }
    int64_t reach;
    if (mulOverflows(strides[d], shape[d] - 1, reach) ||
        addOverflows(reach, span, span)) {
      verdict.kind = OverlapVerdict::Kind::CannotProve;
      verdict.dim = d;
      return verdict;
    }
  }
  return verdict;
}

bool isDense(DimsRef shape, DimsRef strides) {
  if (!checkNonOverlapping(shape, strides).ok())
    return false;
  if (hasNoElements(shape))
    return true;
  auto n = checkedNumElements(shape);
  auto largest = largestRelativeAddress(shape, strides);
  return n && largest && *largest + 1 == *n;
}

//===----------------------------------------------------------------------===//
// View inference
//===----------------------------------------------------------------------===//

ViewResult inferExpand(const Layout &source, DimsRef shape) {
  int64_t rank = static_cast<int64_t>(shape.size());
  if (rank < source.rank())
    return ViewResult::failure("expand cannot reduce the rank: the operand has rank " +
                               str(source.rank()) + ", the result " + str(rank));
  Layout result{Dims(shape.begin(), shape.end()), Dims(rank, 0), source.offset};
  int64_t lead = rank - source.rank();
  for (int64_t i = 0; i < source.rank(); ++i) {
    int64_t from = source.shape[i], to = shape[lead + i];
    if (from == to)
      result.strides[lead + i] = source.strides[i];
    else if (from != 1)
      return ViewResult::failure(
          "expand can only broadcast dims of size 1, but operand dim " + str(i) +
          " has size " + str(from) + " and result dim " + str(lead + i) +
          " has size " + str(to));
  }
  return ViewResult::success(std::move(result));
}

ViewResult inferUnsqueeze(const Layout &source, int64_t dim) {
  if (dim < 0 || dim > source.rank())
    return ViewResult::failure("dim " + str(dim) + " is out of range [0, " +
                               str(source.rank()) + "]");
  Layout result = source;
  // PyTorch's choice: the new dim's stride is the span of the dim it
  // precedes, or 1 at the end.
  int64_t stride = 1;
  if (dim < source.rank() &&
      mulOverflows(source.shape[dim], source.strides[dim], stride))
    return ViewResult::failure(overflowError(
        "the new dim's stride, size " + str(source.shape[dim]) +
        " times stride " + str(source.strides[dim]) + " of dim " + str(dim) +
        ","));
  result.shape.insert(result.shape.begin() + dim, 1);
  result.strides.insert(result.strides.begin() + dim, stride);
  return ViewResult::success(std::move(result));
}

ViewResult inferSqueeze(const Layout &source, DimsRef dims) {
  std::vector<bool> drop(source.rank(), false);
  for (int64_t d : dims) {
    if (!dimInRange(d, source.rank()))
      return ViewResult::failure("dim " + str(d) + " is out of range [0, " +
                                 str(source.rank()) + ")");
    if (drop[d])
      return ViewResult::failure("dim " + str(d) + " is listed twice");
    if (source.shape[d] != 1)
      return ViewResult::failure("dim " + str(d) + " has size " +
                                 str(source.shape[d]) +
                                 ", but squeeze removes only dims of size 1");
    drop[d] = true;
  }
  Layout result{{}, {}, source.offset};
  for (int64_t i = 0; i < source.rank(); ++i) {
    if (drop[i])
      continue;
    result.shape.push_back(source.shape[i]);
    result.strides.push_back(source.strides[i]);
  }
  return ViewResult::success(std::move(result));
}

ViewResult inferPermute(const Layout &source, DimsRef permutation) {
  if (static_cast<int64_t>(permutation.size()) != source.rank())
    return ViewResult::failure("the permutation has " + str(permutation.size()) +
                               " entries, but the operand has rank " +
                               str(source.rank()));
  std::vector<bool> seen(source.rank(), false);
  Layout result{{}, {}, source.offset};
  for (int64_t p : permutation) {
    if (!dimInRange(p, source.rank()) || seen[p])
      return ViewResult::failure(formatDims(permutation) +
                                 " is not a permutation of 0.." +
                                 str(source.rank() - 1));
    seen[p] = true;
    result.shape.push_back(source.shape[p]);
    result.strides.push_back(source.strides[p]);
  }
  return ViewResult::success(std::move(result));
}

ViewResult inferSlice(const Layout &source, int64_t dim, int64_t start,
                      int64_t end, int64_t step) {
  if (!dimInRange(dim, source.rank()))
    return ViewResult::failure("dim " + str(dim) + " is out of range [0, " +
                               str(source.rank()) + ")");
  int64_t size = source.shape[dim];
  if (step < 1)
    return ViewResult::failure("step must be at least 1, but is " + str(step));
  if (start < 0 || start > end || end > size)
    return ViewResult::failure("the range [" + str(start) + ", " + str(end) +
                               ") must satisfy 0 <= start <= end <= " +
                               str(size) + " (the size of dim " + str(dim) +
                               ")");
  Layout result = source;
  // ceil((end - start) / step), written so that a huge step cannot overflow.
  result.shape[dim] = end == start ? 0 : (end - start - 1) / step + 1;
  if (mulOverflows(source.strides[dim], step, result.strides[dim]))
    return ViewResult::failure(overflowError(
        "the result's stride, stride " + str(source.strides[dim]) + " of dim " +
        str(dim) + " times step " + str(step) + ","));
  if (std::optional<std::string> error =
          offsetToPosition(result, source, dim, start, "start"))
    return ViewResult::failure(*error);
  return ViewResult::success(std::move(result));
}

ViewResult inferSelect(const Layout &source, int64_t dim, int64_t index) {
  if (!dimInRange(dim, source.rank()))
    return ViewResult::failure("dim " + str(dim) + " is out of range [0, " +
                               str(source.rank()) + ")");
  if (index < 0 || index >= source.shape[dim])
    return ViewResult::failure("index " + str(index) + " is out of range [0, " +
                               str(source.shape[dim]) + ") of dim " + str(dim));
  Layout result = source;
  if (std::optional<std::string> error =
          offsetToPosition(result, source, dim, index, "index"))
    return ViewResult::failure(*error);
  result.shape.erase(result.shape.begin() + dim);
  result.strides.erase(result.strides.begin() + dim);
  return ViewResult::success(std::move(result));
}

ViewResult inferView(const Layout &source, DimsRef shape) {
  auto oldCount = checkedNumElements(source.shape);
  auto newCount = checkedNumElements(shape);
  if (!oldCount || !newCount || *oldCount != *newCount)
    return ViewResult::failure(
        "a view keeps the number of elements, but " + formatDims(source.shape) +
        " and " + formatDims(shape) + " differ");
  Layout result{Dims(shape.begin(), shape.end()), Dims(shape.size(), 1),
                source.offset};
  if (*oldCount == 0) {
    result.strides = rowMajorStrides(shape);
    return ViewResult::success(std::move(result));
  }
  // PyTorch's computeStride: walk the old dims from the innermost, grouping
  // them into chunks that are contiguous with each other, and split each
  // chunk over the new dims that multiply to its size.
  int64_t viewDim = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunkBaseStride = source.strides.empty() ? 1 : source.strides.back();
  int64_t tensorElems = 1, viewElems = 1;
  // The element counts are at most kMaxElements (checked above); products
  // with a stride are checked, since a dim of size 1 may have any stride.
  for (int64_t d = source.rank() - 1; d >= 0; --d) {
    tensorElems *= source.shape[d];
    int64_t chunkSpan;
    bool chunkEnds =
        d == 0 ||
        (source.shape[d - 1] != 1 &&
         (mulOverflows(tensorElems, chunkBaseStride, chunkSpan) ||
          source.strides[d - 1] != chunkSpan));
    if (!chunkEnds)
      continue;
    while (viewDim >= 0 &&
           (viewElems < tensorElems || shape[viewDim] == 1)) {
      if (mulOverflows(viewElems, chunkBaseStride, result.strides[viewDim]))
        return ViewResult::failure(overflowError(
            "the stride of result dim " + str(viewDim) + ", " +
            str(viewElems) + " times stride " + str(chunkBaseStride) + ","));
      viewElems *= shape[viewDim];
      --viewDim;
    }
    if (viewElems != tensorElems)
      return ViewResult::failure(
          "the operand's strides " + formatDims(source.strides) +
          " do not allow viewing shape " + formatDims(source.shape) + " as " +
          formatDims(shape) + " without a copy");
    if (d > 0) {
      chunkBaseStride = source.strides[d - 1];
      tensorElems = 1;
      viewElems = 1;
    }
  }
  // Remaining new dims are all of size 1.
  for (; viewDim >= 0; --viewDim)
    result.strides[viewDim] = 1;
  return ViewResult::success(std::move(result));
}

ViewResult checkAsStrided(const Layout &source, const Layout &result) {
  if (hasNoElements(result.shape))
    return ViewResult::success(result);
  auto sourceEnd = storageExtent(source);
  auto resultEnd = storageExtent(result);
  int64_t sourceBegin = source.offset;
  if (!sourceEnd || !resultEnd || result.offset < sourceBegin ||
      *resultEnd > *sourceEnd)
    return ViewResult::failure(
        "the result reaches storage addresses [" + str(result.offset) + ", " +
        (resultEnd ? str(*resultEnd) : std::string("overflow")) +
        "), outside the addresses [" + str(sourceBegin) + ", " +
        (sourceEnd ? str(*sourceEnd) : std::string("overflow")) +
        ") that the operand may read");
  return ViewResult::success(result);
}

} // namespace stride
