//===- TestRoutines.cpp - A library of registry routines for tests --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// For tests only: libstride-test-routines.so.1, the library the runtime's
// registry names for its test routines (lib/Runtime/LibraryRegistry.cpp).
// FakeCudaTest points STRIDE_LIBRARY_PATH at its folder. With the fake CUDA
// driver, device addresses are host addresses, so the routine does its work
// on the host at once:
//
//   stride_test_record  buffers[1][i] = buffers[0][i] + add for the first
//                       `bytes` bytes (descriptor fields "bytes" and "add"),
//                       and records the call: stride_test_record_last()
//                       describes the latest one ("buffers=2 bytes=32
//                       add=2"), stride_test_record_calls() counts them.
//
// It defines no stride_test_absent, the symbol of the registry's
// "test.absent" routine.
//
//===----------------------------------------------------------------------===//

#include "stride/Runtime/LibraryRoutine.h"

#include <cstring>
#include <string>

namespace {

int calls = 0;
std::string last;

/// The first integer of the field named `name`, or 0.
int64_t field(const StrideLibraryCall *call, const char *name) {
  for (size_t i = 0; i < call->numFields; ++i)
    if (std::strcmp(call->fields[i].name, name) == 0 &&
        call->fields[i].numInts > 0)
      return call->fields[i].ints[0];
  return 0;
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) int
stride_test_record(const StrideLibraryCall *call) {
  ++calls;
  int64_t bytes = field(call, "bytes"), add = field(call, "add");
  last = "buffers=" + std::to_string(call->numBuffers) +
         " bytes=" + std::to_string(bytes) + " add=" + std::to_string(add);
  if (call->numBuffers != 2)
    return 1; // CUDA_ERROR_INVALID_VALUE
  const auto *source = reinterpret_cast<const uint8_t *>(call->buffers[0]);
  auto *target = reinterpret_cast<uint8_t *>(call->buffers[1]);
  for (int64_t i = 0; i < bytes; ++i)
    target[i] = uint8_t(source[i] + add);
  return 0;
}

__attribute__((visibility("default"))) int stride_test_record_calls() {
  return calls;
}

__attribute__((visibility("default"))) const char *stride_test_record_last() {
  return last.c_str();
}

} // extern "C"
