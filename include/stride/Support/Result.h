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
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace stride {

/// An error message meant for a person: complete sentence fragments such as
/// "x.npy: truncated data: expected 4096 bytes, found 100".
struct Error {
  std::string message;
};

/// Either a T or an Error. Test with `if (!r)`, read with `*r` / `r->`,
/// and get the message with `r.error().message`.
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

inline Error makeError(std::string message) { return Error{std::move(message)}; }

} // namespace stride

#endif // STRIDE_SUPPORT_RESULT_H
