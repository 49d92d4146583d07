//===- Strings.cpp - Text helpers shared by the printers ------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Support/Strings.h"

namespace stride {

std::string escapeQuoted(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string quoted(std::string_view text) {
  return "\"" + escapeQuoted(text) + "\"";
}

} // namespace stride
