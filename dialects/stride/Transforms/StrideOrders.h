//===- StrideOrders.h - Packed layouts in a dim order ----------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to dialects/stride/Transforms: the packed layouts of a tensor in a
// given nesting of its dims (row-major NCHW, channels-last NHWC), as
// stride-convolution-layout chooses them and stride-convolution-library
// checks them.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_STRIDE_TRANSFORMS_STRIDEORDERS_H
#define STRIDE_DIALECTS_STRIDE_TRANSFORMS_STRIDEORDERS_H

#include "dialects/stride/IR/StrideOps.h"
#include "stride/Support/Layout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallVector.h"

namespace stride {

/// Whether `type`'s elements are packed (no gaps, no overlap) with its
/// dims nested in `order`, outermost first; a dim of size 1 addresses
/// nothing and is skipped.
inline bool isPackedIn(StridedTensorType type, llvm::ArrayRef<int64_t> order) {
  // A symbolic layout (kDynamic in its static shape) is left to the
  // symbolic rules: the layout passes that ask here keep it as it is.
  if (type.isSymbolic())
    return false;
  llvm::ArrayRef<int64_t> shape = type.getShape(), strides = type.getStrides();
  int64_t expected = 1;
  for (int64_t d : llvm::reverse(order)) {
    if (shape[d] != 1 && strides[d] != expected)
      return false;
    // A product past int64 (dims of an empty tensor, around a 0) is no
    // stride an outer dim has.
    if (llvm::MulOverflow(expected, shape[d], expected))
      return false;
  }
  return true;
}

/// Whether `type`'s elements are packed in some nesting of its dims (a
/// permutation of a row-major layout): its dims by decreasing stride.
inline bool isPackedInSomeOrder(StridedTensorType type) {
  return isPackedIn(type, dimOrderByStride(type.getStrides()));
}

/// [0, 1, .., rank - 1]: row-major (NCHW).
inline llvm::SmallVector<int64_t> channelsFirst(int64_t rank) {
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

/// [0, 2, .., rank - 1, 1]: channels-last (NHWC).
inline llvm::SmallVector<int64_t> channelsLast(int64_t rank) {
  llvm::SmallVector<int64_t> order{0};
  for (int64_t d = 2; d < rank; ++d)
    order.push_back(d);
  order.push_back(1);
  return order;
}

/// The permutation that undoes `permutation` (dim `permutation[i]` of a
/// permuted value is its dim `i`).
inline llvm::SmallVector<int64_t>
inversePermutation(llvm::ArrayRef<int64_t> permutation) {
  llvm::SmallVector<int64_t> inverted(permutation.size());
  for (auto [position, dim] : llvm::enumerate(permutation))
    inverted[dim] = position;
  return inverted;
}

/// `type`'s shape and element type, packed with its dims nested in
/// `order` (outermost first), from element 0.
inline StridedTensorType packedIn(StridedTensorType type,
                                  llvm::ArrayRef<int64_t> order) {
  llvm::ArrayRef<int64_t> shape = type.getShape();
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  int64_t stride = 1;
  for (int64_t d : llvm::reverse(order)) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return StridedTensorType::get(type.getContext(), shape,
                                type.getElementType(), strides, 0);
}

} // namespace stride

#endif // STRIDE_DIALECTS_STRIDE_TRANSFORMS_STRIDEORDERS_H
