//===- Checks.h - stride-generate's --expect-* options ----------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What transformers' greedy `generate` produced (README.md, "Checking"): the
// tokens, the logits that chose each and the states after the last step.
// Each file is read and checked against the protocol before the GPU runs;
// float values are compared as stride-run --expect compares them
// (tools/stride-run/Compare.h: relative to max(|expected|, the array's mean
// magnitude)).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_EXAMPLES_GENERATE_CHECKS_H
#define STRIDE_EXAMPLES_GENERATE_CHECKS_H

#include "Generate.h"

#include <iosfwd>

namespace stride::generate {

/// Reads `path` as [B, n] i64 with n >= `newTokens`.
Result<HostArray> readExpectedTokens(const std::string &path,
                                     const Protocol &protocol,
                                     int64_t newTokens);

/// The first token where `generated` ([B, N]) and `expected` ([B, >= N])
/// differ, as an error naming the step and both tokens.
Status checkTokens(const HostArray &generated, const HostArray &expected,
                   const std::string &expectedPath);

/// Reads `path` as [n, B, V] f32 with n >= `newTokens`.
Result<HostArray> readExpectedLogits(const std::string &path,
                                     const Protocol &protocol,
                                     int64_t newTokens);

/// A LogitsCheck against `expected` ([n, B, V] f32): prints each step's
/// largest relative error to `out` and fails at the first step beyond
/// `rtol`.
LogitsCheck logitsCheck(HostArray expected, std::string path, double rtol,
                        std::ostream &out);

/// Reads DIR/<state>.npy for every state of the decode module, each
/// checked against its state (dtype, shape; an f32 file for a bf16 state
/// is rounded to bf16).
Result<StateValues> readExpectedStates(const std::string &dir,
                                       const Protocol &protocol);

/// Compares each state of `generator` with its expected value, printing
/// each state's largest relative error; fails if any is beyond `rtol`.
Status checkStates(Generator &generator, const StateValues &expected,
                   double rtol, std::ostream &out);

} // namespace stride::generate

#endif // STRIDE_EXAMPLES_GENERATE_CHECKS_H
