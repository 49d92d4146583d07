//===- GraphParser.cpp - Parsing graph files, with bounded nesting --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Import/GraphParser.h"

#include "dialects/stride/IR/StrideDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

using namespace mlir;

namespace stride {

void loadGraphDialects(MLIRContext &context) {
  DialectRegistry registry;
  registry.insert<StrideDialect, func::FuncDialect>();
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
}

LogicalResult checkGraphNesting(const llvm::SourceMgr &sourceMgr,
                                MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  StringRef text = buffer->getBuffer();
  int depth = 0;
  for (size_t i = 0, n = text.size(); i < n; ++i) {
    char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      i = std::min(text.find('\n', i), n);
      continue;
    }
    if (c == '"') {
      for (++i; i < n && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth <= kMaxNestingDepth)
        continue;
      auto [line, column] =
          sourceMgr.getLineAndColumn(llvm::SMLoc::getFromPointer(text.data() + i));
      emitError(FileLineColLoc::get(context, buffer->getBufferIdentifier(),
                                    line, column))
          << "brackets nest more than " << kMaxNestingDepth
          << " levels deep here; Stride refuses deeper nesting, which would "
             "exhaust the parser's stack";
      return failure();
    }
    // '>' closes a '<', except in '->'.
    if (c == ')' || c == ']' || c == '}' ||
        (c == '>' && (i == 0 || text[i - 1] != '-')))
      depth = std::max(depth - 1, 0);
  }
  return success();
}

bool looksLikeZip(std::string_view bytes) {
  return bytes.size() >= 4 && bytes.substr(0, 4) == std::string_view("PK\3\4", 4);
}

/// A graph file that is a zip archive (a torch.export .pt2, which only
/// stridec reads) is refused by name, before the text parser quotes its
/// bytes back.
static LogicalResult checkNotAnArchive(const llvm::SourceMgr &sourceMgr,
                                MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  if (!looksLikeZip(buffer->getBuffer()))
    return success();
  // At line 0: the diagnostic handler prints no source line (a location
  // in the file would quote the archive's bytes).
  emitError(FileLineColLoc::get(context, buffer->getBufferIdentifier(), 0, 0))
      << "this file is a zip archive (a torch.export .pt2?), not a graph in the "
         "stride dialect's text; stridec reads archives: `stridec "
      << buffer->getBufferIdentifier()
      << " --emit=graph -o graph.mlir` writes its graph as text";
  return failure();
}

OwningOpRef<ModuleOp> parseGraph(llvm::SourceMgr &sourceMgr,
                                 const ParserConfig &config) {
  if (failed(checkNotAnArchive(sourceMgr, config.getContext())) ||
      failed(checkGraphNesting(sourceMgr, config.getContext())))
    return {};
  return parseSourceFile<ModuleOp>(sourceMgr, config);
}

} // namespace stride
