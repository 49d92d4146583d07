//===- Result.h - Errors as values, without LLVM --------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A small value-or-error type for the parts of Stride that must not depend on
// LLVM (the runtime, the module format, `.npy` I/O). Library code returns
// these and never prints or exits; tools decide what to do with the message.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_SUPPORT_RESULT_H
#define STRIDE_SUPPORT_RESULT_H

#include <cassert>
#include <cerrno>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace stride {

/// What kind of failure an Error is, for a program to branch on (retry
/// elsewhere, free memory, recreate the context, report a bug). Set where the
/// failure happens. The values are the C API's `stride_status` values
/// (include/stride-c/Stride.h), which maps them one to one; 2 is the C API's
/// STRIDE_COMPILE_FAILED (the compiler reports through diagnostics, not
/// Errors). python-free-docs/errors.md lists which failures carry which code.
enum class ErrorCode : int {
  /// The caller passed something wrong: arrays that do not match the
  /// signature, a pointer count, an option value, a malformed `.npy` file.
  InvalidArgument = 1,
  /// Bytes that are not a valid `.stridemod` module (corrupt, truncated,
  /// inconsistent).
  InvalidModule = 3,
  /// What running needs is not on this machine: no CUDA driver (or one too
  /// old for this runtime), no CUDA device, no NVRTC.
  Unavailable = 4,
  /// A bug in Stride or an unexpected failure of a library it calls.
  Internal = 5,
  /// A file, a device ordinal or a kernel symbol that does not exist.
  NotFound = 6,
  /// Device memory is exhausted, or an allocator's limit is reached.
  ResourceExhausted = 7,
  /// The module and the device or driver do not fit together: another
  /// architecture, another format version, PTX newer than the driver, more
  /// shared memory than the device has.
  Incompatible = 8,
  /// A kernel faulted (an illegal address, a failed run-time check): the
  /// CUDA context is unusable and the process must create a new one.
  DeviceFault = 9,
};

/// A failure: its kind, and a message meant for a person: complete sentence
/// fragments such as "x.npy: truncated data: expected 4096 bytes, found 100".
struct Error {
  ErrorCode code;
  std::string message;
};

/// Either a T or an Error. Test with `if (!r)`, read with `*r` / `r->`,
/// and get the failure with `r.error().code` and `r.error().message`.
template <typename T> class Result {
public:
  Result(T value) : storage(std::move(value)) {}
  Result(Error error) : storage(std::move(error)) {}

  explicit operator bool() const { return storage.index() == 0; }
  T &operator*() { return std::get<0>(storage); }
  const T &operator*() const { return std::get<0>(storage); }
  T *operator->() { return &std::get<0>(storage); }
  const T *operator->() const { return &std::get<0>(storage); }
  const Error &error() const { return std::get<1>(storage); }

private:
  std::variant<T, Error> storage;
};

/// Success, or an Error.
class Status {
public:
  Status() = default;
  Status(Error error) : err(std::move(error)) {}
  static Status ok() { return Status(); }

  explicit operator bool() const { return !err.has_value(); }
  const Error &error() const { return *err; }

private:
  std::optional<Error> err;
};

inline Error makeError(ErrorCode code, std::string message) {
  return Error{code, std::move(message)};
}

/// The code of a failed file operation's errno: NotFound for a missing file
/// or folder, ResourceExhausted for a full disk, InvalidArgument otherwise
/// (permissions, a folder where a file was expected).
inline ErrorCode fileErrorCode(int errnoValue) {
  switch (errnoValue) {
  case ENOENT:
  case ENOTDIR: return ErrorCode::NotFound;
  case ENOSPC:
  case EDQUOT: return ErrorCode::ResourceExhausted;
  default: return ErrorCode::InvalidArgument;
  }
}

/// `error` with `prefix` in front of its message, e.g. the module's name.
inline Error prefixError(const std::string &prefix, Error error) {
  error.message = prefix + error.message;
  return error;
}

inline const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::InvalidArgument: return "invalid argument";
  case ErrorCode::InvalidModule: return "invalid module";
  case ErrorCode::Unavailable: return "unavailable";
  case ErrorCode::Internal: return "internal";
  case ErrorCode::NotFound: return "not found";
  case ErrorCode::ResourceExhausted: return "resource exhausted";
  case ErrorCode::Incompatible: return "incompatible";
  case ErrorCode::DeviceFault: return "device fault";
  }
  return "unknown";
}

} // namespace stride

#endif // STRIDE_SUPPORT_RESULT_H
