//===- Archive.cpp - Reading PyTorch's .pt2 archives ----------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Import/Torch/Archive.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <zip.h>

namespace stride::torch {

namespace {

/// The largest entry read: more than any model this version compiles, and a
/// bound on what a hostile archive can make the reader allocate.
constexpr uint64_t kMaxEntryBytes = uint64_t(1) << 34;

Error invalid(std::string message) {
  return makeError(ErrorCode::InvalidArgument, std::move(message));
}

std::string zipErrorText(zip_error_t *error) {
  return zip_error_strerror(error);
}

/// The legacy layout (torch 2.5-2.7): a pickled state dict beside
/// serialized_exported_program.json.
bool isLegacyEntry(llvm::StringRef name) {
  return name.ends_with("serialized_exported_program.json") ||
         name.ends_with("serialized_state_dict.pt") ||
         name.ends_with("serialized_state_dict.json");
}

} // namespace

std::string makeStoredZip(
    const std::vector<std::pair<std::string, std::string>> &entries) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t *buffer = zip_source_buffer_create(nullptr, 0, 0, &error);
  zip_source_keep(buffer);
  zip_t *archive = zip_open_from_source(buffer, ZIP_TRUNCATE, &error);
  for (const auto &[name, data] : entries) {
    zip_source_t *source =
        zip_source_buffer(archive, data.data(), data.size(), 0);
    zip_int64_t index = zip_file_add(archive, name.c_str(), source, 0);
    zip_set_file_compression(archive, index, ZIP_CM_STORE, 0);
  }
  zip_close(archive);
  std::string bytes;
  if (zip_source_open(buffer) == 0) {
    zip_source_seek(buffer, 0, SEEK_END);
    bytes.resize(zip_source_tell(buffer));
    zip_source_seek(buffer, 0, SEEK_SET);
    zip_source_read(buffer, bytes.data(), bytes.size());
    zip_source_close(buffer);
  }
  zip_source_free(buffer);
  zip_error_fini(&error);
  return bytes;
}

Pt2Archive::Pt2Archive(Pt2Archive &&other) noexcept { *this = std::move(other); }

Pt2Archive &Pt2Archive::operator=(Pt2Archive &&other) noexcept {
  if (this == &other)
    return *this;
  if (archive)
    zip_discard(archive);
  bytes = std::move(other.bytes);
  archive = other.archive;
  other.archive = nullptr;
  names = std::move(other.names);
  root = std::move(other.root);
  model = std::move(other.model);
  weightsConfig = std::move(other.weightsConfig);
  constantsConfig = std::move(other.constantsConfig);
  return *this;
}

Pt2Archive::~Pt2Archive() {
  if (archive)
    zip_discard(archive);
}

Result<Pt2Archive> Pt2Archive::openFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(fileErrorCode(buffer.getError().value()),
                     "cannot read the archive: " + buffer.getError().message());
  return open((*buffer)->getBuffer().str());
}

Result<Pt2Archive> Pt2Archive::open(std::string data) {
  if (data.empty())
    return invalid("not a readable zip archive (the file is empty); a .pt2 "
                   "file is a zip written by torch.export.save");
  Pt2Archive result;
  result.bytes = std::make_unique<std::string>(std::move(data));
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t *source = zip_source_buffer_create(
      result.bytes->data(), result.bytes->size(), /*freep=*/0, &error);
  if (!source) {
    std::string text = zipErrorText(&error);
    zip_error_fini(&error);
    return makeError(ErrorCode::Internal, "cannot read the archive: " + text);
  }
  result.archive = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (!result.archive) {
    std::string text = zipErrorText(&error);
    zip_error_fini(&error);
    zip_source_free(source);
    return invalid("not a readable zip archive (" + text +
                   "): truncated, corrupt, or not a .pt2 archive (a zip "
                   "written by torch.export.save)");
  }
  zip_error_fini(&error);
  zip_int64_t count = zip_get_num_entries(result.archive, 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    const char *name = zip_get_name(result.archive, i, ZIP_FL_ENC_RAW);
    result.names.push_back(name ? name : "");
  }
  if (Status located = result.locateModel(); !located)
    return located.error();
  return result;
}

Status Pt2Archive::locateModel() {
  std::vector<std::string> models;
  for (const std::string &name : names) {
    llvm::StringRef entry(name);
    if (isLegacyEntry(entry))
      return invalid("'" + name +
                     "' is the archive layout of torch 2.5-2.7 (a JSON graph "
                     "beside pickled weights), which Stride does not read; "
                     "re-save the program with torch >= 2.8 "
                     "(torch.export.save)");
    size_t at = entry.find("models/");
    if (at == llvm::StringRef::npos || !entry.ends_with(".json") ||
        (at != 0 && entry[at - 1] != '/') ||
        entry.substr(at + 7).contains('/'))
      continue;
    models.push_back(name);
  }
  if (models.empty())
    return invalid("no model in the archive: expected an entry "
                   "<root>/models/<model>.json, as torch.export.save (torch "
                   ">= 2.8) writes");
  if (models.size() > 1)
    return invalid("the archive holds " + std::to_string(models.size()) +
                   " models ('" + models[0] + "', '" + models[1] +
                   "', ...); Stride imports archives of one model");
  model = models[0];
  llvm::StringRef entry(model);
  size_t at = entry.rfind("models/");
  root = entry.substr(0, at).str();
  std::string stem = entry.substr(at + 7).drop_back(5).str();
  auto find = [&](const std::string &name) -> std::optional<std::string> {
    for (const std::string &n : names)
      if (n == name)
        return n;
    return std::nullopt;
  };
  weightsConfig = find(weightsDir() + stem + "_weights_config.json");
  constantsConfig = find(constantsDir() + stem + "_constants_config.json");
  return Status::ok();
}

Result<std::string> Pt2Archive::read(const std::string &name) const {
  zip_int64_t index = zip_name_locate(archive, name.c_str(), ZIP_FL_ENC_RAW);
  if (index < 0)
    return invalid("'" + name + "': no such entry in the archive");
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat_index(archive, index, 0, &stat) != 0 ||
      !(stat.valid & ZIP_STAT_SIZE))
    return invalid("'" + name + "': cannot read the entry's header (" +
                   std::string(zip_strerror(archive)) + ")");
  if (stat.size > kMaxEntryBytes)
    return invalid("'" + name + "': the entry claims " +
                   std::to_string(stat.size) + " bytes, more than the " +
                   std::to_string(kMaxEntryBytes) + " Stride reads");
  zip_file_t *file = zip_fopen_index(archive, index, 0);
  if (!file)
    return invalid("'" + name + "': cannot open the entry (" +
                   std::string(zip_strerror(archive)) + ")");
  std::string data;
  char chunk[1 << 16];
  while (true) {
    zip_int64_t n = zip_fread(file, chunk, sizeof(chunk));
    if (n < 0) {
      std::string text = zip_file_strerror(file);
      zip_fclose(file);
      return invalid("'" + name + "': corrupt entry (" + text + ")");
    }
    if (n == 0)
      break;
    data.append(chunk, n);
    if (data.size() > stat.size)
      break;
  }
  int closed = zip_fclose(file);
  if (closed != 0) {
    zip_error_t error;
    zip_error_init_with_code(&error, closed);
    std::string text = zipErrorText(&error);
    zip_error_fini(&error);
    return invalid("'" + name + "': corrupt entry (" + text + ")");
  }
  if (data.size() != stat.size)
    return invalid("'" + name + "': truncated entry: the header says " +
                   std::to_string(stat.size) + " bytes, the data has " +
                   std::to_string(data.size()));
  return data;
}

} // namespace stride::torch
