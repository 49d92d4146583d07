//===- Diagnostics.cpp - Source locations in messages ---------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Support/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/Path.h"

using namespace mlir;

namespace stride {

std::optional<FileLineColLoc> firstFileLocation(Location loc) {
  std::optional<FileLineColLoc> found;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      found = file;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

std::optional<std::string> nodeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  return std::nullopt;
}

std::string formatLocation(Location loc) {
  std::optional<FileLineColLoc> file = firstFileLocation(loc);
  if (!file)
    return "unknown location";
  return llvm::sys::path::filename(file->getFilename().getValue()).str() +
         ":" + std::to_string(file->getLine()) + ":" +
         std::to_string(file->getColumn());
}

} // namespace stride
