//===- NvrtcCache.cpp - Content-addressed cache of NVRTC output -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Target/CUDA/NvrtcCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdlib>

namespace stride {

namespace {

constexpr size_t kDigestBytes = 32;
/// Bumped when the entry format or the key's contents change.
constexpr llvm::StringLiteral kKeyFormat = "stride-nvrtc-cache-v2";

std::array<uint8_t, kDigestBytes> sha256(llvm::ArrayRef<uint8_t> bytes) {
  return llvm::SHA256::hash(bytes);
}

/// Every input of NVRTC that can change its output, each field
/// length-prefixed so that no two keys' texts can run together. NVRTC is
/// named by its file's identity (path, size, mtime), not its version, so
/// that computing the key never loads NVRTC.
std::string cacheKey(const std::string &source, const NvrtcOptions &options) {
  llvm::SHA256 hasher;
  auto add = [&](llvm::StringRef field) {
    uint64_t size = field.size();
    hasher.update(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(&size), sizeof(size)));
    hasher.update(field);
  };
  add(kKeyFormat);
  add(nvrtcLibraryIdentity());
  add(options.arch);
  add(options.emitPtx ? "ptx" : "cubin");
  add(options.cudaIncludeDir.empty() ? defaultCudaIncludeDir()
                                     : options.cudaIncludeDir);
  for (const std::string &option : options.extraOptions)
    add(option);
  // The program name appears in NVRTC's diagnostics and in PTX's header
  // comment, so it is part of what NVRTC produces.
  add(options.programName);
  add(source);
  std::array<uint8_t, kDigestBytes> digest = hasher.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

std::string entryPath(const std::string &dir, const std::string &key) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, key + ".bin");
  return std::string(path);
}

/// The code of a valid entry, or nothing (absent, unreadable or damaged).
std::optional<std::vector<uint8_t>> readEntry(const std::string &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file || (*file)->getBufferSize() < kDigestBytes)
    return std::nullopt;
  llvm::ArrayRef<uint8_t> bytes(
      reinterpret_cast<const uint8_t *>((*file)->getBufferStart()),
      (*file)->getBufferSize());
  llvm::ArrayRef<uint8_t> code = bytes.drop_front(kDigestBytes);
  if (!llvm::equal(bytes.take_front(kDigestBytes), sha256(code)))
    return std::nullopt;
  return std::vector<uint8_t>(code.begin(), code.end());
}

/// Writes an entry through a temporary file renamed into place. Failures
/// leave no entry behind and are otherwise ignored.
void writeEntry(const std::string &dir, const std::string &path,
                llvm::ArrayRef<uint8_t> code) {
  if (llvm::sys::fs::create_directories(dir))
    return;
  llvm::consumeError(llvm::writeToOutput(path, [&](llvm::raw_ostream &out) {
    std::array<uint8_t, kDigestBytes> digest = sha256(code);
    out.write(reinterpret_cast<const char *>(digest.data()), digest.size());
    out.write(reinterpret_cast<const char *>(code.data()), code.size());
    return llvm::Error::success();
  }));
}

} // namespace

std::string defaultNvrtcCacheDir() {
  llvm::SmallString<256> dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    dir = xdg;
  else if (const char *home = std::getenv("HOME"); home && *home)
    llvm::sys::path::append(dir, home, ".cache");
  else
    return {};
  llvm::sys::path::append(dir, "stride", "nvrtc");
  return std::string(dir);
}

Result<CodeImage> compileCudaSourceCached(const std::string &source,
                                          const NvrtcOptions &options,
                                          const std::string &cacheDir,
                                          CacheOutcome *outcome) {
  auto report = [&](CacheOutcome o) {
    if (outcome)
      *outcome = o;
  };
  CodeKind kind = options.emitPtx ? CodeKind::Ptx : CodeKind::Cubin;
  if (cacheDir.empty()) {
    report(CacheOutcome::Disabled);
    return compileCudaSource(source, options);
  }
  std::string path = entryPath(cacheDir, cacheKey(source, options));
  if (std::optional<std::vector<uint8_t>> code = readEntry(path)) {
    report(CacheOutcome::Hit);
    return CodeImage{kind, std::move(*code)};
  }
  report(CacheOutcome::Miss);
  Result<CodeImage> image = compileCudaSource(source, options);
  if (image)
    writeEntry(cacheDir, path, image->bytes);
  return image;
}

} // namespace stride
