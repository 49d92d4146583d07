//===- ModuleFile.cpp - Module files into memory, and out of it -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// readModuleFile maps the file read-only instead of reading it, so that the
// constants of a module of many gigabytes are views of the page cache, not
// a copy in the process's memory: the pages are read when the runtime
// uploads each constant, and the kernel may drop them again at any time
// (python-free-docs/module-format.md, "How the runtime reads a module").
// A file that cannot be mapped (a pipe, an empty file) is read instead.
//
// A mapped file that another process truncates while it is mapped would
// fault on the next read of a lost page, so writeModuleFile never rewrites
// a file in place: replaceFile writes a new file and renames it over the old
// one, as stridec does.
//
//===----------------------------------------------------------------------===//

#include "ModuleInternal.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace stride {

namespace {

Error fileError(const std::string &path, const std::string &what) {
  return Error{fileErrorCode(errno),
               path + ": cannot " + what + " the module file: " +
                   std::strerror(errno)};
}

/// Closes a file descriptor when it goes out of scope.
struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0)
      ::close(fd);
  }
};

/// Reads what is left of `fd` into memory.
Result<SharedBytes> readAll(int fd, const std::string &path) {
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return fileError(path, "read");
    if (n == 0)
      break;
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
  return SharedBytes(std::move(bytes));
}

/// A name for a temporary file beside `path`, unique in this process and
/// among processes.
std::string temporaryNameFor(const std::string &path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".tmp-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter++);
}

} // namespace

Status replaceFile(const std::string &path,
                   const std::function<bool(int fd)> &write) {
  std::string temporary = temporaryNameFor(path);
  FileDescriptor file{
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)};
  if (file.fd < 0)
    return fileError(path, "create");
  bool written = write(file.fd);
  int closed = ::close(file.fd);
  file.fd = -1;
  if (!written || closed != 0 || ::rename(temporary.c_str(), path.c_str()) != 0) {
    Error error = fileError(path, "write");
    ::unlink(temporary.c_str());
    return error;
  }
  return Status::ok();
}

bool writeAll(int fd, const uint8_t *data, uint64_t size) {
  while (size > 0) {
    // Linux writes at most 2^31 - 4096 bytes per call.
    ssize_t n = ::write(fd, data, std::min<uint64_t>(size, uint64_t(1) << 30));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    size -= uint64_t(n);
  }
  return true;
}

Result<SharedBytes> mapModuleFile(const std::string &path) {
  FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0)
    return fileError(path, "open");
  struct stat info;
  if (::fstat(file.fd, &info) != 0)
    return fileError(path, "read");
  if (!S_ISREG(info.st_mode) || info.st_size <= 0)
    return readAll(file.fd, path);
  auto size = static_cast<uint64_t>(info.st_size);
  void *address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (address == MAP_FAILED)
    return readAll(file.fd, path);
  std::shared_ptr<const void> mapping(address, [size](const void *p) {
    ::munmap(const_cast<void *>(p), size);
  });
  return SharedBytes(std::move(mapping), static_cast<const uint8_t *>(address),
                     size);
}

} // namespace stride
