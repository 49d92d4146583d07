//===- ShrinkShapes.h - Resizing the dims of a graph ------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The dims of a graph function's values that must keep one size (an add's
// operands and result, a matrix product's contracted dims, a view's dims and
// its operand's), found by tying dims across ops, and resizing one such
// class as a whole. Behind the pass stride-shrink-shapes and stride-reduce's
// shape reduction (python-free-docs/debugging.md). What pins a size is left to the op
// verifiers: a resize is kept only when the function still verifies.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_STRIDE_TRANSFORMS_SHRINKSHAPES_H
#define STRIDE_DIALECTS_STRIDE_TRANSFORMS_SHRINKSHAPES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <utility>

namespace stride {

/// Dims of a graph function's values that are resized together: each is
/// tied to the dims that an op's shape rules make equal to it.
struct DimClass {
  /// The size every dim of the class has.
  int64_t size = 0;
  /// (value, dim) pairs: the function's arguments first, then the results
  /// of its ops (and the arguments of kernel bodies), in program order.
  llvm::SmallVector<std::pair<mlir::Value, unsigned>> dims;
};

/// The classes of `func` that may shrink, in program order of their first
/// dim: of size > 1 and without a dim of a non-splat stride.constant (its
/// values fix its shape). Fails, with an error at the function or op, when
/// `func` is not a graph: a declaration, or a value that is not a
/// !stride.tensor.
mlir::FailureOr<llvm::SmallVector<DimClass>>
findShrinkableDimClasses(mlir::func::FuncOp func);

/// Why resizeDimClass refused a size: the first error that re-inferring a
/// view's layout or verifying the function reported, and where.
struct ResizeRefusal {
  std::string message;
  std::optional<mlir::Location> loc;
};

/// Gives every dim of `dimClass` (found in `func`) the size `size`:
///  - arguments and the results of ops that write fresh buffers get a dense
///    layout in the dim order of their old one (row-major stays row-major),
///    zero strides kept;
///  - views are re-inferred from their operands, a slice of a whole dim
///    (start 0, step 1) following the dim's new size;
///  - a splat stride.constant gets the new shape; other constants refuse;
///  - the function type follows its arguments and returned values.
/// When a view cannot be re-inferred or the function no longer verifies,
/// `func` is left as it was, and `refusal` (when given) says why.
mlir::LogicalResult resizeDimClass(mlir::func::FuncOp func,
                                   const DimClass &dimClass, int64_t size,
                                   ResizeRefusal *refusal = nullptr);

/// The sizes to try, in order, for a class of size `size` > 1: 1, then half
/// of `size` (rounded up) when that is not 1 as well.
llvm::SmallVector<int64_t, 2> shrunkSizes(int64_t size);

} // namespace stride

#endif // STRIDE_DIALECTS_STRIDE_TRANSFORMS_SHRINKSHAPES_H
