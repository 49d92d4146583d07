//===- SymbolicProducts.h - Which products run over symbolic sizes -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_STRIDE_TRANSFORMS_SYMBOLICPRODUCTS_H
#define STRIDE_DIALECTS_STRIDE_TRANSFORMS_SYMBOLICPRODUCTS_H

#include "dialects/stride/IR/StrideOps.h"

#include <optional>
#include <string>

namespace stride {

/// The one home of the rule for a stride.matmul over symbolic sizes
/// (python-free-docs/symbolic-sizes.md, "Library calls over symbolic
/// sizes"): nullopt when `matmul` becomes one cuBLASLt call per shape
/// (symbolic rows M and a symbolic leading batch dim; K, N, the other
/// batch dims and every stride and offset static; operands read in place
/// and the result written as the library does at the symbols' largest
/// values), else what is missing ("products over a symbolic contraction or
/// column count (...)"). stride-check-symbolic-sizes refuses with it;
/// stride-matmul-layout, which then reads the layouts at the largest
/// values, checks it again for a pipeline without the check.
std::optional<std::string> missingForSymbolicProduct(MatmulOp matmul);

/// Whether stride-outer-products rewrites `product` into a broadcast
/// multiply (K = 1, no bias, no epilogue, no layout decision), over static
/// or symbolic sizes: such a product over a symbolic column count (LLaMA's
/// rotary angles over symbolic tokens) is no library call.
bool isPlainOuterProduct(MatmulOp product);

} // namespace stride

#endif // STRIDE_DIALECTS_STRIDE_TRANSFORMS_SYMBOLICPRODUCTS_H
