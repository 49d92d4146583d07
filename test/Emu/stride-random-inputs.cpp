//===- stride-random-inputs.cpp - Random .npy inputs for a module ---------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
//   stride-random-inputs MODULE.stridemod DIR [--seed N] [--int-range LO HI]
//
// Writes DIR/<name>.npy for every input of the module's signature: floats
// uniform in [-2, 2) (rounded to the element type), integers uniform in
// [LO, HI] (default [0, 9]), booleans fair coin flips. For tests.
//
//===----------------------------------------------------------------------===//

#include "stride/Module/Module.h"
#include "stride/Support/Npy.h"

#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>

using namespace stride;

int main(int argc, char **argv) {
  if (argc < 3) {
    std::cerr << "usage: stride-random-inputs MODULE.stridemod DIR [--seed N] "
                 "[--int-range LO HI]\n";
    return 1;
  }
  uint64_t seed = 1;
  int64_t lo = 0, hi = 9;
  for (int i = 3; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--int-range") && i + 2 < argc) {
      lo = std::strtoll(argv[++i], nullptr, 10);
      hi = std::strtoll(argv[++i], nullptr, 10);
    } else {
      std::cerr << "stride-random-inputs: error: unknown argument " << argv[i]
                << "\n";
      return 1;
    }
  }
  Result<ModuleDesc> module = readModuleFile(argv[1]);
  if (!module) {
    std::cerr << "stride-random-inputs: error: " << module.error().message
              << "\n";
    return 1;
  }
  std::filesystem::create_directories(argv[2]);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> real(-2.0, 2.0);
  std::uniform_int_distribution<int64_t> integer(lo, hi);
  for (const TensorSignature &t : module->signature.inputs) {
    HostArray a;
    a.dtype = t.dtype == DType::BF16 ? DType::F32 : t.dtype;
    a.shape = t.shape;
    int64_t n = a.numElements();
    size_t size = dtypeSize(a.dtype);
    a.data.resize(n * size);
    for (int64_t i = 0; i < n; ++i) {
      uint8_t *p = a.data.data() + i * size;
      switch (a.dtype) {
      case DType::F16: {
        // Quantize to a multiple of 2^-10 in [-2, 2): exact in f16.
        double v = std::floor(real(rng) * 1024) / 1024;
        int sign = v < 0, e;
        double m = std::frexp(std::fabs(v), &e);
        uint16_t bits = 0;
        if (v != 0) {
          int exponent = e - 1 + 15;
          bits = uint16_t((sign << 15) | (exponent << 10) |
                          (int(std::ldexp(m, 11)) - 1024));
        }
        std::memcpy(p, &bits, 2);
        break;
      }
      case DType::F32: {
        float v = static_cast<float>(real(rng));
        std::memcpy(p, &v, 4);
        break;
      }
      case DType::F64: {
        double v = real(rng);
        std::memcpy(p, &v, 8);
        break;
      }
      case DType::I1: *p = rng() & 1; break;
      case DType::I8: { int8_t v = int8_t(integer(rng)); std::memcpy(p, &v, 1); break; }
      case DType::I32: { int32_t v = int32_t(integer(rng)); std::memcpy(p, &v, 4); break; }
      case DType::I64: { int64_t v = integer(rng); std::memcpy(p, &v, 8); break; }
      default: break;
      }
    }
    std::string path = (std::filesystem::path(argv[2]) / (t.name + ".npy")).string();
    if (Status s = writeNpyFile(path, a); !s) {
      std::cerr << "stride-random-inputs: error: " << s.error().message << "\n";
      return 1;
    }
  }
  return 0;
}
