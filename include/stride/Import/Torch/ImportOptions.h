//===- ImportOptions.h - How a .pt2 archive is imported -------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ (a public header of the embedding API, through Compiler.h).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_IMPORT_TORCH_IMPORTOPTIONS_H
#define STRIDE_IMPORT_TORCH_IMPORTOPTIONS_H

namespace stride::torch {

struct ImportOptions {
  /// Parameters, buffers and constants become graph inputs named after them
  /// (one module serves many checkpoints) instead of module constants.
  bool weightsAsInputs = false;
};

} // namespace stride::torch

#endif // STRIDE_IMPORT_TORCH_IMPORTOPTIONS_H
