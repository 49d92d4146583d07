//===- GraphParser.h - Parsing graph files, with bounded nesting ----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// MLIR's parser is recursive descent without a depth limit: a file of 20000
// '(' overflows the stack (a segfault, found by stride-graph-fuzzer). Every
// Stride tool parses graph files through parseGraph, which first refuses
// brackets nested deeper than kMaxNestingDepth with an error at the bracket.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_IMPORT_GRAPHPARSER_H
#define STRIDE_IMPORT_GRAPHPARSER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include <string_view>

namespace stride {

/// How deep ( [ { < may nest in a graph file. Real graphs nest a few levels
/// (a dense constant of the largest rank, 16, needs 17).
inline constexpr int kMaxNestingDepth = 256;

/// Checks the nesting of the brackets of `sourceMgr`'s main buffer, outside
/// comments and string literals; emits an error at the first bracket nested
/// deeper than kMaxNestingDepth and fails.
mlir::LogicalResult checkGraphNesting(const llvm::SourceMgr &sourceMgr,
                                      mlir::MLIRContext *context);

/// Loads the dialects a graph file uses (stride, func) into `context` and
/// leaves MLIR's generic op dump out of its diagnostics (they name the op by
/// location; the dump is noise for a compiler user). Every client that
/// parses graphs (the compiler library, stride-run) sets its context up so.
void loadGraphDialects(mlir::MLIRContext &context);

/// Whether `bytes` begin like a zip file ("PK\3\4"): how every graph reader
/// tells a torch.export archive (.pt2) from a graph's text.
bool looksLikeZip(std::string_view bytes);

/// Refuses a zip archive (a .pt2) by name, then checkGraphNesting, then
/// mlir::parseSourceFile.
mlir::OwningOpRef<mlir::ModuleOp> parseGraph(llvm::SourceMgr &sourceMgr,
                                             const mlir::ParserConfig &config);

} // namespace stride

#endif // STRIDE_IMPORT_GRAPHPARSER_H
