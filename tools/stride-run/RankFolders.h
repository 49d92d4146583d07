//===- RankFolders.h - Where each rank of a group reads and writes --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The one rule for a group's folders, shared by the launcher of real ranks
// (Launcher.cpp, stride-run-gpu --ranks) and the simulated group (Ranks.cpp,
// stride-run --simulate-ranks / --tensor-parallel): rank r writes its
// outputs and states under DIR/rank<r>/, and reads (--expect, --state-in)
// DIR/rank<r>/ where that folder exists (a split state, outputs of its
// own), else DIR, which every rank shares.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TOOLS_STRIDE_RUN_RANKFOLDERS_H
#define STRIDE_TOOLS_STRIDE_RUN_RANKFOLDERS_H

#include <cstddef>
#include <filesystem>
#include <string>

namespace stride::run {

/// DIR/rank<r>: where rank `rank` writes.
inline std::string rankFolder(const std::string &dir, size_t rank) {
  return (std::filesystem::path(dir) / ("rank" + std::to_string(rank)))
      .string();
}

/// What rank `rank` reads: DIR/rank<r> where it exists, else DIR.
inline std::string rankFolderOrShared(const std::string &dir, size_t rank) {
  std::string own = rankFolder(dir, rank);
  return std::filesystem::is_directory(own) ? own : dir;
}

} // namespace stride::run

#endif // STRIDE_TOOLS_STRIDE_RUN_RANKFOLDERS_H
