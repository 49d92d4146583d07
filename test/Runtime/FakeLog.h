//===- FakeLog.h - The test doubles' call logs ----------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// For the fake libraries only (FakeCuda.cpp, FakeNccl.cpp): a line appended
// to the file an environment variable names, opened and closed per line, so
// that two fakes may log into one file in the order of their calls.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_RUNTIME_FAKELOG_H
#define STRIDE_TEST_RUNTIME_FAKELOG_H

#include <cstdio>
#include <cstdlib>
#include <string>

namespace stride::fake {

inline void appendLogLine(const char *variable, const std::string &line) {
  const char *path = std::getenv(variable);
  if (!path)
    return;
  if (FILE *f = std::fopen(path, "a")) {
    std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }
}

} // namespace stride::fake

#endif // STRIDE_TEST_RUNTIME_FAKELOG_H
