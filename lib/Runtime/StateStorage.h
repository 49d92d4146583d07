//===- StateStorage.h - The device storage of a module's states -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Runtime. The states of an invocation (python-free-docs/state.md)
// live in a StateStorage that the invocation holds through a shared_ptr;
// invocations created with InvocationOptions::shareStatesWith hold the same
// one, so a prefill and a decode module read and write one KV cache, and the
// storage lives as long as the last invocation that holds it.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_RUNTIME_STATESTORAGE_H
#define STRIDE_LIB_RUNTIME_STATESTORAGE_H

#include "stride/Runtime/Runtime.h"

#include <utility>

namespace stride {

/// Device memory of an Allocator, released on destruction.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(Allocator *allocator, uint64_t address, uint64_t bytes)
      : allocator(allocator), address_(address), bytes(bytes) {}
  DeviceBuffer(DeviceBuffer &&other) noexcept { *this = std::move(other); }
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept {
    std::swap(allocator, other.allocator);
    std::swap(address_, other.address_);
    std::swap(bytes, other.bytes);
    return *this;
  }
  ~DeviceBuffer() {
    if (allocator)
      allocator->release(address_, bytes);
  }

  bool allocated() const { return allocator != nullptr; }
  uint64_t address() const { return address_; }

private:
  Allocator *allocator = nullptr;
  uint64_t address_ = 0;
  uint64_t bytes = 0;
};

/// One buffer per state of the module that made it (its owner), each
/// allocated on first use by whichever invocation needs it first.
struct StateStorage {
  /// Where the buffers come from; declared first so that it outlives them.
  std::shared_ptr<Allocator> allocator;
  /// The owner's name ("prefill.stridemod"), for messages.
  std::string owner;
  /// Per state, in the owner's order: its tensor, its buffer's size in
  /// bytes and the buffer (not allocated until first used).
  std::vector<TensorSignature> tensors;
  std::vector<int64_t> bytes;
  std::vector<DeviceBuffer> buffers;
};

/// A storage for the states of `desc` (the module `name`), nothing allocated.
std::shared_ptr<StateStorage>
makeStateStorage(const ModuleDesc &desc, const std::string &name,
                 std::shared_ptr<Allocator> allocator);

/// Per state of `desc` (the module `name`), the index of its buffer in
/// `storage`. InvalidArgument naming the first difference unless `desc`
/// declares exactly the storage's states: the same names, dtypes, shapes
/// and layouts (sameAddressing) and buffers of the same size, in any order.
Result<std::vector<size_t>> matchStates(const StateStorage &storage,
                                        const ModuleDesc &desc,
                                        const std::string &name);

} // namespace stride

#endif // STRIDE_LIB_RUNTIME_STATESTORAGE_H
