//===- Runtime.h - Loading and running compiled Stride modules -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The runtime runs a ModuleDesc on an NVIDIA GPU through the CUDA driver API,
// which it loads with dlopen: nothing here links libcuda or needs MLIR, and
// on a machine without a driver or GPU every entry point returns an Error
// that says so.
//
//   auto rt = Runtime::create(0);                     // device 0
//   auto mod = LoadedModule::loadFile(**rt, "model.stridemod");
//   const GraphSignature &sig = (*mod)->desc().signature;
//   auto outputs = (*mod)->run(inputs);               // host arrays
//
// Objects of this header are not thread-safe; use one per thread, or
// serialize calls. A Runtime must outlive the modules loaded on it.
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

struct RuntimeOptions {
  /// Simulated device memory limit in bytes for everything this Runtime
  /// allocates (0: none). An allocation beyond it fails as if the GPU were
  /// that small; tools expose it as --gpu-memory-limit.
  uint64_t gpuMemoryLimitBytes = 0;
  /// Fill output buffers with 0xFF bytes before the plan runs, so elements
  /// that no kernel writes read back as NaN (floats) or -1 (integers).
  bool poisonOutputs = false;
  /// In LoadedModule::run, synchronize after every launch so that a fault
  /// inside a kernel is attributed to that kernel. Costs a few microseconds
  /// per launch; benchmark and runOnDevice never synchronize per launch.
  bool syncEachLaunch = true;
};

/// Timing of one replay of the whole launch plan.
struct BenchResult {
  double medianMs = 0;
  double minMs = 0;
  int iterations = 0;
  bool usedCudaGraph = false;
};

class LoadedModule;

/// One CUDA device (its primary context) and a stream.
class Runtime {
public:
  /// Loads the driver, initializes CUDA and opens device `deviceOrdinal`.
  static Result<std::unique_ptr<Runtime>> create(int deviceOrdinal = 0,
                                                 RuntimeOptions options = {});

  /// Whether the CUDA driver (libcuda.so.1) can be loaded, without
  /// initializing CUDA: the Error says what is missing. create() fails with
  /// the same Error when it is missing; this tells "no driver" apart from
  /// other failures (no device, a device fault).
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

  RuntimeOptions &options();
  const RuntimeOptions &options() const;

  /// Device-to-device copy bandwidth: copies `bytes` between two buffers
  /// (after warm-up), times the copies with CUDA events and returns bytes
  /// read plus written per second (median of the timed copies).
  Result<double> measureCopyBandwidth(size_t bytes);

  struct Impl;

private:
  friend class LoadedModule;
  explicit Runtime(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> pimpl;
};

/// A module whose code is loaded on a Runtime's device.
class LoadedModule {
public:
  /// Verifies `desc`, checks that the device can run its code, loads every
  /// image and resolves every kernel. `name` (typically the file path)
  /// starts every error message.
  static Result<std::unique_ptr<LoadedModule>>
  load(Runtime &runtime, ModuleDesc desc, std::string name = "module");
  /// Parses `.stridemod` bytes (untrusted: see parseModule), then load().
  static Result<std::unique_ptr<LoadedModule>>
  loadBytes(Runtime &runtime, const uint8_t *data, size_t size,
            std::string name = "module");
  /// Reads a `.stridemod` file (see readModuleFile), then load().
  static Result<std::unique_ptr<LoadedModule>> loadFile(Runtime &runtime,
                                                        const std::string &path);
  ~LoadedModule();
  LoadedModule(const LoadedModule &) = delete;
  LoadedModule &operator=(const LoadedModule &) = delete;

  const ModuleDesc &desc() const;
  const std::string &name() const;

  /// Runs the plan on host arrays: checks them against the signature, copies
  /// them into device storage laid out as the signature says, launches,
  /// synchronizes and returns the outputs as dense C-order arrays. Device
  /// buffers are allocated on the first call and reused.
  Result<std::vector<HostArray>> run(const std::vector<HostArray> &inputs);

  /// Zero-copy entry point: `inputs` and `outputs` are CUdeviceptr values,
  /// one per signature input/output, each the address of storage element 0
  /// of a buffer laid out as the signature says (the caller owns them).
  /// Launches on `stream` (a CUstream; nullptr is the legacy default stream)
  /// and returns without synchronizing. Temporaries are allocated on the
  /// first call and kept, so calls on different streams must not overlap.
  Status runOnDevice(const std::vector<uint64_t> &inputs,
                     const std::vector<uint64_t> &outputs, void *stream);

  /// Uploads `inputs` once, then takes `iters` timed samples after `warmup`
  /// untimed replays; a sample is the mean time of 10 back-to-back replays
  /// of the plan between two CUDA events. With `useCudaGraph` the plan is
  /// captured into a CUDA graph once (and kept) and each replay is one graph
  /// launch.
  Result<BenchResult> benchmark(const std::vector<HostArray> &inputs,
                                int warmup, int iters, bool useCudaGraph);

  struct Impl;

private:
  explicit LoadedModule(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> pimpl;
};

//===----------------------------------------------------------------------===//
// Checks and layout conversions that need no GPU (used by the runtime,
// exposed for tools and tests).
//===----------------------------------------------------------------------===//

/// Checks count, dtype, shape and data size of host inputs against the
/// signature, e.g. "input 'x' (0 of 2) expects f32 of shape [4, 13, 33],
/// but was given f64 of shape [4, 13]".
Status checkInputs(const GraphSignature &signature,
                   const std::vector<HostArray> &inputs);

/// Checks that a device of compute capability major.minor can run the
/// module's code: a CUBIN for sm_XY runs on X.Z with Z >= Y; PTX for
/// compute_XY is JIT-compiled on any X.Y or newer. The message names both
/// archs and the `stridec --arch=` that fixes it.
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

} // namespace stride

#endif // STRIDE_RUNTIME_RUNTIME_H
