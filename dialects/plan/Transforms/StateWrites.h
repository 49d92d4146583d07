//===- StateWrites.h - Writes into states and mutated inputs ---*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Internal to stride-outline-executable: which entry results write an
// argument back (stride.writes), and which of those writes a scatter kernel
// can make in place, into the argument's own storage.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_PLAN_TRANSFORMS_STATEWRITES_H
#define STRIDE_DIALECTS_PLAN_TRANSFORMS_STATEWRITES_H

#include "dialects/stride/IR/StrideAttrs.h"
#include "dialects/stride/IR/StrideOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace stride::plan {

/// Result `result` of the entry writes argument `argument` back.
struct ArgumentWrite {
  unsigned result, argument;
};

/// The results of `entry` that carry stride.writes, in result order.
llvm::SmallVector<ArgumentWrite> argumentWrites(mlir::func::FuncOp entry);

/// A kernel result that is written in place into an argument's storage.
struct InPlaceWrite {
  mlir::Operation *kernel;
  unsigned result;
  unsigned argument;
  /// The result is an index scatter into the argument: the kernel's copy of
  /// its input (phase 0) is to be dropped.
  bool scatter;
};

/// The writes of `entry` that a kernel makes in place: the written value is
/// result R of a kernel, of the argument's type, that nothing after the
/// kernel reads the argument's old value, and that either reads the
/// argument only as the input of the index scatter that yields R (a
/// `scatter`-scheme kernel: its copy of its input, phase 0, is then
/// dropped, and phase 1 writes the new positions into the argument's
/// storage) or does not read the argument at all (it writes all of R).
/// A result written back to several arguments is written in place into
/// the first of them. A kernel of sibling index scatters writes all of its
/// results in place or none: phase 0 copies every scatter's input.
llvm::SmallVector<InPlaceWrite> inPlaceWrites(mlir::func::FuncOp entry);

/// `schedule` with `launches` and `analysis` in place of its own.
KernelScheduleAttr rebuildSchedule(KernelScheduleAttr schedule,
                                   llvm::ArrayRef<mlir::Attribute> launches,
                                   IndexAnalysis analysis);

/// `kernel`'s schedule without its phase-0 launch (the scatter's copy of
/// its input).
void dropInputCopy(KernelOp kernel);

} // namespace stride::plan

#endif // STRIDE_DIALECTS_PLAN_TRANSFORMS_STATEWRITES_H
