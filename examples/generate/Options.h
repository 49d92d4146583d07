//===- Options.h - stride-generate's command line ---------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_EXAMPLES_GENERATE_OPTIONS_H
#define STRIDE_EXAMPLES_GENERATE_OPTIONS_H

#include "stride/Support/Result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stride::generate {

struct Options {
  std::string prefill, decode;
  /// Default: prompt.npy beside the prefill module.
  std::string prompt;
  int64_t newTokens = 32;
  /// Empty: not checked.
  std::string expectTokens, expectLogits, expectStates;
  /// The tolerance of --expect-logits and --expect-states.
  double rtol = 5e-2;
  int device = 0;
  bool help = false;
};

/// Parses the arguments after the program's name.
Result<Options> parseOptions(const std::vector<std::string> &args);

std::string helpText();

} // namespace stride::generate

#endif // STRIDE_EXAMPLES_GENERATE_OPTIONS_H
