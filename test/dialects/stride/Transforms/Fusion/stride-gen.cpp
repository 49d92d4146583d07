//===- stride-gen.cpp - Print a random graph of the fusion generator ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// stride-gen [--matmul | --attention | --convolution | --wide] --seed N
// [-o FILE]: the graph generateRandomGraph(N) (or, with --matmul,
// generateMatmulGraph(N); with --attention, generateAttentionGraph(N);
// with --convolution, generateConvolutionGraph(N); with --wide,
// generateRandomGraph with RandomGraphOptions::wide) builds, for
// scripts/gpu-prepare.sh (random graphs checked on the GPU against the
// reference interpreter), scripts/emu-random.sh and the lit tests that
// replay its seeds on the emulator (test/Emu/*-random.test).
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
  bool matmul = false, attention = false, convolution = false;
  stride::test::RandomGraphOptions options;
  std::string output;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--seed" && i + 1 < argc)
      seed = std::strtoull(argv[++i], nullptr, 10);
    else if (arg == "--matmul")
      matmul = true;
    else if (arg == "--attention")
      attention = true;
    else if (arg == "--convolution")
      convolution = true;
    else if (arg == "--wide")
      options.wide = true;
    else if (arg == "-o" && i + 1 < argc)
      output = argv[++i];
    else {
      std::cerr << "usage: stride-gen [--matmul | --attention | "
                   "--convolution | --wide] --seed N [-o FILE.mlir]\n"
                   "  --matmul     a graph of one matmul (any dtype and "
                   "operand layout) instead of a fusion graph\n"
                   "  --attention  a graph of one attention op, at times "
                   "with its backward (any dtype, grouped-query heads, head "
                   "views, masks, causal)\n"
                   "  --convolution  a graph of one convolution (1-D to 3-D, "
                   "grouped, transposed; any dtype and input layout) and "
                   "the per-channel ops, residual add and ReLU after it\n"
                   "  --wide       a fusion graph whose values have one long "
                   "dim (8 to 70,001 elements) for the backend's "
                   "size-dependent kernel forms\n";
      return 1;
    }
  }
  std::string text =
      matmul      ? stride::test::generateMatmulGraph(seed)
      : attention ? stride::test::generateAttentionGraph(seed)
      : convolution ? stride::test::generateConvolutionGraph(seed)
                  : stride::test::generateRandomGraph(seed, options).text;
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
