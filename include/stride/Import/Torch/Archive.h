//===- Archive.h - Reading PyTorch's .pt2 archives ------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// `torch.export.save` (torch >= 2.8) writes a zip archive:
//
//   <root>/models/<model>.json                      the ExportedProgram (JSON)
//   <root>/data/weights/<model>_weights_config.json parameters and buffers
//   <root>/data/weights/weight_N                    their storages' raw bytes
//   <root>/data/constants/<model>_constants_config.json, .../tensor_N
//
// Pt2Archive opens one with libzip, checks the zip's consistency, finds the
// model and its configs, and reads whole entries (a whole read checks the
// entry's CRC). Every failure is a message meant for a person; it names the
// entry, and the caller names the archive.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_IMPORT_TORCH_ARCHIVE_H
#define STRIDE_IMPORT_TORCH_ARCHIVE_H

#include "stride/Support/Result.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct zip;

namespace stride::torch {

class Pt2Archive {
public:
  /// Opens the archive held in `bytes`.
  static Result<Pt2Archive> open(std::string bytes);
  /// Reads the file at `path`, then open().
  static Result<Pt2Archive> openFile(const std::string &path);

  Pt2Archive(Pt2Archive &&) noexcept;
  Pt2Archive &operator=(Pt2Archive &&) noexcept;
  ~Pt2Archive();

  /// "<root>/models/<model>.json".
  const std::string &modelEntry() const { return model; }
  /// The model's weights and constants configs, where the archive has them.
  const std::optional<std::string> &weightsConfigEntry() const {
    return weightsConfig;
  }
  const std::optional<std::string> &constantsConfigEntry() const {
    return constantsConfig;
  }
  /// "<root>/data/weights/" and "<root>/data/constants/".
  std::string weightsDir() const { return root + "data/weights/"; }
  std::string constantsDir() const { return root + "data/constants/"; }
  /// Every entry's name, in the archive's order.
  const std::vector<std::string> &entries() const { return names; }

  /// The whole entry `name`, its CRC checked.
  Result<std::string> read(const std::string &name) const;

private:
  Pt2Archive() = default;
  Status locateModel();

  std::unique_ptr<std::string> bytes;
  zip *archive = nullptr;
  std::vector<std::string> names;
  std::string root, model;
  std::optional<std::string> weightsConfig, constantsConfig;
};

/// A zip archive holding `entries` (name, bytes), stored uncompressed as
/// torch.export.save writes them; for tests and the fuzzer, which make
/// archives in memory.
std::string makeStoredZip(
    const std::vector<std::pair<std::string, std::string>> &entries);

} // namespace stride::torch

#endif // STRIDE_IMPORT_TORCH_ARCHIVE_H
