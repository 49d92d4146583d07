//===- FoldMasks.h - Attention masks folded at compile time ----*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A model often builds its attention mask from constants only (transformers
// 5 writes GPT-2's causal mask as `arange` comparisons, ANDed with a check
// that each pair of tokens is in one packed sequence of constant position
// ids). Such a mask is computed here, with the reference interpreter, once
// at compile time: a boolean mask that is true exactly on the lower
// triangle becomes the op's `causal` flag, one that is true everywhere is
// dropped, and so is an additive mask (eager attention's `where(keep, 0,
// min)`, FoldMasks.cpp says which values count as masked out) that is 0
// exactly there or everywhere; either way cuDNN reads no bias (python-free-docs/attention.md,
// "Masks known at compile time"). It lives beside the interpreter, which it
// runs; the compiler library calls it before the pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_INTERPRETER_FOLDMASKS_H
#define STRIDE_INTERPRETER_FOLDMASKS_H

#include "mlir/IR/BuiltinOps.h"

namespace stride {

/// The attention ops of `module` whose boolean or additive mask depends on
/// no input and is causal or attends everywhere lose the mask (causal set
/// for the former). Masks
/// of more than `maxElements` elements before their broadcast are left
/// alone. Returns how many masks were folded.
unsigned foldConstantAttentionMasks(mlir::ModuleOp module,
                                    int64_t maxElements = int64_t(1) << 26);

} // namespace stride

#endif // STRIDE_INTERPRETER_FOLDMASKS_H
