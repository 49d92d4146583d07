//===- MatmulEpilogues.h - Fold bias and activation into a matmul -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_STRIDE_TRANSFORMS_MATMULEPILOGUES_H
#define STRIDE_DIALECTS_STRIDE_TRANSFORMS_MATMULEPILOGUES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace stride {

/// Folds into each stride.matmul of `func` what cuBLASLt computes in its
/// epilogue exactly enough (stride-fuse runs this before it forms kernels;
/// the rules are in python-free-docs/matmul.md, "Epilogues"): an `add` of a bias
/// broadcast over the last dim (an `expand` of a contiguous `[N]` vector)
/// becomes the op's bias, then a `relu` its epilogue, each only when the
/// product (with what was folded) has no other user and the folded op's
/// result is dense row-major. f64 products fold nothing. cuBLASLt's GELU
/// is not exact enough in any dtype: a `gelu_tanh` stays in a kernel, and a
/// product written with `epilogue gelu_tanh` gets a `stride.gelu_tanh`
/// after it instead.
void foldMatmulEpilogues(mlir::func::FuncOp func);

} // namespace stride

#endif // STRIDE_DIALECTS_STRIDE_TRANSFORMS_MATMULEPILOGUES_H
