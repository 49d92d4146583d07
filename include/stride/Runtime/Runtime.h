//===- Runtime.h - A CUDA device and its memory for Stride modules --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The runtime runs a ModuleDesc on an NVIDIA GPU through the CUDA driver API,
// which it loads with dlopen: nothing here links libcuda or needs MLIR, and
// on a machine without a driver or GPU every entry point returns an Error
// that says so (code ErrorCode::Unavailable).
//
// Three objects, split as IREE splits its runtime (an executable apart from
// the sessions that call it):
//
//   Runtime     one CUDA device (its primary context) and its default
//               Allocator (this header);
//   Executable  a module's code loaded on that device and its launch plan:
//               immutable once loaded, shared by any number of invocations
//               and threads (stride/Runtime/Executable.h);
//   Invocation  what one caller needs to run an Executable: its buffers, its
//               stream, its argument slots and its captured CUDA graph; used
//               by one thread at a time (stride/Runtime/Invocation.h).
//
//   auto rt = Runtime::create(0);                          // device 0
//   auto exe = Executable::loadFile(**rt, "model.stridemod");
//   auto inv = Invocation::create(*exe);
//   auto outputs = (*inv)->run(inputs);                    // host arrays
//
// A Runtime must outlive every Allocator, Executable and Invocation made on
// it. Two Invocations of one Executable may run concurrently on two threads.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_RUNTIME_RUNTIME_H
#define STRIDE_RUNTIME_RUNTIME_H

#include "stride/Module/Module.h"
#include "stride/Support/Npy.h"
#include "stride/Support/Result.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace stride {

class Allocator;

/// One CUDA device: its primary context, its properties and its default
/// Allocator. Thread-safe.
class Runtime {
public:
  /// Loads the driver, initializes CUDA and opens device `deviceOrdinal`.
  /// Fails with Unavailable without a driver or device, NotFound for an
  /// ordinal the machine does not have.
  static Result<std::unique_ptr<Runtime>> create(int deviceOrdinal = 0);

  /// Whether the CUDA driver (libcuda.so.1) can be loaded, without
  /// initializing CUDA: the Error says what is missing. create() fails with
  /// the same Error when it is missing.
  static Status checkDriver();
  ~Runtime();
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  int deviceOrdinal() const;
  /// e.g. "NVIDIA H100 80GB HBM3".
  const std::string &deviceName() const;
  int computeCapabilityMajor() const;
  int computeCapabilityMinor() const;
  /// The device's real arch, e.g. "sm_90": what `stridec --arch` should name.
  std::string deviceArch() const;
  /// e.g. "device 0 (NVIDIA H100 80GB HBM3, sm_90)".
  std::string describeDevice() const;

  /// Device memory straight from the driver: no limit, no poisoning. What
  /// an Invocation uses unless its options name another allocator.
  const std::shared_ptr<Allocator> &defaultAllocator() const;

  /// Device memory held by the runtime's allocators (every Allocator created
  /// for this runtime, the default one with the executables' constants
  /// included): bytes allocated and not released. Memory that vendor
  /// libraries allocate for themselves (a cuBLASLt handle) is not counted.
  uint64_t deviceBytesInUse() const;
  /// The most bytes deviceBytesInUse() reached since the runtime was created
  /// or since resetPeakDeviceBytes().
  uint64_t peakDeviceBytes() const;
  /// Starts a new peak from the bytes in use now.
  void resetPeakDeviceBytes();

  //--- Copies, for callers of Invocation::runOnDevice --------------------===//
  // The buffers a caller passes to runOnDevice are its own (an Allocator's):
  // these fill its inputs, feed one run's output to the next run's input on
  // the device, and read its outputs back. Each enqueues the copy of `bytes`
  // bytes on `stream` (a CUstream; nullptr is the legacy default stream) and
  // returns without waiting: host memory must stay as it is until the
  // stream is synchronized.

  Status copyToDevice(uint64_t destination, const void *source,
                      uint64_t bytes, void *stream) const;
  Status copyToHost(void *destination, uint64_t source, uint64_t bytes,
                    void *stream) const;
  Status copyOnDevice(uint64_t destination, uint64_t source, uint64_t bytes,
                      void *stream) const;
  /// Waits for everything enqueued on `stream`; a kernel's fault is
  /// DeviceFault.
  Status synchronize(void *stream) const;

  struct Impl;
  Impl &impl() const { return *pimpl; }

private:
  explicit Runtime(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> pimpl;
};

struct AllocatorOptions {
  /// The most bytes the allocator holds at once (0: as many as the device
  /// has). An allocation beyond it fails with ResourceExhausted as if the
  /// GPU were that small; stride-run exposes it as --gpu-memory-limit.
  uint64_t limitBytes = 0;
  /// Fill every new allocation with 0xFF bytes, so that elements of an
  /// output that no kernel writes read back as NaN (floats) or -1
  /// (integers); stride-run exposes it as --poison. Inputs are overwritten
  /// by their upload and temporaries are zeroed after allocation, so only
  /// outputs keep the poison, until the first run writes them.
  bool poison = false;
};

/// Device memory of one Runtime's device, for Invocations. Thread-safe: one
/// allocator may serve several invocations, and its limit counts them all.
class Allocator {
public:
  static std::shared_ptr<Allocator> create(Runtime &runtime,
                                           AllocatorOptions options = {});
  ~Allocator();
  Allocator(const Allocator &) = delete;
  Allocator &operator=(const Allocator &) = delete;

  /// A CUdeviceptr to `bytes` bytes (0 bytes: address 0, which kernels never
  /// dereference). `what` names the buffer in the error, e.g. "buffer 2
  /// (temporary) of m.stridemod".
  Result<uint64_t> allocate(uint64_t bytes, const std::string &what);
  /// Frees what allocate() returned for `bytes` bytes.
  void release(uint64_t address, uint64_t bytes);
  /// Bytes allocated and not yet released.
  uint64_t bytesInUse() const;
  const AllocatorOptions &options() const;

  struct Impl;

private:
  explicit Allocator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> pimpl;
};

//===----------------------------------------------------------------------===//
// Checks and layout conversions that need no GPU (used by the runtime,
// exposed for tools and tests).
//===----------------------------------------------------------------------===//

/// Checks count, dtype, shape and data size of host inputs against the
/// signature, e.g. "input 'x' (0 of 2) expects f32 of shape [4, 13, 33],
/// but was given f64 of shape [4, 13]" (InvalidArgument).
Status checkInputs(const GraphSignature &signature,
                   const std::vector<HostArray> &inputs);

/// A module with symbolic sizes at the values its inputs' shapes bind
/// (bindModuleSymbols, instantiateModule: the shapes outside a symbol's
/// range, or inconsistent, are InvalidArgument naming the input, the dim
/// and the symbol); `desc` itself when it has no symbols. The inputs are
/// then checked (checkInputs) against the instance's signature.
Result<ModuleDesc> instantiateForInputs(const ModuleDesc &desc,
                                        const std::vector<HostArray> &inputs);

/// Per signature input of `desc`, the value a symbol is bound from
/// (ModuleDesc::valueBindings) where `inputs` holds it: the one element of
/// an i32 or i64 input; nullopt for the other inputs, and where the input
/// is missing or holds another type (checkInputs refuses those).
std::vector<std::optional<int64_t>>
boundInputValues(const ModuleDesc &desc, const std::vector<HostArray> &inputs);

/// Per step of `desc`, whether it runs at the values its inputs' shapes
/// and values bind (stepRuns: a variant selected at run time,
/// python-free-docs/symbolic-sizes.md); every step of a module without
/// symbols. Errors as instantiateForInputs'.
Result<std::vector<bool>> stepsRunForInputs(const ModuleDesc &desc,
                                            const std::vector<HostArray> &inputs);

/// Checks that a device of compute capability major.minor can run the
/// module's code: a CUBIN for sm_XY runs on X.Z with Z >= Y; PTX for
/// compute_XY is JIT-compiled on any X.Y or newer. The message names both
/// archs and the `stridec --arch=` that fixes it (Incompatible).
Status checkArchCompatible(const ModuleDesc &desc, const std::string &moduleName,
                           int ccMajor, int ccMinor,
                           const std::string &deviceDescription);

/// The bytes of a `storageBytes`-byte buffer holding `dense` (C order, of
/// the signature's shape and dtype) at the addresses of `tensor`'s layout;
/// bytes no element maps to are zero. Where the layout maps several elements
/// to one address (a broadcast input) their values must agree.
Result<std::vector<uint8_t>> packToStorage(const HostArray &dense,
                                           const TensorSignature &tensor,
                                           int64_t storageBytes);

/// Gathers `tensor`'s elements from its storage into a dense C-order array.
/// `storage` holds at least storageBytes(tensor) bytes.
HostArray unpackFromStorage(const uint8_t *storage,
                            const TensorSignature &tensor);

/// New values for some of a module's states, by name.
using StateValues = std::vector<std::pair<std::string, HostArray>>;

/// The storage of each state that `values` names (index into desc.states,
/// and storageBytes of its tensor, laid out as the state), all checked
/// before any is returned: an unknown or repeated name, or an array of
/// another dtype or shape, is InvalidArgument naming the state. A state
/// write built on it is all-or-nothing.
Result<std::vector<std::pair<size_t, std::vector<uint8_t>>>>
packStates(const ModuleDesc &desc, const StateValues &values);

/// State `index`'s storage before the first run: its initial data, or
/// zeros.
std::vector<uint8_t> initialStateStorage(const ModuleDesc &desc, size_t index);

} // namespace stride

#endif // STRIDE_RUNTIME_RUNTIME_H
