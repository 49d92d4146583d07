//===- stride-run.cpp - Run a module on the GPU, or a graph on the CPU ----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// `stride-run module.stridemod --input ... --output-dir ...` runs a compiled
// module on the GPU (RunModule.cpp). The reference mode, a graph file on the
// CPU interpreter with the same interface, is built on another branch; this
// main dispatches on the file given.
//
//===----------------------------------------------------------------------===//

#include "RunModule.h"

#include <cstring>
#include <iostream>
#include <string>

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() > 10 && arg.compare(arg.size() - 10, 10, ".stridemod") == 0)
      return stride::runModuleMain(argc, argv);
  }
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::cout << stride::runModuleUsage("stride-run");
      return 0;
    }
  std::cerr << "stride-run: error: give a compiled module (a .stridemod file, "
               "see stridec); running a graph file on the reference "
               "interpreter is not part of this build\n"
            << stride::runModuleUsage("stride-run");
  return 1;
}
