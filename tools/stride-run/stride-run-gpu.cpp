//===- stride-run-gpu.cpp - Run a compiled module on the GPU --------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-run's GPU mode alone, linked against the runtime and nothing of
// MLIR or LLVM (and libstdc++ statically): the binary scripts/gpu-prepare.sh
// ships to GPU machines, where no compiler is installed.
//
//===----------------------------------------------------------------------===//

#include "RunModule.h"

int main(int argc, char **argv) { return stride::runModuleMain(argc, argv); }
