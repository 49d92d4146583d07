//===- EmuCollective.h - nccl.all_reduce for stride-emu -------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// For tests only: the plan's nccl.all_reduce steps among a group of
// stride-emu processes, one per rank, that meet in a directory
// (STRIDE_EMU_GROUP; the rank and the group's size from RANK and
// WORLD_SIZE, as torchrun sets them). Each rank writes its input of its
// k-th collective to DIR/k.rank<r> (a temporary file renamed into place),
// waits for every rank's, and combines them in rank order in double,
// rounding once, as the reference interpreter's simulated group does.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_EMU_EMUCOLLECTIVE_H
#define STRIDE_TEST_EMU_EMUCOLLECTIVE_H

#include "EmuElements.h"
#include "stride/Module/Module.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace stride::emu {

/// This process's place in the group and the collectives it ran so far.
struct EmuGroup {
  std::string dir;
  int rank = 0;
  int ranks = 1;
  int calls = 0;

  /// From the environment; an empty `dir` when STRIDE_EMU_GROUP is unset.
  static EmuGroup fromEnvironment() {
    EmuGroup g;
    if (const char *dir = std::getenv("STRIDE_EMU_GROUP"))
      g.dir = dir;
    if (const char *rank = std::getenv("RANK"))
      g.rank = std::atoi(rank);
    if (const char *ranks = std::getenv("WORLD_SIZE"))
      g.ranks = std::atoi(ranks);
    return g;
  }

  std::string fileOf(int call, int rank) const {
    return dir + "/" + std::to_string(call) + ".rank" + std::to_string(rank);
  }

  /// Publishes this rank's bytes of collective `call`.
  bool publish(int call, const uint8_t *data, size_t bytes) const {
    std::string path = fileOf(call, rank), temporary = path + ".tmp";
    {
      std::ofstream out(temporary, std::ios::binary);
      out.write(reinterpret_cast<const char *>(data), std::streamsize(bytes));
      if (!out)
        return false;
    }
    return std::rename(temporary.c_str(), path.c_str()) == 0;
  }

  /// Rank `from`'s bytes of collective `call`, waited for up to a minute;
  /// empty when they did not come.
  std::vector<uint8_t> receive(int call, int from, size_t bytes) const {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream in(fileOf(call, from), std::ios::binary);
      if (in) {
        std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
        if (data.size() == bytes)
          return data;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return {};
  }
};

/// Combines `a` and `b` as `reduction` does (avg sums; the caller divides).
inline double combine(const std::string &reduction, double a, double b) {
  if (reduction == "max")
    return std::max(a, b);
  if (reduction == "min")
    return std::min(a, b);
  return a + b;
}

/// One nccl.all_reduce step; "" or what it cannot emulate.
inline std::string runAllReduce(const LibraryCallStep &call,
                                const std::vector<uint8_t *> &buffers,
                                EmuGroup &group) {
  DescriptorFields fields(call.descriptor);
  std::map<std::string, int64_t> &ints = fields.ints;
  std::map<std::string, std::string> &text = fields.text;
  const Elements elements{text["dtype"]};
  if (!elements.known())
    return "nccl.all_reduce on " + text["dtype"] + " is not emulated";
  if (group.dir.empty() || group.ranks != ints["world_size"])
    return "nccl.all_reduce of " + std::to_string(ints["world_size"]) +
           " ranks needs STRIDE_EMU_GROUP, RANK and WORLD_SIZE for a group "
           "of as many stride-emu processes";
  int64_t count = ints["count"];
  const uint8_t *input = buffers[call.buffers[0]] + ints["input_offset"];
  size_t bytes = size_t(count) * (elements.dtype == "f64"   ? 8
                                  : elements.dtype == "f32" ? 4
                                                            : 2);
  int collective = group.calls++;
  if (!group.publish(collective, input, bytes))
    return "cannot write " + group.fileOf(collective, group.rank);
  std::vector<std::vector<uint8_t>> contributions;
  for (int r = 0; r < group.ranks; ++r) {
    contributions.push_back(group.receive(collective, r, bytes));
    if (contributions.back().size() != bytes)
      return "rank " + std::to_string(r) + "'s input of collective " +
             std::to_string(collective) + " did not come";
  }
  std::string reduction = text["reduction"];
  for (int64_t i = 0; i < count; ++i) {
    double v = elements.load(contributions[0].data(), i);
    for (int r = 1; r < group.ranks; ++r)
      v = combine(reduction, v, elements.load(contributions[r].data(), i));
    if (reduction == "avg")
      v /= group.ranks;
    elements.store(buffers[call.buffers[1]], i, elements.round(v));
  }
  return "";
}

} // namespace stride::emu

#endif // STRIDE_TEST_EMU_EMUCOLLECTIVE_H
