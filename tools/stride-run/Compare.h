//===- Compare.h - Comparing arrays against expected values --------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The check `stride-run --expect` and scripts/gpu-check.sh apply to every
// output. Plain C++ (no MLIR, no LLVM).
//
// Integers and booleans must be equal. A floating-point element `a` with
// expected value `e` passes when
//
//     |a - e| <= rtol * max(|e|, mean_abs(expected))
//
// that is, its relative error is at most rtol, where values much smaller than
// the array's typical magnitude are measured against that magnitude (a sum
// that cancels to nearly zero carries the rounding error of its terms, not of
// its result). NaN must match NaN, infinities must match exactly. rtol = 0
// demands exact equality.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TOOLS_STRIDE_RUN_COMPARE_H
#define STRIDE_TOOLS_STRIDE_RUN_COMPARE_H

#include "stride/Support/Npy.h"

#include <cstdint>
#include <string>

namespace stride {

struct Comparison {
  bool ok = true;
  int64_t mismatches = 0;
  /// The largest relative error as defined above (0 for exact matches).
  double maxRelativeError = 0;
  /// The largest |actual - expected| over finite elements.
  double maxAbsoluteError = 0;
  /// One line describing the first mismatch, e.g. "element [3, 1]: got 0.5,
  /// expected 0.25".
  std::string firstMismatch;
  /// The same for the element of the largest relative error (empty when
  /// every finite element matches exactly).
  std::string worstElement;
};

/// Element `i` (row-major) as a double; f16 and bf16 are decoded exactly.
double elementAsDouble(const HostArray &a, int64_t i);

/// Compares `actual` with `expected` (same dtype and shape, else a mismatch
/// saying so).
Comparison compareArrays(const HostArray &actual, const HostArray &expected,
                         double rtol);

/// The line `--expect` prints for output `name`: "out: match (max relative
/// error 0)" or "out: MISMATCH (max relative error 0.5), 3 elements differ;
/// first: element [1]: got 1, expected 2".
std::string describeComparison(const std::string &name, const Comparison &c);

/// `a` as f32 when it is bf16 (exact), otherwise `a` unchanged: .npy has no
/// bf16.
HostArray widenForNpy(const HostArray &a);

/// `a` as bf16 (rounded to nearest even) when it is f32 and `dtype` is bf16,
/// otherwise `a` unchanged: a bf16 input comes as an f32 .npy file.
HostArray narrowFromNpy(const HostArray &a, DType dtype);

} // namespace stride

#endif // STRIDE_TOOLS_STRIDE_RUN_COMPARE_H
