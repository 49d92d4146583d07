//===- Executable.h - A module's code loaded on a device ------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// An Executable is a verified module whose code images are loaded on a
// Runtime's device, with every kernel resolved and every launch checked
// against the device: the plan, ready to run. It never changes after load()
// and owns no buffers, so one Executable serves any number of Invocations
// (stride/Runtime/Invocation.h) on any threads at once.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_RUNTIME_EXECUTABLE_H
#define STRIDE_RUNTIME_EXECUTABLE_H

#include "stride/Runtime/Runtime.h"

namespace stride {

class Executable {
public:
  /// Verifies `desc`, checks that the device can run its code
  /// (Incompatible otherwise), loads every image and resolves every kernel.
  /// `name` (typically the file path) starts every error message.
  static Result<std::shared_ptr<const Executable>>
  load(Runtime &runtime, ModuleDesc desc, std::string name = "module");
  /// Parses `.stridemod` bytes (untrusted: see parseModule), then load().
  static Result<std::shared_ptr<const Executable>>
  loadBytes(Runtime &runtime, const uint8_t *data, size_t size,
            std::string name = "module");
  /// Reads a `.stridemod` file (see readModuleFile), then load().
  static Result<std::shared_ptr<const Executable>>
  loadFile(Runtime &runtime, const std::string &path);
  ~Executable();
  Executable(const Executable &) = delete;
  Executable &operator=(const Executable &) = delete;

  const ModuleDesc &desc() const;
  const std::string &name() const;
  Runtime &runtime() const;

  /// The L2 windows its launches carry (python-free-docs/plan.md, "Weights
  /// kept in L2"): how many launches, over how many bytes of constants
  /// (each constant's once), at what hit ratio. No launches where the
  /// module has none, or where the device or context sets no L2 aside.
  struct L2Windows {
    int launches = 0;
    uint64_t bytes = 0;
    float hitRatio = 0;
  };
  L2Windows l2Windows() const;

  struct Impl;
  const Impl &impl() const { return *pimpl; }

private:
  explicit Executable(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> pimpl;
};

} // namespace stride

#endif // STRIDE_RUNTIME_EXECUTABLE_H
