//===- NpyFuzzer.cpp - libFuzzer target: .npy bytes -> reader -------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Any byte string must be parsed or refused with an error, never crash or
// read out of bounds; what parses must serialize and parse back the same.
//
//===----------------------------------------------------------------------===//

#include "stride/Support/Npy.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  stride::Result<stride::HostArray> parsed =
      stride::parseNpy(data, size, "fuzz.npy");
  if (!parsed || !stride::checkNpyWritable(*parsed, "fuzz.npy"))
    return 0;
  std::vector<uint8_t> bytes = stride::serializeNpy(*parsed);
  stride::Result<stride::HostArray> again =
      stride::parseNpy(bytes.data(), bytes.size(), "again.npy");
  if (!again || again->shape != parsed->shape ||
      again->dtype != parsed->dtype || again->data != parsed->data)
    abort(); // A written file must read back identically.
  return 0;
}
