//===- Importer.h - A torch.export archive into the stride dialect -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Imports a `.pt2` archive (Archive.h, Schema.h) as one func.func in the
// stride dialect. Every value is typed from the program's tensor_values
// (sizes, strides, storage offset, dtype): view results are checked against
// Stride's own view rules by the view ops' verifiers, functional results carry
// the file's claimed layout into stride-legalize-layouts. Every op is located
// at NameLoc(node name, the user's Python frame from the node's stack_trace).
// Parameters, buffers and constants become stride.constant ops (or, with
// weightsAsInputs, inputs named after them). python-free-docs/import.md describes it.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_IMPORT_TORCH_IMPORTER_H
#define STRIDE_IMPORT_TORCH_IMPORTER_H

#include "stride/Import/Torch/ImportOptions.h"
#include "stride/Support/Result.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace stride::torch {

/// Imports the archive held in `bytes`; `archiveName` names it in
/// diagnostics. Failures are emitted as diagnostics in `context` and give a
/// null module.
mlir::OwningOpRef<mlir::ModuleOp> importArchive(std::string bytes,
                                                const std::string &archiveName,
                                                mlir::MLIRContext *context,
                                                const ImportOptions &options);

/// The archive's model, user inputs, weights (parameters, buffers and
/// constants, by name, with their types and where they are stored) and
/// outputs, for a person (`stridec --inspect model.pt2`).
Result<std::string> describeArchive(std::string bytes);

/// Every op target the importer takes ("torch.ops.aten.add.Tensor"),
/// sorted: `stridec --list-torch-ops`, and the core ATen table of the docs
/// (scripts/core-aten-table.sh).
std::vector<std::string> importedTargets();

/// Whether a graph file is a .pt2 archive (zip magic, or the .pt2 suffix).
bool isTorchArchive(std::string_view bytes, std::string_view path);

} // namespace stride::torch

#endif // STRIDE_IMPORT_TORCH_IMPORTER_H
