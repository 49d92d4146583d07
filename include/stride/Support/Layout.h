//===- Layout.h - Strided layouts: views, density and overlap ------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The one home of Stride's layout arithmetic. A layout maps the logical index
// (i_0, ..., i_{n-1}) of a tensor of shape (s_0, ..., s_{n-1}) to the storage
// address offset + sum_k i_k * stride_k (in elements). The view-op verifiers,
// the layout legalization pass, the interpreter and the CUDA emitter all use
// these functions, so each rule exists exactly once.
//
// Plain C++ (no MLIR or LLVM), so the runtime can use it too.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_SUPPORT_LAYOUT_H
#define STRIDE_SUPPORT_LAYOUT_H

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace stride {

using Dims = std::vector<int64_t>;
using DimsRef = std::span<const int64_t>;

/// Hard limits that stop a hostile graph from exhausting resources; checked
/// when a tensor type is verified. kMaxElements bounds the product of a
/// tensor's non-zero dims (so also of any subset of its dims, even for an
/// empty tensor), which keeps every size computation far from int64 overflow.
inline constexpr int64_t kMaxRank = 16;
inline constexpr int64_t kMaxElements = int64_t(1) << 40;

struct Layout {
  Dims shape;
  Dims strides;
  int64_t offset = 0;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  bool operator==(const Layout &other) const = default;
};

/// Row-major (C order) strides for `shape`.
Dims rowMajorStrides(DimsRef shape);

/// Strides of a dense layout whose dims, from outermost to innermost, are
/// `order` (a permutation of 0..rank-1).
Dims denseStridesInOrder(DimsRef shape, DimsRef order);

/// Product of the dims, or nullopt when a dim is negative or the product of
/// the non-zero dims exceeds kMaxElements.
std::optional<int64_t> checkedNumElements(DimsRef shape);

/// Number of storage elements a layout touches from address 0: offset + the
/// largest address + 1, or offset when the tensor has no elements. nullopt on
/// overflow.
std::optional<int64_t> storageExtent(const Layout &layout);

/// True when the layout is row-major contiguous with offset 0.
bool isRowMajor(const Layout &layout);

/// True when `a` and `b` address the same storage: equal shapes and
/// offsets, and equal strides in every dim of size other than 1. A dim of
/// size 1 has the one index 0, so its stride addresses nothing (PyTorch
/// does not compare it either, and chooses it differently from Stride's
/// view rule); a tensor with no elements addresses nothing at all, so any
/// two of its layouts are the same. The one comparison of two layouts, for
/// view verification and the importer.
bool sameAddressing(const Layout &a, const Layout &b);

/// Result of the non-overlap check of a layout.
struct OverlapVerdict {
  enum class Kind {
    /// Every logical index has its own address (proven).
    NonOverlapping,
    /// Dim `dim` has size > 1 and stride 0.
    ZeroStride,
    /// Two logical indices provably share an address; `first` and `second`
    /// are such a pair and `address` is the shared address (relative to the
    /// offset).
    Overlapping,
    /// The sufficient test failed at dim `dim` but found no collision.
    CannotProve,
  };
  Kind kind = Kind::NonOverlapping;
  int64_t dim = -1;
  Dims first, second;
  int64_t address = 0;

  bool ok() const { return kind == Kind::NonOverlapping; }
};

/// The sufficient non-overlap test: dims of size 1 are ignored, a tensor with
/// no elements never overlaps; the other dims are sorted by stride and each
/// stride must be at least the span (largest address + 1) of all smaller
/// ones. When the test fails, a collision is searched for (it exists exactly
/// when the failing stride is reachable by the smaller dims, which nest).
OverlapVerdict checkNonOverlapping(DimsRef shape, DimsRef strides);

/// True when the layout is dense: non-overlapping and its addresses fill
/// [offset, offset + numElements) exactly.
bool isDense(DimsRef shape, DimsRef strides);

/// The dims ordered from largest stride to smallest (ties keep the original
/// order); the "dimension order" of a layout.
Dims dimOrderByStride(DimsRef strides);

//===----------------------------------------------------------------------===//
// View layout inference. Each returns the result layout of the view applied to
// `source`, or an error message (lower case, saying what was expected).
//===----------------------------------------------------------------------===//

struct ViewResult {
  std::optional<Layout> layout;
  std::string error;

  static ViewResult success(Layout l) { return {std::move(l), {}}; }
  static ViewResult failure(std::string e) { return {std::nullopt, std::move(e)}; }
  explicit operator bool() const { return layout.has_value(); }
};

/// torch.expand: `shape` has rank >= source rank; new leading dims and
/// source dims of size 1 broadcast with stride 0, other dims keep size and
/// stride.
ViewResult inferExpand(const Layout &source, DimsRef shape);
/// torch.unsqueeze: inserts a size-1 dim at `dim` (0 <= dim <= rank).
ViewResult inferUnsqueeze(const Layout &source, int64_t dim);
/// torch.squeeze(dims): removes the listed dims, each of which has size 1.
ViewResult inferSqueeze(const Layout &source, DimsRef dims);
/// torch.permute.
ViewResult inferPermute(const Layout &source, DimsRef permutation);
/// source[..., start:end:step, ...] on `dim` (0 <= start <= end <= size,
/// step >= 1).
ViewResult inferSlice(const Layout &source, int64_t dim, int64_t start,
                      int64_t end, int64_t step);
/// torch.select(dim, index) (0 <= index < size).
ViewResult inferSelect(const Layout &source, int64_t dim, int64_t index);
/// torch.view(shape): same number of elements, and only where the strides
/// allow it without a copy (PyTorch's computeStride rule).
ViewResult inferView(const Layout &source, DimsRef shape);
/// torch.as_strided: `result` is given; every address it reaches must lie in
/// the storage range the source reaches.
ViewResult checkAsStrided(const Layout &source, const Layout &result);

/// "[4, 13, 33]"
std::string formatDims(DimsRef dims);

} // namespace stride

#endif // STRIDE_SUPPORT_LAYOUT_H
