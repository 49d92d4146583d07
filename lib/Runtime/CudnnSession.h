//===- CudnnSession.h - What an invocation keeps for cuDNN ------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Runtime: the handle and plan cache that every cuDNN
// routine of an invocation shares (CudnnSdpa.cpp, CudnnConvolution.cpp),
// the workspace the convolution steps share, and the device memory of a
// step's workspace.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_RUNTIME_CUDNNSESSION_H
#define STRIDE_LIB_RUNTIME_CUDNNSESSION_H

#include "Cudnn.h"
#include "RuntimeImpl.h"

#include <map>
#include <memory>
#include <string>

namespace stride {

constexpr int64_t kCudnnWorkspaceAlignment = 256;
inline int64_t alignUp(int64_t bytes) {
  return (bytes + kCudnnWorkspaceAlignment - 1) / kCudnnWorkspaceAlignment *
         kCudnnWorkspaceAlignment;
}

/// Device memory from cuMemAlloc, freed with the object.
class DeviceMemory {
public:
  explicit DeviceMemory(const CudaDriver &cu) : cu(cu) {}
  ~DeviceMemory() {
    if (address)
      cu.cuMemFree(address);
  }
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;
  Status allocate(int64_t bytes) {
    if (bytes == 0)
      return Status::ok();
    if (CUresult r = cu.cuMemAlloc(&address, size_t(bytes)))
      return makeError(cudaErrorCode(r),
                       "allocating the " + str(bytes) +
                           " bytes of cuDNN's workspace: " + cu.errorText(r));
    return Status::ok();
  }
  CUdeviceptr at(int64_t offset) const { return address + uint64_t(offset); }
  void *pointer(int64_t offset) const {
    return reinterpret_cast<void *>(at(offset));
  }

private:
  const CudaDriver &cu;
  CUdeviceptr address = 0;
};

/// What an invocation keeps for cuDNN: its handle, and the plans its steps
/// built, by each routine's plan key (a text that starts with the
/// routine's name, so that routines never share a key): building one
/// (engine heuristics, finalizing, cuDNN compiling its kernels) takes far
/// longer than running it, and a model's layers have the same problem.
/// Each routine casts the plans it stored back to its own type.
struct CudnnSession {
  CudnnSession(const Cudnn &dnn, cudnnHandle_t handle)
      : dnn(dnn), handle(handle) {}
  ~CudnnSession() {
    plans.clear(); // before the handle they were built with
    dnn.cudnnDestroy(handle);
  }
  CudnnSession(const CudnnSession &) = delete;
  CudnnSession &operator=(const CudnnSession &) = delete;
  /// Makes the workspace the convolution steps share at least `bytes`
  /// (the steps run one after another on the invocation's stream). Grows
  /// only while the invocation's steps are created, before any run.
  Status reserveSharedWorkspace(const CudaDriver &cu, int64_t bytes) {
    if (bytes <= sharedWorkspaceBytes)
      return Status::ok();
    auto grown = std::make_unique<DeviceMemory>(cu);
    if (Status s = grown->allocate(bytes); !s)
      return s;
    sharedWorkspace = std::move(grown);
    sharedWorkspaceBytes = bytes;
    return Status::ok();
  }
  /// The shared workspace's address; null while no step needs one.
  void *sharedWorkspaceAddress() const {
    return sharedWorkspace ? sharedWorkspace->pointer(0) : nullptr;
  }

  /// Shares the plan of a problem of a step over symbolic sizes with the
  /// invocation's other steps while any of them keeps it (each keeps its
  /// recent problems' plans, CudnnSdpa.cpp); forgets the plans none keeps.
  void keepShapePlan(const std::string &key, std::shared_ptr<const void> plan) {
    for (auto it = shapePlans.begin(); it != shapePlans.end();)
      it = it->second.expired() ? shapePlans.erase(it) : std::next(it);
    shapePlans[key] = plan;
  }

  const Cudnn &dnn;
  cudnnHandle_t handle;
  /// The plans of static steps, by problem, for the invocation's life.
  std::map<std::string, std::shared_ptr<const void>> plans;
  /// The plans of steps over symbolic sizes, by problem, while a step
  /// keeps them.
  std::map<std::string, std::weak_ptr<const void>> shapePlans;

private:
  std::unique_ptr<DeviceMemory> sharedWorkspace;
  int64_t sharedWorkspaceBytes = 0;
};

/// The invocation's session for `dnn`, created (a handle) on first use.
inline Result<std::shared_ptr<CudnnSession>>
cudnnSession(const Cudnn &dnn, LibrarySessions &sessions) {
  if (std::shared_ptr<void> found = sessions.find(&dnn))
    return std::static_pointer_cast<CudnnSession>(found);
  dnn.clearLastError();
  cudnnHandle_t handle = nullptr;
  if (cudnnStatus_t s = dnn.cudnnCreate(&handle))
    return makeError(cudnnErrorCode(s), dnn.failure("cudnnCreate", s));
  auto created = std::make_shared<CudnnSession>(dnn, handle);
  sessions.add(&dnn, created);
  return created;
}

} // namespace stride

#endif // STRIDE_LIB_RUNTIME_CUDNNSESSION_H
