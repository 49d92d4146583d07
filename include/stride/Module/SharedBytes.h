//===- SharedBytes.h - Immutable bytes, owned or a view of a file -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The storage of a constant or of a state's initial value in a ModuleDesc.
// Either the bytes are its own (the compiler's, or copied from a caller's
// buffer), or they are a view of a module file that readModuleFile mapped
// into memory and that the view keeps mapped: a module of 16 GB of weights
// is then read without a copy of them in host memory
// (python-free-docs/module-format.md, "How the runtime reads a module").
//
// Immutable; copies share the bytes. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_MODULE_SHAREDBYTES_H
#define STRIDE_MODULE_SHAREDBYTES_H

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <vector>

namespace stride {

class SharedBytes {
public:
  SharedBytes() = default;
  /// Takes the bytes over (implicit, so a ModuleDesc can be filled from a
  /// vector).
  SharedBytes(std::vector<uint8_t> bytes) {
    auto owned = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
    begin_ = owned->data();
    size_ = owned->size();
    owner = std::move(owned);
  }
  SharedBytes(std::initializer_list<uint8_t> bytes)
      : SharedBytes(std::vector<uint8_t>(bytes)) {}
  /// A view of `size` bytes at `data`, which `keepAlive` keeps valid.
  SharedBytes(std::shared_ptr<const void> keepAlive, const uint8_t *data,
              uint64_t size)
      : owner(std::move(keepAlive)), begin_(data), size_(size) {}

  const uint8_t *data() const { return begin_; }
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const uint8_t *begin() const { return begin_; }
  const uint8_t *end() const { return begin_ + size_; }
  uint8_t operator[](uint64_t i) const { return begin_[i]; }

  /// `size` bytes from `offset` (within these bytes), sharing them.
  SharedBytes slice(uint64_t offset, uint64_t size) const {
    return SharedBytes(owner, begin_ + offset, size);
  }
  /// A copy that owns its bytes.
  std::vector<uint8_t> toVector() const { return {begin(), end()}; }

  /// Equal contents.
  friend bool operator==(const SharedBytes &a, const SharedBytes &b) {
    return a.size_ == b.size_ &&
           (a.begin_ == b.begin_ || a.size_ == 0 ||
            std::memcmp(a.begin_, b.begin_, a.size_) == 0);
  }

private:
  std::shared_ptr<const void> owner;
  const uint8_t *begin_ = nullptr;
  uint64_t size_ = 0;
};

} // namespace stride

#endif // STRIDE_MODULE_SHAREDBYTES_H
