//===- Module.h - The compiled module: model, file format, dump ----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A Stride module is everything the runtime needs to run one compiled graph:
// the GPU code (CUBIN or PTX), the kernels in it, the device buffers, the
// ordered launch plan, and the graph signature (names, dtypes, shapes and
// layouts of the inputs and outputs). The compiler fills in a ModuleDesc and
// writes it as a `.stridemod` file (a FlatBuffer, lib/Module/StrideModule.fbs);
// the runtime reads it back. docs/module-format.md specifies the file.
//
// Plain C++ (no MLIR, no LLVM): the runtime links this on GPU machines that
// have no compiler installed.
//
// The contract between the compiler that fills in a ModuleDesc and the
// runtime that runs it (how buffers are bound and addressed, what kernel
// parameters are, in which order launches run, what temporaries hold before
// the first launch) is specified in one place: docs/module-format.md.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_MODULE_MODULE_H
#define STRIDE_MODULE_MODULE_H

#include "stride/Support/DType.h"
#include "stride/Support/Result.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stride {

/// The only module format version this build reads and writes.
inline constexpr uint32_t kModuleFormatVersion = 1;

/// The FlatBuffers file identifier, at bytes 8..11 of every module file (a
/// size-prefixed FlatBuffer: byte count, root offset, identifier).
inline constexpr char kModuleFileIdentifier[] = "STRD";

/// Limits of the launch configuration (those of every CUDA GPU since sm_30,
/// and the largest opt-in shared memory of any current GPU).
inline constexpr uint32_t kMaxGridX = 0x7fffffff;
inline constexpr uint32_t kMaxGridYZ = 65535;
inline constexpr uint32_t kMaxBlockXY = 1024;
inline constexpr uint32_t kMaxBlockZ = 64;
inline constexpr uint32_t kMaxThreadsPerBlock = 1024;
inline constexpr uint32_t kMaxDynamicSharedBytes = 227 * 1024;
/// CUDA's limit on the total size of a kernel's parameters (pre-Volta
/// limit, which the format keeps so that modules run everywhere).
inline constexpr size_t kMaxKernelParamBytes = 4096;
/// No single buffer may exceed 256 TiB; a larger size is a corrupt file.
inline constexpr int64_t kMaxBufferBytes = int64_t(1) << 48;

enum class CodeKind : uint8_t { Cubin, Ptx };

/// Compiled GPU code: an ELF cubin, or PTX text without a terminating NUL.
struct CodeImage {
  CodeKind kind = CodeKind::Cubin;
  std::vector<uint8_t> bytes;

  bool operator==(const CodeImage &) const = default;
};

/// One graph input or output: its name, element type and strided layout
/// (strides and storage offset in elements, one stride per dim).
struct TensorSignature {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int64_t storageOffset = 0;

  bool operator==(const TensorSignature &) const = default;
};

/// The entry point and its tensors, in call order.
struct GraphSignature {
  std::string entryName;
  std::vector<TensorSignature> inputs;
  std::vector<TensorSignature> outputs;

  bool operator==(const GraphSignature &) const = default;
};

enum class BufferKind : uint8_t { Input, Output, Temp };

/// A device buffer. Input and Output buffers hold the storage of signature
/// input/output `signatureIndex`; Temp buffers have signatureIndex == -1 and
/// are allocated by the runtime (their initial contents: docs/module-format.md,
/// "Buffer").
struct BufferDesc {
  BufferKind kind = BufferKind::Temp;
  int32_t signatureIndex = -1;
  int64_t sizeBytes = 0;

  bool operator==(const BufferDesc &) const = default;
};

/// An `extern "C" __global__` function in images[imageIndex].
struct KernelDesc {
  std::string name;
  uint32_t imageIndex = 0;
  /// One line for people, e.g. "slice_scatter + sum (graph.mlir:7:5, :8:5)".
  std::string description;

  bool operator==(const KernelDesc &) const = default;
};

/// One kernel parameter: a buffer's device address or an immediate.
/// Build with the factory functions; for I32 and I64 the value is in
/// `intValue`, for F32 and F64 in `floatValue` (an F32 value is exactly
/// representable, as it was converted from a float).
struct KernelArg {
  enum class Kind : uint8_t { Buffer, I32, I64, F32, F64 };
  Kind kind = Kind::Buffer;
  uint32_t bufferIndex = 0;
  int64_t intValue = 0;
  double floatValue = 0.0;

  static KernelArg buffer(uint32_t index) { return {Kind::Buffer, index, 0, 0}; }
  static KernelArg i32(int32_t v) { return {Kind::I32, 0, v, 0}; }
  static KernelArg i64(int64_t v) { return {Kind::I64, 0, v, 0}; }
  static KernelArg f32(float v) { return {Kind::F32, 0, 0, v}; }
  static KernelArg f64(double v) { return {Kind::F64, 0, 0, v}; }

  bool operator==(const KernelArg &) const = default;
};

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;

  uint64_t volume() const { return uint64_t(x) * y * z; }
  bool operator==(const Dim3 &) const = default;
};

/// One kernel launch of the plan.
struct LaunchDesc {
  uint32_t kernelIndex = 0;
  Dim3 grid;
  Dim3 block;
  uint32_t dynamicSharedBytes = 0;
  std::vector<KernelArg> args;

  bool operator==(const LaunchDesc &) const = default;
};

/// The whole module.
struct ModuleDesc {
  uint32_t formatVersion = kModuleFormatVersion;
  /// e.g. "stridec 0.1".
  std::string producer;
  /// "sm_" + digits, e.g. "sm_90". PTX images target the matching virtual
  /// arch (compute_90).
  std::string targetArch;
  std::vector<CodeImage> images;
  std::vector<KernelDesc> kernels;
  std::vector<BufferDesc> buffers;
  std::vector<LaunchDesc> launches;
  GraphSignature signature;

  bool operator==(const ModuleDesc &) const = default;
};

/// Bytes of storage a signature tensor reaches from its buffer's start:
/// (storage extent in elements) * element size; 0 for a tensor with no
/// elements. nullopt when the layout is malformed or the size overflows.
std::optional<int64_t> storageBytes(const TensorSignature &tensor);

/// Parses "sm_90" into 90. nullopt unless the text is "sm_" and 2 or 3
/// digits.
std::optional<int> parseSmArch(const std::string &arch);

/// Checks that `desc` is self-consistent: version, arch, every index in
/// range, launch configurations within CUDA's limits, buffer sizes, layouts
/// and the binding of signature tensors to buffers. `name` (typically the
/// file path) starts every message. parseModule and writeModuleFile call it;
/// the compiler can call it to catch its own mistakes early.
Status verifyModule(const ModuleDesc &desc, const std::string &name);

/// The `.stridemod` bytes of `desc`. Does not verify `desc`.
std::vector<uint8_t> serializeModule(const ModuleDesc &desc);

/// Parses and verifies module bytes. Untrusted input: the FlatBuffers
/// verifier runs before any field is read, then verifyModule. Foreign,
/// truncated, corrupt and wrong-version files are refused with a message
/// that starts with `name`.
Result<ModuleDesc> parseModule(const uint8_t *data, size_t size,
                               const std::string &name);

/// Reads and parses a module file; messages start with `path`.
Result<ModuleDesc> readModuleFile(const std::string &path);

/// Verifies `desc` (refusing to write an inconsistent module) and writes it.
Status writeModuleFile(const std::string &path, const ModuleDesc &desc);

/// A readable multi-line dump for `stridec --inspect`: header, arch,
/// signature, code images, kernels, buffers and launches.
std::string describeModule(const ModuleDesc &desc);

/// "f32 [4, 13, 33] strides [429, 33, 1] offset 0"
std::string describeTensor(const TensorSignature &tensor);

} // namespace stride

#endif // STRIDE_MODULE_MODULE_H
