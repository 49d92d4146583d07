//===- Module.h - The compiled module: model, file format, dump ----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A Stride module is everything the runtime needs to run one compiled graph:
// the target, the GPU code (CUBIN or PTX executables) and the kernels in it,
// the constants, the device buffers, the plan's steps in order, and the graph
// signature (names, dtypes, shapes and layouts of the inputs and outputs). The compiler fills in a ModuleDesc and
// writes it as a `.stridemod` file (a FlatBuffer, lib/Module/StrideModule.fbs);
// the runtime reads it back. python-free-docs/module-format.md specifies the file.
//
// Plain C++ (no MLIR, no LLVM): the runtime links this on GPU machines that
// have no compiler installed.
//
// The contract between the compiler that fills in a ModuleDesc and the
// runtime that runs it (how buffers are bound and addressed, what kernel
// parameters are, in which order steps run, what temporaries hold before
// the first step) is specified in one place: python-free-docs/module-format.md.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_MODULE_MODULE_H
#define STRIDE_MODULE_MODULE_H

#include "stride/Module/SharedBytes.h"
#include "stride/Support/BufferLimits.h"
#include "stride/Support/DType.h"
#include "stride/Support/Result.h"
#include "stride/Support/SymbolicLayout.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace stride {

/// The module format version this build writes. It reads this one and
/// every version from kOldestModuleFormatVersion on.
inline constexpr uint32_t kModuleFormatVersion = 10;
/// The oldest version this build reads: version 5, which has no streams
/// or events (every step runs on the invocation's stream).
inline constexpr uint32_t kOldestModuleFormatVersion = 5;

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
/// The data section (constants' data, states' initial values) starts at a
/// file offset that is a multiple of this, and so does each entry in it: a
/// page, so that each entry can be mapped, advised and read with O_DIRECT
/// or GPUDirect Storage on its own (python-free-docs/module-format.md,
/// "The data section").
inline constexpr uint64_t kModuleDataAlignment = 4096;
/// The executables' bytes, which stay inside the FlatBuffer, total at most
/// this many, so that the FlatBuffer stays below FlatBuffers' 2 GiB limit.
inline constexpr uint64_t kMaxExecutableBytes = uint64_t(1) << 30;

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
  /// Inputs only: the plan writes the input's storage, so the caller's
  /// buffer holds the graph's new value of it when the run ends.
  bool mutated = false;
  /// Outputs only: the index of the input whose storage this output is (a
  /// graph input returned as it is, or a view of one): it has no buffer of
  /// its own, and its layout addresses the input's buffer; -1: a buffer of
  /// its own (python-free-docs/module-format.md, "Aliased outputs").
  int32_t aliasOfInput = -1;
  /// Format version 7: the layout over the module's symbols (a size, a
  /// stride or the offset names one); `shape`, `strides` and
  /// `storageOffset` then hold it at every symbol's largest value, the
  /// layout the buffers are sized for. nullopt: a static tensor.
  std::optional<SymbolicLayout> symbolic;

  bool isAlias() const { return aliasOfInput >= 0; }

  bool operator==(const TensorSignature &) const = default;
};

/// A buffer that persists across the runs of an invocation (a KV cache):
/// its name and layout, and its initial storage (`init`: the storage
/// extent times the element size bytes, little-endian; empty: zeros).
struct StateDesc {
  TensorSignature tensor;
  SharedBytes init;

  bool operator==(const StateDesc &) const = default;
};

/// The entry point and its tensors, in call order.
struct GraphSignature {
  std::string entryName;
  std::vector<TensorSignature> inputs;
  std::vector<TensorSignature> outputs;
  /// The positions, among the program's outputs, of those that are None (a
  /// backward graph's gradients of inputs that need none), increasing;
  /// `outputs` are the others, in order. Empty for most graphs.
  std::vector<uint32_t> absentOutputs;

  /// The number of the program's outputs: the tensors and the absent ones.
  size_t numProgramOutputs() const {
    return outputs.size() + absentOutputs.size();
  }

  bool operator==(const GraphSignature &) const = default;
};

enum class Backend : uint8_t { Cuda };

/// What the module runs on.
struct TargetDesc {
  Backend backend = Backend::Cuda;
  /// For CUDA: "sm_" + digits, e.g. "sm_90". PTX executables target the
  /// matching virtual arch (compute_90).
  std::string arch;

  bool operator==(const TargetDesc &) const = default;
};

/// An `extern "C" __global__` function of an executable.
struct KernelDesc {
  std::string name;
  /// One line for people, e.g. "slice_scatter + sum (graph.mlir:7:5, :8:5)".
  std::string description;

  bool operator==(const KernelDesc &) const = default;
};

/// Device code and the kernels in it.
struct ExecutableDesc {
  CodeImage image;
  std::vector<KernelDesc> kernels;

  bool operator==(const ExecutableDesc &) const = default;
};

/// A tensor stored in the module (weights): its storage, `data`, holds the
/// elements at the layout `shape` and `strides` give (little-endian), so
/// data.size() is the storage extent times the element size. In a module
/// read by readModuleFile, `data` is a view of the mapped file.
struct ConstantDesc {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  SharedBytes data;

  bool operator==(const ConstantDesc &) const = default;
};

enum class BufferKind : uint8_t { Input, Output, Temp, Constant, State };

/// A device buffer. Input and Output buffers hold the storage of signature
/// input/output `index`, Constant buffers that of constant `index`; Temp
/// buffers have index == -1 and hold zeros at the first run when `zeroed`
/// (python-free-docs/module-format.md, "Buffer"). A Temp or Output buffer with an
/// `arenaOffset` of 0 or more is the bytes [arenaOffset, arenaOffset +
/// sizeBytes) of the invocation's arena (ModuleDesc::arenaBytes); -1: an
/// allocation of its own.
struct BufferDesc {
  BufferKind kind = BufferKind::Temp;
  int32_t index = -1;
  int64_t sizeBytes = 0;
  bool zeroed = false;
  int64_t arenaOffset = -1;

  bool inArena() const { return arenaOffset >= 0; }

  bool operator==(const BufferDesc &) const = default;
};

/// One kernel parameter: a buffer's device address or an immediate.
/// Build with the factory functions; for I32 and I64 the value is in
/// `intValue`, for F32 and F64 in `floatValue` (an F32 value is exactly
/// representable, as it was converted from a float).
struct KernelArg {
  /// Symbol (format version 7): the value of symbol `bufferIndex` of the
  /// module, as a `long long` parameter.
  enum class Kind : uint8_t { Buffer, I32, I64, F32, F64, Symbol };
  Kind kind = Kind::Buffer;
  uint32_t bufferIndex = 0;
  int64_t intValue = 0;
  double floatValue = 0.0;

  static KernelArg buffer(uint32_t index) { return {Kind::Buffer, index, 0, 0}; }
  static KernelArg i32(int32_t v) { return {Kind::I32, 0, v, 0}; }
  static KernelArg i64(int64_t v) { return {Kind::I64, 0, v, 0}; }
  static KernelArg f32(float v) { return {Kind::F32, 0, 0, v}; }
  static KernelArg f64(double v) { return {Kind::F64, 0, 0, v}; }
  static KernelArg symbol(uint32_t index) {
    return {Kind::Symbol, index, 0, 0};
  }

  bool operator==(const KernelArg &) const = default;
};

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;

  uint64_t volume() const { return uint64_t(x) * y * z; }
  bool operator==(const Dim3 &) const = default;
};

/// Format version 9: a range of one symbol's values, `min <= v <= max`
/// (symbol `symbol` of ModuleDesc::symbols).
struct SymbolBound {
  uint32_t symbol = 0;
  int64_t min = 0;
  int64_t max = 0;

  bool operator==(const SymbolBound &) const = default;
};

/// Format version 9: at which values of the bound symbols a step runs
/// (python-free-docs/symbolic-sizes.md, "Variants selected at run time").
/// A step with neither list runs always; with `when`, only where every
/// bound of it holds; with `unless`, only where some bound of it fails.
/// Two steps that write one buffer with the same list, one as `when` and
/// one as `unless`, are alternatives: exactly one of them runs.
struct StepGuard {
  std::vector<SymbolBound> when;
  std::vector<SymbolBound> unless;

  bool empty() const { return when.empty() && unless.empty(); }
  bool operator==(const StepGuard &) const = default;
};

/// Launch kernel `kernel` of executable `executable`.
struct DispatchStep {
  uint32_t executable = 0;
  uint32_t kernel = 0;
  /// In a module with symbols, the grid at every symbol's largest value.
  Dim3 grid;
  Dim3 block;
  uint32_t dynamicSharedBytes = 0;
  std::vector<KernelArg> args;
  /// Launched with programmatic stream serialization: the kernel may start
  /// before the dispatch before it ends, since it waits for that grid itself
  /// (python-free-docs/module-format.md, "Dispatch"). Only in modules for sm_90 and
  /// later.
  bool dependentLaunch = false;
  /// Format version 7: the grid's x at run time is min(ceil(gridElements /
  /// gridDivisor), grid.x) at the bound symbols, at least 1 (a grid over
  /// no elements is one block whose loops run no iteration); nullopt: the
  /// grid as it is.
  std::optional<SizeExpr> gridElements;
  int64_t gridDivisor = 1;
  /// Format version 9: the values of the symbols it runs at.
  StepGuard guard;
  /// Weights kept in L2 across runs (python-free-docs/module-format.md,
  /// "Dispatch"): with l2ResidentBytes above 0, the launch carries an L2
  /// access-policy window over the first l2ResidentBytes bytes of buffer
  /// l2ResidentBuffer (a constant), its hits persisting. A hint: it
  /// changes where the bytes are read from, never the results.
  uint32_t l2ResidentBuffer = 0;
  uint64_t l2ResidentBytes = 0;

  bool operator==(const DispatchStep &) const = default;
};

/// One parameter of a library call: integers or text.
struct DescriptorField {
  std::string name;
  /// In a module with symbols, the values at every symbol's largest value.
  std::vector<int64_t> ints;
  std::string text;
  /// Format version 8: empty, or one size expression per entry of `ints`
  /// (a constant for an entry that no symbol changes), the entries' values
  /// at the bound symbols (python-free-docs/symbolic-sizes.md, "Library
  /// calls over symbolic sizes").
  std::vector<SizeExpr> symbolicInts;

  bool operator==(const DescriptorField &) const = default;
};

/// The streams of an invocation (python-free-docs/module-format.md,
/// "Streams and events"): its own stream, on which every step runs unless
/// it says otherwise, and the collective stream, on which the plan's NCCL
/// calls run beside the other steps (format version 6).
enum class StreamId : uint8_t { Main = 0, Collective = 1 };
inline constexpr uint8_t kStreamCount = 2;

/// Call `routine` ("library.routine", a routine of the runtime's registry)
/// on buffers, with its parameters, on `stream` (the collective stream for
/// NCCL's routines only).
struct LibraryCallStep {
  std::string routine;
  std::vector<uint32_t> buffers;
  std::vector<DescriptorField> descriptor;
  StreamId stream = StreamId::Main;
  /// Format version 9: the values of the symbols it runs at.
  StepGuard guard;

  bool operator==(const LibraryCallStep &) const = default;
};

/// Set every byte of a buffer to `value`.
struct FillStep {
  uint32_t buffer = 0;
  uint8_t value = 0;

  bool operator==(const FillStep &) const = default;
};

/// Copy the first `sizeBytes` bytes of buffer `source` to buffer `target`.
struct CopyStep {
  uint32_t source = 0;
  uint32_t target = 0;
  /// In a module with symbols, the size at every symbol's largest value.
  int64_t sizeBytes = 0;
  /// Format version 7: the size at the bound symbols; nullopt: sizeBytes.
  std::optional<SizeExpr> symbolicSizeBytes;

  bool operator==(const CopyStep &) const = default;
};

/// Record event `event` on `stream` (what the stream has enqueued so far),
/// or make `stream` wait for the last record of it: the fork and join of
/// the collective stream (format version 6).
struct EventStep {
  enum class Action : uint8_t { Record = 0, Wait = 1 };
  Action action = Action::Record;
  uint32_t event = 0;
  StreamId stream = StreamId::Main;

  bool operator==(const EventStep &) const = default;
};

using Step =
    std::variant<DispatchStep, LibraryCallStep, FillStep, CopyStep, EventStep>;

/// Format version 10: symbol `symbol` of ModuleDesc::symbols is the value
/// of input `input`, which holds one integer (i32 or i64), not a size
/// (python-free-docs/symbolic-sizes.md, "Symbols bound from a value"). No
/// layout, size argument or descriptor names such a symbol; step guards
/// read it, to choose between variants that compute the same value (the
/// attention of a decode step by its valid length). A run binds it from
/// the input's value where the host sees it (Invocation::run and upload)
/// or where the caller gives it (Invocation::bindInputValue); unknown, or
/// outside the symbol's range, no guard over it holds.
struct ValueBinding {
  uint32_t symbol = 0;
  uint32_t input = 0;

  bool operator==(const ValueBinding &) const = default;
};

/// The whole module.
struct ModuleDesc {
  uint32_t formatVersion = kModuleFormatVersion;
  /// e.g. "stridec 0.1".
  std::string producer;
  TargetDesc target;
  std::vector<ExecutableDesc> executables;
  std::vector<ConstantDesc> constants;
  /// The persistent buffers, each bound to one State buffer.
  std::vector<StateDesc> states;
  std::vector<BufferDesc> buffers;
  /// Enqueued in order, each on its stream (the invocation's, but for the
  /// library calls on the collective stream), ordered across the two by
  /// the event steps.
  std::vector<Step> steps;
  /// The events the event steps name, 0 to events - 1; each is recorded
  /// by one step (format version 6).
  uint32_t events = 0;
  GraphSignature signature;
  /// Format version 7: the symbols the signature's symbolic layouts name,
  /// with their ranges (python-free-docs/symbolic-sizes.md); the runtime
  /// binds each from the inputs' shapes at every run. Buffers and the arena
  /// are sized for every symbol's largest value.
  std::vector<SizeSymbol> symbols;
  /// Format version 10: the symbols bound from an input's value rather than
  /// from a shape (ValueBinding); each names a symbol of `symbols` once.
  std::vector<ValueBinding> valueBindings;
  /// What buffer reuse started from (stride-reuse-buffers): the plan's
  /// temporaries before they shared buffers, and their bytes; 0 and 0 when
  /// not recorded. For people (stridec --inspect); the runtime ignores it.
  uint32_t temporariesBeforeReuse = 0;
  int64_t temporaryBytesBeforeReuse = 0;
  /// The arena's bytes: the largest arenaOffset + sizeBytes of a buffer in
  /// it, 0 when none is.
  int64_t arenaBytes() const;
  /// Compiled with `stridec --deterministic` (CudaTargetOptions::
  /// deterministic): float index_add sums each output element's
  /// contributions in source order (python-free-docs/determinism.md). For people
  /// (stridec --inspect), and for the runtime, which then never tunes the
  /// library calls (InvocationOptions::tuneLibraryCalls).
  bool deterministic = false;

  bool operator==(const ModuleDesc &) const = default;
};

/// Bytes of storage a signature tensor reaches from its buffer's start:
/// (storage extent in elements) * element size; 0 for a tensor with no
/// elements. nullopt when the layout is malformed or the size overflows.
std::optional<int64_t> storageBytes(const TensorSignature &tensor);

/// The buffer that holds each signature output when the plan ends: its
/// Output buffer, or for an aliased output the Input buffer of the input it
/// aliases. For a module that verifyModule accepts.
std::vector<uint32_t> outputSourceBuffers(const ModuleDesc &desc);

/// Parses "sm_90" into 90. nullopt unless the text is "sm_" and 2 or 3
/// digits.
std::optional<int> parseSmArch(const std::string &arch);

/// Whether code for `arch` ("sm_90") can wait for the grid before it
/// (`griddepcontrol`, PTX ISA 7.8, sm_90 and later), which a dispatch with
/// `dependentLaunch` needs. The one home of that rule: the compiler asks it
/// before emitting the wait, verifyModule before accepting the field.
bool supportsDependentLaunch(const std::string &arch);

/// Checks that `desc` is self-consistent: version, arch, every index in
/// range, dispatch configurations within CUDA's limits, buffer sizes, layouts
/// and the binding of signature tensors to buffers. `name` (typically the
/// file path) starts every message. parseModule and writeModuleFile call it;
/// the compiler can call it to catch its own mistakes early.
Status verifyModule(const ModuleDesc &desc, const std::string &name);

/// Where a module's parts lie in its file (python-free-docs/module-format.md,
/// "Layout of the file"): the size-prefixed FlatBuffer from byte 0, then the
/// data section, which holds each constant's data and each stored initial
/// value of a state at an offset relative to the section's start.
struct ModuleFileLayout {
  /// Bytes of the FlatBuffer, its 4-byte size prefix included.
  uint64_t flatBufferBytes = 0;
  /// The data section's file offset (a multiple of kModuleDataAlignment;
  /// flatBufferBytes when the section is empty) and its size.
  uint64_t dataSectionOffset = 0;
  uint64_t dataSectionBytes = 0;
  /// Each constant's data and each state's initial value: its offset in the
  /// data section (0 for no bytes).
  std::vector<uint64_t> constantOffsets;
  std::vector<uint64_t> stateOffsets;

  uint64_t fileBytes() const { return dataSectionOffset + dataSectionBytes; }
};

/// The layout the writer gives `desc`'s file.
ModuleFileLayout moduleFileLayout(const ModuleDesc &desc);

/// Receives a module file's bytes in order; false stops the writing (a write
/// error, which the caller reports).
using ModuleByteSink = std::function<bool(const uint8_t *data, uint64_t size)>;

/// Hands `desc`'s file to `sink` in order: the FlatBuffer, padding, then the
/// data section straight from each constant and state, never copied into one
/// buffer. Does not verify `desc`. False when `sink` returned false.
bool streamModule(const ModuleDesc &desc, const ModuleByteSink &sink);

/// The `.stridemod` bytes of `desc`, in memory. Does not verify `desc`.
std::vector<uint8_t> serializeModule(const ModuleDesc &desc);

/// Parses and verifies module bytes. Untrusted input: the FlatBuffers
/// verifier runs before any field is read, every data offset and size is
/// checked against the file, then verifyModule. Foreign, truncated, corrupt
/// and wrong-version files are refused with a message that starts with
/// `name`. The constants' data is copied out of the caller's bytes.
Result<ModuleDesc> parseModule(const uint8_t *data, size_t size,
                               const std::string &name);

/// As above, but the constants' data (and the states' initial values) are
/// views of `bytes`, which they keep alive: no copy.
Result<ModuleDesc> parseModule(const SharedBytes &bytes,
                               const std::string &name);

/// Maps a module file into memory (reads it where it cannot be mapped: a
/// pipe) and parses it without copying its data section; messages start
/// with `path`.
Result<ModuleDesc> readModuleFile(const std::string &path);

/// Verifies `desc` (refusing to write an inconsistent module) and streams it
/// to `path` (streamModule).
Status writeModuleFile(const std::string &path, const ModuleDesc &desc);

/// A readable multi-line dump for `stridec --inspect`: header, arch,
/// signature, executables and kernels, constants (summarized), buffers and
/// steps.
std::string describeModule(const ModuleDesc &desc);

/// "f32 [4, 13, 33] strides [429, 33, 1] offset 0"
std::string describeTensor(const TensorSignature &tensor);

/// What a step of the plan does, for a profile (stride-run --profile).
enum class StepKind : uint8_t { Kernel, LibraryCall, Copy, Fill, Event };

/// "kernel", "library call", "copy", "fill", "event".
const char *stepKindName(StepKind kind);

struct StepSummary {
  StepKind kind = StepKind::Kernel;
  /// A kernel's name ("fused_3"); a library call's routine with its problem
  /// ("cublaslt.matmul f32 m=768 n=8192 k=3072 batch=1 epilogue=gelu_bias":
  /// the descriptor's text fields dtype and epilogue and its integer fields
  /// m, n, k and batch, those it has); a copy's or fill's size ("4096
  /// bytes"); an event step's action ("record event 0 on the main
  /// stream").
  std::string name;
};

/// The summary of step `index` of a verified `desc`.
StepSummary summarizeStep(const ModuleDesc &desc, size_t index);

/// The device memory a module's plan names, by what holds it.
struct MemorySummary {
  int64_t constantBytes = 0;  // the weights and other constants
  int64_t arenaBytes = 0;     // temporaries and outputs sharing bytes
  int64_t temporaryBytes = 0; // temporaries outside the arena (zeroed)
  int64_t inputBytes = 0;
  int64_t outputBytes = 0;    // outputs outside the arena
  int64_t stateBytes = 0;     // persistent buffers (a KV cache)

  int64_t total() const {
    return constantBytes + arenaBytes + temporaryBytes + inputBytes +
           outputBytes + stateBytes;
  }
};

/// The sizes of `desc`'s buffers, summed by kind; the buffers in the arena
/// count once, as the arena's bytes.
MemorySummary summarizeMemory(const ModuleDesc &desc);

} // namespace stride

#endif // STRIDE_MODULE_MODULE_H
