//===- AttentionCalls.h - Attention ops as cuDNN library calls -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to dialects/plan/Transforms: the descriptors of the
// `cudnn.sdpa_forward` and `cudnn.sdpa_backward` calls that the plan makes
// of the attention ops stride-attention-library kept fused. The fields and
// the buffer order are the runtime's contract, specified in
// python-free-docs/attention.md ("The descriptor").
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_PLAN_TRANSFORMS_ATTENTIONCALLS_H
#define STRIDE_DIALECTS_PLAN_TRANSFORMS_ATTENTIONCALLS_H

#include "dialects/stride/IR/StrideOps.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace stride::plan {

/// The tensors a call reads and writes, in the order of its buffers.
using CallTensors = llvm::SmallVector<mlir::Value>;

/// cudnn.sdpa_forward of `op`: q, k, v, [bias], o, then the statistics,
/// always written (cuDNN has no engine for a forward without them): the
/// op's logsumexp result, or a scratch buffer when it has none.
/// sdpaForwardTensors lists the tensors before the statistics.
mlir::DictionaryAttr sdpaForwardDescriptor(AttentionOp op);
CallTensors sdpaForwardTensors(AttentionOp op);

/// cudnn.sdpa_backward of `op`: q, k, v, o, do, stats, [bias], dq, dk, dv.
mlir::DictionaryAttr sdpaBackwardDescriptor(AttentionBackwardOp op);
CallTensors sdpaBackwardTensors(AttentionBackwardOp op);

} // namespace stride::plan

#endif // STRIDE_DIALECTS_PLAN_TRANSFORMS_ATTENTIONCALLS_H
