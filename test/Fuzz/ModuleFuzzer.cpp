//===- ModuleFuzzer.cpp - libFuzzer target: module bytes -> loader --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Any byte string must be refused with an error or verify as a consistent
// module, never crash; a module that verifies must describe itself and
// serialize back to an equivalent module.
//
//===----------------------------------------------------------------------===//

#include "stride/Module/Module.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  stride::Result<stride::ModuleDesc> parsed =
      stride::parseModule(data, size, "fuzz.stridemod");
  if (!parsed)
    return 0;
  (void)stride::describeModule(*parsed);
  std::vector<uint8_t> bytes = stride::serializeModule(*parsed);
  stride::Result<stride::ModuleDesc> again =
      stride::parseModule(bytes.data(), bytes.size(), "again.stridemod");
  if (!again || stride::serializeModule(*again) != bytes)
    abort(); // A module that verified must round-trip.
  return 0;
}
