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
#include <optional>
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
/// saying so). Integers must be equal; a float element matches when it is
/// equal, when |actual - expected| <= atol, or when its relative error (the
/// difference over the larger of |expected| and the output's mean
/// magnitude) is at most rtol > 0. NaN matches only NaN, an infinity only
/// itself. atol is for outputs whose every element is far below their
/// summands, where rounding is all there is (a sum of deviations from a
/// mean: 0 against 7e-9 is within f32's error but a relative error of 1).
Comparison compareArrays(const HostArray &actual, const HostArray &expected,
                         double rtol, double atol = 0);

/// The line `--expect` prints for output `name`: "out: match (max relative
/// error 0)" or "out: MISMATCH (max relative error 0.5), 3 elements differ;
/// first: element [1]: got 1, expected 2".
std::string describeComparison(const std::string &name, const Comparison &c);

/// `a` as f32 when it is bf16 (exact), otherwise `a` unchanged.
HostArray widenForNpy(const HostArray &a);

/// `a` as bf16 (rounded to nearest, ties to even: bf16FromFloat) when it is
/// f32 and `dtype` is bf16, otherwise `a` unchanged: a bf16 input may come
/// as an f32 .npy file.
HostArray narrowFromNpy(const HostArray &a, DType dtype);

/// How bf16 outputs are written: as f32 (exact; the default) or as
/// ml_dtypes bfloat16 ('<V2', two bytes per element).
enum class Bf16Output { F32, Raw };

/// "f32" or "raw"; nullopt for anything else.
std::optional<Bf16Output> parseBf16Output(const std::string &text);

/// `a` as it is written to a .npy file: bf16 widened to f32 unless `bf16`
/// is Raw.
HostArray encodeForNpy(const HostArray &a, Bf16Output bf16);

/// Reads `path` as the value of input `name` of `dtype` and `shape`: an f32
/// file for a bf16 input is rounded to bf16, a '<V2' file (ml_dtypes
/// bfloat16) is taken as it is for a bf16 input and refused for any other
/// (checkArrayMatches). Without `shape`, any shape is taken (an input of
/// symbolic sizes, checked once its symbols are bound).
Result<HostArray> readInputNpy(const std::string &path, DType dtype,
                               const std::optional<std::vector<int64_t>> &shape,
                               const std::string &name);

} // namespace stride

#endif // STRIDE_TOOLS_STRIDE_RUN_COMPARE_H
