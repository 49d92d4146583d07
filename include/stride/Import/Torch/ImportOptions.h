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

#include <cstdint>

namespace stride::torch {

struct ImportOptions {
  /// Parameters, buffers and constants become graph inputs named after them
  /// (one module serves many checkpoints) instead of module constants.
  bool weightsAsInputs = false;
  /// The number of ranks of a graph's collectives (PyTorch's
  /// _c10d_functional.all_reduce records its group's name, not its size);
  /// 0: unknown (an all_reduce is refused).
  int64_t worldSize = 0;
};

} // namespace stride::torch

#endif // STRIDE_IMPORT_TORCH_IMPORTOPTIONS_H
