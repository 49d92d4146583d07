//===- stride-gen.cpp - Print a random graph of the fusion generator ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-gen [--matmul] --seed N [-o FILE]: the graph generateRandomGraph(N)
// (or, with --matmul, generateMatmulGraph(N)) builds, for
// scripts/gpu-prepare.sh (random graphs checked on the GPU against the
// reference interpreter).
//
//===----------------------------------------------------------------------===//

#include "RandomGraph.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char **argv) {
  uint64_t seed = 0;
  bool matmul = false;
  std::string output;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--seed" && i + 1 < argc)
      seed = std::strtoull(argv[++i], nullptr, 10);
    else if (arg == "--matmul")
      matmul = true;
    else if (arg == "-o" && i + 1 < argc)
      output = argv[++i];
    else {
      std::cerr << "usage: stride-gen [--matmul] --seed N [-o FILE.mlir]\n"
                   "  --matmul  a graph of one matmul (any dtype and operand "
                   "layout) instead of a fusion graph\n";
      return 1;
    }
  }
  std::string text = matmul ? stride::test::generateMatmulGraph(seed)
                            : stride::test::generateRandomGraph(seed).text;
  if (output.empty()) {
    std::cout << text;
    return 0;
  }
  std::ofstream file(output);
  file << text;
  if (!file) {
    std::cerr << "stride-gen: cannot write " << output << "\n";
    return 1;
  }
  return 0;
}
