//===- CollectiveSteps.h - Collectives as the plan's NCCL steps -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to dialects/plan/Transforms: what a plan.collective step of a
// stride.all_reduce, all_gather or reduce_scatter holds, and the layouts
// NCCL can take (python-free-docs/distributed.md, "The plan's collective
// step").
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_PLAN_TRANSFORMS_COLLECTIVESTEPS_H
#define STRIDE_DIALECTS_PLAN_TRANSFORMS_COLLECTIVESTEPS_H

#include "dialects/stride/IR/StrideOps.h"

#include <optional>

namespace stride::plan {

/// The parameters of one collective's step, but its buffers.
struct CollectiveStepShape {
  CollectiveOperation kind;
  std::optional<CollectiveReduction> reduction;
  /// NCCL's count: the all_reduce's elements, the elements each rank
  /// contributes to an all_gather, each rank's part of a reduce_scatter.
  int64_t count = 0;
  mlir::Type elementType;
  int64_t worldSize = 1;
  /// Where the input's element 0 lies in its buffer.
  int64_t inputOffsetBytes = 0;
};

/// The step of `collective` (a stride collective op). NCCL reads and writes
/// contiguous elements, the ranks' blocks one after the other: an error at
/// the op (with a note that says what to change) when the input or the
/// result is not row-major contiguous, or when the dim gathered or
/// scattered is not the outermost dim of more than one element.
mlir::FailureOr<CollectiveStepShape>
collectiveStepShape(mlir::Operation *collective);

} // namespace stride::plan

#endif // STRIDE_DIALECTS_PLAN_TRANSFORMS_COLLECTIVESTEPS_H
