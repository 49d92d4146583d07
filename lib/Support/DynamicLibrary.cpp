//===- DynamicLibrary.cpp - Vendor libraries opened at run time -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Support/DynamicLibrary.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>

namespace stride {

std::vector<std::string> cudaLibraryCandidates(const char *environmentVariable,
                                               const char *soname) {
  if (const char *path = std::getenv(environmentVariable); path && *path)
    return {path};
  return {soname, std::string("/usr/local/cuda/lib64/") + soname,
          std::string("/usr/local/cuda/targets/x86_64-linux/lib/") + soname};
}

namespace {

/// The flags an /etc/ld.so.cache entry carries for a library this process
/// can load (glibc's _dl_cache_check_flags): ELF libc6 plus the ABI's bits.
bool cacheFlagsMatch(int32_t flags) {
  constexpr int32_t kElfLibc6 = 0x0003;
#if defined(__x86_64__)
  return flags == (kElfLibc6 | 0x0300);
#elif defined(__aarch64__)
  return flags == (kElfLibc6 | 0x0a00);
#else
  return (flags & 0xff) == kElfLibc6;
#endif
}

template <typename T> T readField(std::string_view bytes, size_t offset) {
  T value{};
  if (offset + sizeof(T) <= bytes.size())
    std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

/// The path /etc/ld.so.cache gives `soname`: glibc's format 1.1 (which
/// follows the old format's table in caches that still hold both), a
/// 48-byte header, then 24-byte entries {flags, key, value, osversion,
/// hwcap} whose strings are offsets from the header. Entries for
/// glibc-hwcaps subdirectories (hwcap != 0) are skipped.
std::optional<std::string> lookUpLdCache(const std::string &soname) {
  std::ifstream in("/etc/ld.so.cache", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  constexpr std::string_view kMagic = "glibc-ld.so.cache1.1";
  size_t header = bytes.find(kMagic);
  if (header == std::string::npos)
    return std::nullopt;
  std::string_view cache = std::string_view(bytes).substr(header);
  auto string = [&](uint32_t offset) -> std::string_view {
    if (offset >= cache.size())
      return {};
    return cache.data() + offset; // NUL-terminated within the cache
  };
  uint32_t count = readField<uint32_t>(cache, 20);
  constexpr size_t kHeaderBytes = 48, kEntryBytes = 24;
  for (uint32_t i = 0; i < count; ++i) {
    size_t entry = kHeaderBytes + i * kEntryBytes;
    if (entry + kEntryBytes > cache.size())
      break;
    if (!cacheFlagsMatch(readField<int32_t>(cache, entry)) ||
        readField<uint64_t>(cache, entry + 16) != 0 ||
        string(readField<uint32_t>(cache, entry + 4)) != soname)
      continue;
    std::string_view path = string(readField<uint32_t>(cache, entry + 8));
    if (!path.empty())
      return std::string(path);
  }
  return std::nullopt;
}

bool isFile(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

/// Where the loader finds a bare soname (see findLibraryFile).
std::optional<std::string> searchSoname(const std::string &soname) {
  if (const char *paths = std::getenv("LD_LIBRARY_PATH"); paths && *paths) {
    std::string_view rest = paths;
    for (bool more = true; more;) {
      size_t colon = rest.find(':');
      more = colon != std::string_view::npos;
      std::string dir(rest.substr(0, colon));
      // An empty entry means the current directory.
      if (std::string path = (dir.empty() ? "." : dir) + "/" + soname;
          isFile(path))
        return path;
      if (more)
        rest.remove_prefix(colon + 1);
    }
  }
  if (std::optional<std::string> cached = lookUpLdCache(soname))
    if (isFile(*cached))
      return cached;
  for (const char *dir :
       {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
        "/usr/lib64", "/lib", "/usr/lib"})
    if (std::string path = std::string(dir) + "/" + soname; isFile(path))
      return path;
  return std::nullopt;
}

} // namespace

std::optional<std::string>
findLibraryFile(const std::vector<std::string> &candidates) {
  for (const std::string &candidate : candidates) {
    std::optional<std::string> file =
        candidate.find('/') != std::string::npos
            ? (isFile(candidate) ? std::optional<std::string>(candidate)
                                 : std::nullopt)
            : searchSoname(candidate);
    if (!file)
      continue;
    if (char *resolved = ::realpath(file->c_str(), nullptr)) {
      file = resolved;
      std::free(resolved);
    }
    return file;
  }
  return std::nullopt;
}

std::optional<OpenedLibrary>
openFirstLibrary(const std::vector<std::string> &candidates,
                 std::string &failures) {
  for (const std::string &candidate : candidates) {
    if (void *handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL))
      return OpenedLibrary{handle, candidate};
    const char *text = dlerror();
    failures += (failures.empty() ? "" : "; ") +
                std::string(text ? text : candidate + ": not found");
  }
  return std::nullopt;
}

} // namespace stride
