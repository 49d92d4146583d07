//===- CompareValues.h - Per-value comparison with the reference -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// `stride-run graph.mlir --compare-values DIR`: the reference side of the
// per-value comparison (python-free-docs/debugging.md). A module compiled with `stridec
// --keep-values` returns every buffer its kernels and library calls write as
// outputs value.0, value.1, ... (stride-keep-values); a run of it writes them
// as DIR/value.K.npy. stride-run forms the same kernels from the graph, keeps
// the same values, interprets them, and names the first that differs.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TOOLS_STRIDE_RUN_COMPAREVALUES_H
#define STRIDE_TOOLS_STRIDE_RUN_COMPAREVALUES_H

#include "stride/Support/Npy.h"
#include "stride/Support/Result.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace stride::run {

/// Compares the kept values among `results` (the results of `entry`, after
/// stride-keep-values, as interpreted) with DIR/value.K.npy, in program
/// order, and prints a summary and a report of the first value that differs
/// beyond `rtol` to `os`. Returns whether all match; an Error for a missing
/// or unreadable file.
Result<bool> compareKeptValues(mlir::func::FuncOp entry,
                               const std::vector<HostArray> &results,
                               const std::string &dir, double rtol,
                               llvm::raw_ostream &os);

} // namespace stride::run

#endif // STRIDE_TOOLS_STRIDE_RUN_COMPAREVALUES_H
