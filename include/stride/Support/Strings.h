//===- Strings.h - Text helpers shared by the printers ---------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ (no MLIR, no LLVM).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_SUPPORT_STRINGS_H
#define STRIDE_SUPPORT_STRINGS_H

#include <string>
#include <string_view>

namespace stride {

/// `text` escaped for the inside of a double-quoted C or DOT string: '"' and
/// '\' get a backslash, a line break becomes "\n".
std::string escapeQuoted(std::string_view text);

/// `text` as a double-quoted C or DOT string literal.
std::string quoted(std::string_view text);

} // namespace stride

#endif // STRIDE_SUPPORT_STRINGS_H
