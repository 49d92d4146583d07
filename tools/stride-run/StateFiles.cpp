//===- StateFiles.cpp - A module's states as .npy files -------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "StateFiles.h"

#include "Compare.h"

#include "stride/Support/Npy.h"

#include <filesystem>

namespace stride {

Result<StateValues> readStateFiles(const ModuleDesc &module,
                                   const std::string &dir) {
  if (!std::filesystem::is_directory(dir))
    return makeError(ErrorCode::NotFound,
                     dir + ": no such directory of state files (--state-in "
                           "DIR takes the folder that --state-out wrote)");
  StateValues values;
  for (const StateDesc &state : module.states) {
    const TensorSignature &t = state.tensor;
    std::string path = (std::filesystem::path(dir) / (t.name + ".npy")).string();
    if (!std::filesystem::exists(path))
      return makeError(ErrorCode::NotFound,
                       path + ": no file for state '" + t.name +
                           "' (--state-in needs one per state of the "
                           "module; nothing was written)");
    Result<HostArray> array = readInputNpy(path, t.dtype, t.shape, t.name);
    if (!array)
      return makeError(array.error().code,
                       "state '" + t.name + "': " + array.error().message +
                           " (nothing was written)");
    values.emplace_back(t.name, std::move(*array));
  }
  if (auto packed = packStates(module, values); !packed)
    return packed.error();
  return values;
}

Status writeStateFiles(const StateValues &values, const std::string &dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::vector<std::pair<std::string, std::string>> written;
  for (const auto &[name, array] : values) {
    std::string path = (std::filesystem::path(dir) / (name + ".npy")).string();
    std::string temporary = path + ".partial";
    if (Status s = writeNpyFile(temporary, widenForNpy(array)); !s) {
      for (const auto &[from, to] : written)
        std::filesystem::remove(from, ec);
      std::filesystem::remove(temporary, ec);
      return s;
    }
    written.emplace_back(temporary, path);
  }
  for (const auto &[from, to] : written) {
    std::filesystem::rename(from, to, ec);
    if (ec)
      return makeError(ErrorCode::InvalidArgument,
                       to + ": cannot write the state file: " + ec.message());
  }
  return Status::ok();
}

} // namespace stride
