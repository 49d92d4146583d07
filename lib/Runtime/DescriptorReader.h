//===- DescriptorReader.h - Reading a library call's descriptor -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Runtime. What every built-in routine does with its step's
// descriptor when the executable loads: read each field it knows, refuse a
// missing, ill-typed or unknown one, and keep the first error, whose message
// is "<where>: descriptor <what is wrong>" (code InvalidModule). The routines
// that use it: `cublaslt.matmul` (CublasLtMatmul.cpp) and the cuDNN
// attention routines (CudnnSdpa.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_RUNTIME_DESCRIPTORREADER_H
#define STRIDE_LIB_RUNTIME_DESCRIPTORREADER_H

#include "LibraryRegistry.h"
#include "RuntimeImpl.h"

#include <optional>
#include <string>
#include <vector>

namespace stride {

/// Reads a step's descriptor fields, keeping the first error.
class DescriptorReader {
public:
  DescriptorReader(const LibraryCallContext &context,
                   std::vector<std::string> knownFields)
      : context(context), knownFields(std::move(knownFields)) {}

  /// Field `name`, which must be one integer.
  int64_t integer(const char *name) {
    const DescriptorField *f = field(name);
    if (f && (f->ints.size() != 1 || !f->text.empty()))
      fail("field " + quoted(name) + " must be one integer");
    return f && f->ints.size() == 1 ? f->ints[0] : 0;
  }

  /// Field `name`, which must be `count` integers (`what` names them);
  /// zeros if it is not.
  std::vector<int64_t> integers(const char *name, size_t count,
                                const char *what) {
    const DescriptorField *f = field(name);
    if (f && (f->ints.size() != count || !f->text.empty())) {
      fail("field " + quoted(name) + " has " +
           (f->text.empty() ? str(int64_t(f->ints.size())) + " integers"
                            : std::string("text")) +
           "; it must be " + str(int64_t(count)) + " integers (" + what +
           ")");
      return std::vector<int64_t>(count, 0);
    }
    return f ? f->ints : std::vector<int64_t>(count, 0);
  }

  /// The entry of `table` that the text field `name` names.
  template <typename Entry, size_t N>
  const Entry *choice(const char *name, const Entry (&table)[N]) {
    const DescriptorField *f = field(name);
    if (!f)
      return nullptr;
    std::string names;
    for (const Entry &e : table) {
      if (f->ints.empty() && f->text == e.name)
        return &e;
      names += std::string(names.empty() ? "" : ", ") + quoted(e.name);
    }
    fail("field " + quoted(name) + " is " + describeValue(*f) +
         "; expected one of " + names);
    return nullptr;
  }

  /// Whether the step's descriptor has field `name`.
  bool has(const char *name) const {
    for (const DescriptorField &f : context.call.descriptor)
      if (f.name == name)
        return true;
    return false;
  }

  /// Fails on a field that no rule reads.
  void refuseUnknownFields() {
    for (const DescriptorField &f : context.call.descriptor)
      if (!known(f.name))
        fail("has the unknown field " + quoted(f.name));
  }

  void fail(const std::string &what) {
    if (!error)
      error = makeError(ErrorCode::InvalidModule,
                        context.where + ": descriptor " + what);
  }

  const std::optional<Error> &firstError() const { return error; }

private:
  const DescriptorField *field(const char *name) {
    for (const DescriptorField &f : context.call.descriptor)
      if (f.name == name)
        return &f;
    fail("has no field " + quoted(name));
    return nullptr;
  }

  static std::string describeValue(const DescriptorField &f) {
    if (!f.ints.empty())
      return "integers, not text";
    return quoted(f.text);
  }

  bool known(const std::string &name) const {
    for (const std::string &n : knownFields)
      if (name == n)
        return true;
    return false;
  }

  const LibraryCallContext &context;
  std::vector<std::string> knownFields;
  std::optional<Error> error;
};

} // namespace stride

#endif // STRIDE_LIB_RUNTIME_DESCRIPTORREADER_H
