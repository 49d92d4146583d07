//===- ConvolutionCalls.h - Convolutions as cuDNN calls ---------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to dialects/plan/Transforms: the descriptor of the
// `cudnn.convolution` call that the plan makes of a convolution
// stride-convolution-library kept whole. The fields and the buffer order
// are the runtime's contract, specified in python-free-docs/convolution.md
// ("The cuDNN step").
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_PLAN_TRANSFORMS_CONVOLUTIONCALLS_H
#define STRIDE_DIALECTS_PLAN_TRANSFORMS_CONVOLUTIONCALLS_H

#include "AttentionCalls.h"

namespace stride::plan {

/// The tensors of `op`'s call in buffer order: a forward convolution reads
/// x (the input), w and the bias if it has one, and writes y (the result);
/// a transposed one is cuDNN's data gradient of the forward convolution
/// from its result to its input: it reads dy (the op's input) and w, and
/// writes dx (the op's result).
CallTensors convolutionTensors(ConvolutionOp op);

/// The `cudnn.convolution` descriptor of `op`; `allowTf32`: whether a
/// float convolution may use TF32 tensor cores.
mlir::DictionaryAttr convolutionDescriptor(ConvolutionOp op, bool allowTf32);

/// The tensors of a weight gradient's call (cuDNN's wgrad of the forward
/// convolution from the op's input by a weight of its result's shape) in
/// buffer order: it reads x (the input) and dy (the output's gradient) and
/// writes dw (the result).
CallTensors weightGradientTensors(ConvolutionWeightGradientOp op);

/// The `cudnn.convolution` descriptor of kind "wgrad" of `op`.
mlir::DictionaryAttr weightGradientDescriptor(ConvolutionWeightGradientOp op,
                                              bool allowTf32);

} // namespace stride::plan

#endif // STRIDE_DIALECTS_PLAN_TRANSFORMS_CONVOLUTIONCALLS_H
