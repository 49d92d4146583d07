//===- Diagnostics.h - Source locations in messages -----------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The one home of "where in the graph file": the compiler's diagnostics, the
// emitted CUDA's comments and run-time messages, and the interpreter's errors
// all find an op's source position here, and those that print it as text
// print it in one format.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_SUPPORT_DIAGNOSTICS_H
#define STRIDE_SUPPORT_DIAGNOSTICS_H

#include "mlir/IR/Location.h"

#include <optional>
#include <string>

namespace stride {

/// The first file:line:col inside `loc`, looking through fused, named and
/// call-site locations (a fused kernel's location is the fusion of its ops').
std::optional<mlir::FileLineColLoc> firstFileLocation(mlir::Location loc);

/// The name of a NameLoc `loc` (an imported graph node's name, e.g.
/// "slice_scatter_1"); nullopt for any other location.
std::optional<std::string> nodeName(mlir::Location loc);

/// "seed_forward.mlir:7:17": the file's name without its directory (so that
/// generated code does not depend on where the graph file lies), line and
/// column of firstFileLocation; "unknown location" when there is none.
std::string formatLocation(mlir::Location loc);

} // namespace stride

#endif // STRIDE_SUPPORT_DIAGNOSTICS_H
