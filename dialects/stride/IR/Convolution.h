//===- Convolution.h - The shape rules of a convolution ---------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// One home for a convolution's parameter and shape rules (PyTorch's
// aten.convolution): stride.convolution's verifier, the importer and the
// decomposition all call inferConvolutionShape.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECT_CONVOLUTION_H
#define STRIDE_DIALECT_CONVOLUTION_H

#include "stride/Support/Layout.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace stride {

/// The shapes and parameters of one convolution (stride.convolution's
/// description says what each means).
struct ConvolutionGeometry {
  Dims input, weight;
  std::optional<Dims> bias;
  Dims stride, padding, dilation;
  /// Empty, or one entry per spatial dim (transposed only).
  Dims outputPadding;
  int64_t groups = 1;
  bool transposed = false;

  int64_t spatialRank() const { return int64_t(input.size()) - 2; }
  int64_t inChannels() const { return input[1]; }
  int64_t outChannels() const {
    return transposed ? weight[1] * groups : weight[0];
  }
  int64_t outputPaddingOf(int64_t d) const {
    return outputPadding.empty() ? 0 : outputPadding[d];
  }
};

/// Checks `g` against PyTorch's rules (ranks, one parameter per spatial
/// dim, strides and dilations of 1 or more, paddings of 0 or more, groups
/// that divide the channels, the weight's and bias's shapes, results of
/// at least one element per dim) and returns the result's shape; on a
/// violation, reports it through `emitError` (with notes) and fails.
mlir::FailureOr<Dims> inferConvolutionShape(
    const ConvolutionGeometry &g,
    llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

} // namespace stride

#endif // STRIDE_DIALECT_CONVOLUTION_H
