//===- StateStorage.cpp - The device storage of a module's states ---------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "StateStorage.h"

#include "RuntimeImpl.h"
#include "stride/Support/Layout.h"

#include <algorithm>

namespace stride {

namespace {

/// The size of the buffer bound to state `state` (verifyModule binds each
/// state to exactly one buffer).
int64_t stateBufferBytes(const ModuleDesc &desc, size_t state) {
  for (const BufferDesc &b : desc.buffers)
    if (b.kind == BufferKind::State && size_t(b.index) == state)
      return b.sizeBytes;
  return 0;
}

Layout layoutOf(const TensorSignature &t) {
  return Layout{t.shape, t.strides, t.storageOffset};
}

/// The first difference between state `mine` of `desc` (the module
/// `name`) and the storage's state of the same name; empty when none.
std::string stateDifference(const StateStorage &storage, size_t slot,
                            const ModuleDesc &desc, size_t mine,
                            const std::string &name) {
  const TensorSignature &t = desc.states[mine].tensor;
  const TensorSignature &theirs = storage.tensors[slot];
  std::string state = "state " + quoted(t.name) + " is ";
  if (t.dtype != theirs.dtype || !sameAddressing(layoutOf(t), layoutOf(theirs)))
    return state + describeTensor(t) + " in " + name + " but " +
           describeTensor(theirs) + " in " + storage.owner;
  int64_t bytes = stateBufferBytes(desc, mine);
  if (bytes != storage.bytes[slot])
    return state + "a buffer of " + str(bytes) + " bytes in " + name +
           " but of " + str(storage.bytes[slot]) + " bytes in " + storage.owner;
  return "";
}

/// The first of the storage's states that `desc` does not declare.
std::string firstMissing(const StateStorage &storage, const ModuleDesc &desc) {
  for (const TensorSignature &t : storage.tensors)
    if (std::none_of(desc.states.begin(), desc.states.end(),
                     [&](const StateDesc &s) { return s.tensor.name == t.name; }))
      return t.name;
  return "";
}

} // namespace

std::shared_ptr<StateStorage>
makeStateStorage(const ModuleDesc &desc, const std::string &name,
                 std::shared_ptr<Allocator> allocator) {
  auto storage = std::make_shared<StateStorage>();
  storage->allocator = std::move(allocator);
  storage->owner = name;
  for (size_t i = 0; i < desc.states.size(); ++i) {
    storage->tensors.push_back(desc.states[i].tensor);
    storage->bytes.push_back(stateBufferBytes(desc, i));
  }
  storage->buffers.resize(desc.states.size());
  return storage;
}

Result<std::vector<size_t>> matchStates(const StateStorage &storage,
                                        const ModuleDesc &desc,
                                        const std::string &name) {
  auto refuse = [&](const std::string &difference) {
    return makeError(ErrorCode::InvalidArgument,
                     name + " cannot share the states of " + storage.owner +
                         ": " + difference +
                         "; invocations share states only when their modules "
                         "declare the same states (names, dtypes, shapes and "
                         "layouts), as the prefill and decode modules of one "
                         "model exported together do");
  };
  std::vector<size_t> slots;
  for (size_t i = 0; i < desc.states.size(); ++i) {
    const std::string &stateName = desc.states[i].tensor.name;
    auto found = std::find_if(
        storage.tensors.begin(), storage.tensors.end(),
        [&](const TensorSignature &t) { return t.name == stateName; });
    if (found == storage.tensors.end())
      return refuse("state " + quoted(stateName) + " of " + name +
                    " is not a state of " + storage.owner);
    size_t slot = size_t(found - storage.tensors.begin());
    std::string difference = stateDifference(storage, slot, desc, i, name);
    if (!difference.empty())
      return refuse(difference);
    slots.push_back(slot);
  }
  std::string missing = firstMissing(storage, desc);
  if (!missing.empty())
    return refuse("state " + quoted(missing) + " of " + storage.owner +
                  " is not a state of " + name);
  return slots;
}

} // namespace stride
