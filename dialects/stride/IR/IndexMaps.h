//===- IndexMaps.h - Views as maps of coordinates ---------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A view's index map (ViewOpInterface::getIndexMap) is an AffineMap from the
// view's coordinates to its operand's: which operand element each result
// element is. This file holds the one way to compose the maps of a chain of
// views and to simplify index expressions with what the coordinates' bounds
// prove, and the builders the view ops use for their maps. The kernel
// contract (broadcast-back reads), the scheduler (reads at a kernel's own
// coordinates) and the CUDA printer (coordinates of a view of a computed
// value) read coordinates through views only through these maps; the
// interpreter needs none, since it reads a view through its result layout,
// which the map and the operand's layout give (IndexMapsTest).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_STRIDE_IR_INDEXMAPS_H
#define STRIDE_DIALECTS_STRIDE_IR_INDEXMAPS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"

namespace stride {

struct Layout;

/// The map from `value`'s coordinates to those of the base of its view
/// chain (the first value up the chain that no view defines): the views'
/// index maps composed and simplified within `value`'s shape. The identity
/// when `value` is no view's result; null when a view of the chain has no
/// index map.
mlir::AffineMap indexMapToBase(mlir::Value value);

/// `expr` simplified under 0 <= d_k < dimSizes[k] (symbols unbounded): a
/// floordiv or mod whose dividend's range proves the quotient (or that the
/// dividend is below the divisor) folds, and an expression of one value in
/// that range becomes the constant, so a dim of size 1 reads as 0. A
/// negative size (ShapedType::kDynamic: a symbolic size) leaves its dim
/// unbounded.
mlir::AffineExpr simplifyInBounds(mlir::AffineExpr expr,
                                  llvm::ArrayRef<int64_t> dimSizes);
/// Every result of `map` so simplified, over its dims' sizes `dimSizes`.
mlir::AffineMap simplifyInBounds(mlir::AffineMap map,
                                 llvm::ArrayRef<int64_t> dimSizes);

/// The coordinates, in a tensor of `shape` held densely in the order of
/// `strides` (a dense layout's strides), of the element at `address`
/// elements past the layout's start: (address floordiv stride_k) mod
/// size_k, without the mod on the outermost dim. Used by `view` (over
/// row-major strides) and `as_strided`.
llvm::SmallVector<mlir::AffineExpr>
delinearizeAddress(mlir::AffineExpr address, llvm::ArrayRef<int64_t> shape,
                   llvm::ArrayRef<int64_t> strides);

/// The address, relative to `layout`'s offset, of the element at
/// coordinates d_0..d_{rank-1}: sum of d_k * stride_k over dims of size > 1.
mlir::AffineExpr layoutAddress(const Layout &layout, mlir::MLIRContext *context);

} // namespace stride

#endif // STRIDE_DIALECTS_STRIDE_IR_INDEXMAPS_H
