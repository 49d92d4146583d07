//===- Module.cpp - Serialize, parse, verify and describe modules --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Module files are untrusted input: a file may be foreign, truncated,
// corrupted or from another release. Parsing therefore goes in layers, and no
// layer reads a byte that an earlier one has not checked:
//   1. size, file identifier (bytes 8..11) and the size prefix,
//   2. just enough FlatBuffers verification to read `format_version`,
//   3. the version,
//   4. the full FlatBuffers verifier,
//   5. conversion to ModuleDesc (tolerating absent fields),
//   6. verifyModule: the semantic checks the runtime relies on.
//
//===----------------------------------------------------------------------===//

#include "stride/Module/Module.h"

#include "StrideModule_generated.h"
#include "stride/Support/Layout.h"

#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <sstream>

namespace stride {

static_assert(std::endian::native == std::endian::little,
              "module immediates are stored as little-endian bit patterns");

// The schema's ElementType mirrors DType value for value.
static_assert(static_cast<int>(fb::ElementType::MAX) ==
                  static_cast<int>(DType::I64),
              "StrideModule.fbs ElementType is out of sync with DType");

namespace {

std::string str(int64_t v) { return std::to_string(v); }

//===----------------------------------------------------------------------===//
// ModuleDesc -> FlatBuffer
//===----------------------------------------------------------------------===//

uint64_t immediateBits(const KernelArg &arg) {
  switch (arg.kind) {
  case KernelArg::Kind::Buffer:
    return 0;
  case KernelArg::Kind::I32:
    return std::bit_cast<uint32_t>(static_cast<int32_t>(arg.intValue));
  case KernelArg::Kind::I64:
    return std::bit_cast<uint64_t>(arg.intValue);
  case KernelArg::Kind::F32:
    return std::bit_cast<uint32_t>(static_cast<float>(arg.floatValue));
  case KernelArg::Kind::F64:
    return std::bit_cast<uint64_t>(arg.floatValue);
  }
  return 0;
}

fb::Dim3 toFb(const Dim3 &d) { return fb::Dim3(d.x, d.y, d.z); }

flatbuffers::Offset<fb::TensorSignature>
buildTensor(flatbuffers::FlatBufferBuilder &b, const TensorSignature &t) {
  auto name = b.CreateString(t.name);
  auto shape = b.CreateVector(t.shape);
  auto strides = b.CreateVector(t.strides);
  return fb::CreateTensorSignature(b, name, static_cast<fb::ElementType>(t.dtype),
                                   shape, strides, t.storageOffset);
}

flatbuffers::Offset<fb::Signature> buildSignature(flatbuffers::FlatBufferBuilder &b,
                                                  const GraphSignature &sig) {
  std::vector<flatbuffers::Offset<fb::TensorSignature>> inputs, outputs;
  for (const TensorSignature &t : sig.inputs)
    inputs.push_back(buildTensor(b, t));
  for (const TensorSignature &t : sig.outputs)
    outputs.push_back(buildTensor(b, t));
  auto entry = b.CreateString(sig.entryName);
  auto inputVector = b.CreateVector(inputs);
  auto outputVector = b.CreateVector(outputs);
  return fb::CreateSignature(b, entry, inputVector, outputVector);
}

flatbuffers::Offset<fb::Launch> buildLaunch(flatbuffers::FlatBufferBuilder &b,
                                            const LaunchDesc &l) {
  std::vector<fb::LaunchArg> args;
  for (const KernelArg &a : l.args)
    args.emplace_back(static_cast<fb::ArgKind>(a.kind),
                      a.kind == KernelArg::Kind::Buffer ? a.bufferIndex : 0,
                      immediateBits(a));
  fb::Dim3 grid = toFb(l.grid), block = toFb(l.block);
  auto argVector = b.CreateVectorOfStructs(args);
  return fb::CreateLaunch(b, l.kernelIndex, &grid, &block, l.dynamicSharedBytes,
                          argVector);
}

//===----------------------------------------------------------------------===//
// FlatBuffer -> ModuleDesc. Runs only on verified buffers; absent fields
// read as empty and are caught by verifyModule.
//===----------------------------------------------------------------------===//

std::string toString(const flatbuffers::String *s) {
  return s ? s->str() : std::string();
}

// The FlatBuffers verifier checks a vector's alignment only to 4 bytes (its
// length field), so a hostile file can hold an [int64] or a vector of 8-byte
// structs at an address that is not a multiple of 8. Elements are therefore
// copied out byte-wise, never read through a typed pointer.
template <typename T>
std::vector<T> toVector(const flatbuffers::Vector<T> *v) {
  if (!v)
    return {};
  std::vector<T> out(v->size());
  if (!out.empty())
    std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

template <typename T>
std::vector<T> structsOf(const flatbuffers::Vector<const T *> *v) {
  if (!v)
    return {};
  std::vector<T> out(v->size());
  if (!out.empty())
    std::memcpy(static_cast<void *>(out.data()), v->Data(),
                out.size() * sizeof(T));
  return out;
}

Dim3 fromFb(const fb::Dim3 *d) {
  // An absent grid or block reads as 0 x 0 x 0, which verifyModule refuses.
  return d ? Dim3{d->x(), d->y(), d->z()} : Dim3{0, 0, 0};
}

/// Decodes an argument. Returns nullopt for a kind this version does not know
/// or an immediate whose unused high bits are set (both mean corruption).
std::optional<KernelArg> fromFb(const fb::LaunchArg &a) {
  uint64_t bits = a.bits();
  bool fitsIn32 = (bits >> 32) == 0;
  switch (a.kind()) {
  case fb::ArgKind::Buffer:
    if (bits != 0)
      return std::nullopt;
    return KernelArg::buffer(a.buffer());
  case fb::ArgKind::I32:
    if (!fitsIn32)
      return std::nullopt;
    return KernelArg::i32(std::bit_cast<int32_t>(static_cast<uint32_t>(bits)));
  case fb::ArgKind::I64:
    return KernelArg::i64(std::bit_cast<int64_t>(bits));
  case fb::ArgKind::F32:
    if (!fitsIn32)
      return std::nullopt;
    return KernelArg::f32(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  case fb::ArgKind::F64:
    return KernelArg::f64(std::bit_cast<double>(bits));
  }
  return std::nullopt;
}

/// Enum values a newer or corrupt file may hold that this build does not
/// know are mapped to a sentinel that verifyModule refuses.
constexpr uint8_t kUnknownEnum = 0xff;

TensorSignature fromFb(const fb::TensorSignature *t) {
  TensorSignature out;
  if (!t) {
    out.dtype = static_cast<DType>(kUnknownEnum);
    return out;
  }
  out.name = toString(t->name());
  out.dtype = static_cast<DType>(t->dtype());
  out.shape = toVector(t->shape());
  out.strides = toVector(t->strides());
  out.storageOffset = t->storage_offset();
  return out;
}

std::vector<TensorSignature>
fromFb(const flatbuffers::Vector<flatbuffers::Offset<fb::TensorSignature>> *v) {
  std::vector<TensorSignature> out;
  if (v)
    for (const fb::TensorSignature *t : *v)
      out.push_back(fromFb(t));
  return out;
}

/// Converts a verified module. Fails only on argument encodings that cannot
/// be represented in a ModuleDesc.
Result<ModuleDesc> convert(const fb::Module &m, const std::string &name) {
  ModuleDesc desc;
  desc.formatVersion = m.format_version();
  desc.producer = toString(m.producer());
  desc.targetArch = toString(m.target_arch());
  if (m.images())
    for (const fb::CodeImage *img : *m.images())
      desc.images.push_back(
          {static_cast<CodeKind>(img ? static_cast<uint8_t>(img->kind())
                                     : kUnknownEnum),
           img ? toVector(img->bytes()) : std::vector<uint8_t>()});
  if (m.kernels())
    for (const fb::Kernel *k : *m.kernels())
      desc.kernels.push_back(k ? KernelDesc{toString(k->name()), k->image(),
                                            toString(k->description())}
                               : KernelDesc{});
  if (m.buffers())
    for (const fb::Buffer *b : *m.buffers())
      desc.buffers.push_back(
          b ? BufferDesc{static_cast<BufferKind>(b->kind()), b->signature_index(),
                         b->size_bytes()}
            : BufferDesc{static_cast<BufferKind>(kUnknownEnum), -1, 0});
  if (m.launches()) {
    for (const fb::Launch *l : *m.launches()) {
      size_t index = desc.launches.size();
      LaunchDesc launch;
      if (l) {
        launch.kernelIndex = l->kernel();
        launch.grid = fromFb(l->grid());
        launch.block = fromFb(l->block());
        launch.dynamicSharedBytes = l->dynamic_shared_bytes();
        if (l->args()) {
          for (const fb::LaunchArg &a : structsOf(l->args())) {
            std::optional<KernelArg> arg = fromFb(a);
            if (!arg)
              return makeError(ErrorCode::InvalidModule,
                               name + ": corrupt Stride module: argument " +
                                   str(launch.args.size()) + " of launch " +
                                   str(index + 1) + " of " +
                                   str(m.launches()->size()) +
                                   " has an unknown encoding");
            launch.args.push_back(*arg);
          }
        }
      } else {
        launch.grid = launch.block = Dim3{0, 0, 0};
      }
      desc.launches.push_back(std::move(launch));
    }
  }
  if (const fb::Signature *sig = m.signature()) {
    desc.signature.entryName = toString(sig->entry());
    desc.signature.inputs = fromFb(sig->inputs());
    desc.signature.outputs = fromFb(sig->outputs());
  }
  desc.temporariesBeforeReuse = m.temporaries_before_reuse();
  desc.temporaryBytesBeforeReuse = m.temporary_bytes_before_reuse();
  return desc;
}

//===----------------------------------------------------------------------===//
// Layered checks of untrusted bytes
//===----------------------------------------------------------------------===//

/// Printable rendering of a few untrusted bytes: "\x89PNG".
std::string printableBytes(const uint8_t *p, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\' && p[i] != '"') {
      s += static_cast<char>(p[i]);
      continue;
    }
    char buf[8];
    std::snprintf(buf, sizeof(buf), "\\x%02x", p[i]);
    s += buf;
  }
  return s;
}

/// The file is a size-prefixed FlatBuffer: a uint32 byte count of the rest,
/// then the root offset, then the identifier.
constexpr size_t kSizePrefixBytes = sizeof(flatbuffers::uoffset_t);
constexpr size_t kHeaderBytes = kSizePrefixBytes + 8;

/// Verifies only the root offset, the root table's vtable and its
/// format_version field, so the version can be read even from a file whose
/// other fields a newer release laid out differently.
bool verifyVersionField(const uint8_t *data, size_t size) {
  flatbuffers::Verifier verifier(data, size);
  flatbuffers::uoffset_t rootOffset = verifier.VerifyOffset(kSizePrefixBytes);
  if (!rootOffset)
    return false;
  auto *root = reinterpret_cast<const flatbuffers::Table *>(
      data + kSizePrefixBytes + rootOffset);
  return root->VerifyTableStart(verifier) &&
         root->VerifyField<uint32_t>(verifier, fb::Module::VT_FORMAT_VERSION,
                                     sizeof(uint32_t));
}

uint32_t readVersionField(const uint8_t *data) {
  auto *root = flatbuffers::GetSizePrefixedRoot<flatbuffers::Table>(data);
  return root->GetField<uint32_t>(fb::Module::VT_FORMAT_VERSION, 0);
}

Status checkHeader(const uint8_t *data, size_t size, const std::string &name) {
  if (size == 0)
    return makeError(ErrorCode::InvalidModule,
                     name + ": not a Stride module: the file is empty");
  if (size < kHeaderBytes)
    return makeError(ErrorCode::InvalidModule,
                     name + ": not a Stride module: the file has only " +
                         str(size) + " bytes, fewer than the " +
                         str(kHeaderBytes) + "-byte header");
  if (!flatbuffers::BufferHasIdentifier(data, kModuleFileIdentifier,
                                        /*size_prefixed=*/true))
    return makeError(
        ErrorCode::InvalidModule,
        name + ": not a Stride module: bytes 8-11 hold \"" +
            printableBytes(data + 8, 4) + "\" instead of the identifier \"" +
            kModuleFileIdentifier +
            "\" (a module file is what `stridec --emit=module` writes)");
  uint64_t declared =
      uint64_t(flatbuffers::ReadScalar<flatbuffers::uoffset_t>(data)) +
      kSizePrefixBytes;
  if (declared > size)
    return makeError(ErrorCode::InvalidModule,
                     name + ": truncated Stride module: the file has " +
                         str(size) + " bytes, but its header says it has " +
                         str(declared));
  if (declared < size)
    return makeError(ErrorCode::InvalidModule,
                     name + ": corrupt Stride module: the file has " +
                         str(size) + " bytes, but its header says it has " +
                         str(declared) + " (extra data at the end)");
  if (!verifyVersionField(data, size))
    return makeError(ErrorCode::InvalidModule,
                     name + ": corrupt Stride module: the header is damaged");
  uint32_t version = readVersionField(data);
  if (version != kModuleFormatVersion)
    return makeError(
        ErrorCode::Incompatible,
        name + ": module format version " + str(version) +
            " is not supported by this runtime (it reads version " +
            str(kModuleFormatVersion) +
            "); recompile the graph with this release's stridec");
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Semantic verification
//===----------------------------------------------------------------------===//

/// Collects the first problem found; each check reads "what: problem".
class ModuleVerifier {
public:
  ModuleVerifier(const ModuleDesc &desc, const std::string &name)
      : desc(desc), name(name) {}

  Status run() {
    checkHeaderFields();
    checkSignature();
    checkImages();
    checkKernels();
    checkBuffers();
    checkLaunches();
    checkReuseStatistics();
    if (problem.empty())
      return Status::ok();
    return makeError(ErrorCode::InvalidModule,
                     name + ": inconsistent module: " + problem);
  }

private:
  const ModuleDesc &desc;
  const std::string &name;
  std::string problem;

  /// Records the first failure only: later ones may be consequences.
  bool fail(std::string message) {
    if (problem.empty())
      problem = std::move(message);
    return false;
  }

  /// Names and descriptions are printed one per line: no control characters
  /// (this also keeps embedded NULs out of names passed to CUDA).
  static bool isPrintable(const std::string &s) {
    for (char c : s)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        return false;
    return true;
  }

  void checkPrintable(const std::string &s, const std::string &what) {
    if (!isPrintable(s))
      fail(what + " contains control characters");
  }

  void checkHeaderFields() {
    checkPrintable(desc.producer, "the producer string");
    if (desc.formatVersion != kModuleFormatVersion)
      fail("format version " + str(desc.formatVersion) + ", expected " +
           str(kModuleFormatVersion));
    if (!parseSmArch(desc.targetArch))
      fail("target arch \"" + desc.targetArch +
           "\" is not of the form sm_NN (e.g. sm_90)");
  }

  static bool isIdentifier(const std::string &s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
      return false;
    for (char c : s)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
        return false;
    return true;
  }

  bool checkTensor(const TensorSignature &t, const std::string &what) {
    if (t.name.empty())
      return fail(what + " has no name");
    if (!isPrintable(t.name))
      return fail(what + "'s name contains control characters");
    std::string where = what + " '" + t.name + "'";
    if (static_cast<uint8_t>(t.dtype) > static_cast<uint8_t>(DType::I64))
      return fail(where + " has an unknown element type (code " +
                  str(static_cast<uint8_t>(t.dtype)) + ")");
    if (static_cast<int64_t>(t.shape.size()) > kMaxRank)
      return fail(where + " has rank " + str(t.shape.size()) +
                  ", more than the maximum " + str(kMaxRank));
    if (t.strides.size() != t.shape.size())
      return fail(where + " has shape " + formatDims(t.shape) + " of rank " +
                  str(t.shape.size()) + " but " + str(t.strides.size()) +
                  " strides " + formatDims(t.strides));
    for (size_t d = 0; d < t.shape.size(); ++d) {
      if (t.shape[d] < 0)
        return fail(where + " has negative size " + str(t.shape[d]) +
                    " in dim " + str(d));
      if (t.strides[d] < 0)
        return fail(where + " has negative stride " + str(t.strides[d]) +
                    " in dim " + str(d));
    }
    if (t.storageOffset < 0)
      return fail(where + " has negative storage offset " +
                  str(t.storageOffset));
    if (!checkedNumElements(t.shape) || !storageBytes(t))
      return fail(where + " of shape " + formatDims(t.shape) + " and strides " +
                  formatDims(t.strides) + " is too large");
    return true;
  }

  void checkTensorList(const std::vector<TensorSignature> &list,
                       const std::string &kind) {
    std::set<std::string> names;
    for (size_t i = 0; i < list.size(); ++i) {
      if (!checkTensor(list[i], kind + " " + str(i)))
        return;
      if (!names.insert(list[i].name).second)
        fail(kind + " name '" + list[i].name + "' is used twice");
    }
  }

  void checkSignature() {
    const GraphSignature &sig = desc.signature;
    if (sig.entryName.empty())
      fail("the signature has no entry function name");
    checkPrintable(sig.entryName, "the entry function name");
    checkTensorList(sig.inputs, "input");
    checkTensorList(sig.outputs, "output");
    // A functional output needs one address per element, or a kernel's
    // stores would collide (the layout bug Stride exists to prevent).
    for (size_t i = 0; i < sig.outputs.size() && problem.empty(); ++i) {
      const TensorSignature &t = sig.outputs[i];
      if (!checkNonOverlapping(t.shape, t.strides).ok())
        fail("output " + str(i) + " '" + t.name + "' has the overlapping layout " +
             formatDims(t.shape) + " strides " + formatDims(t.strides) +
             "; outputs must give every element its own address");
    }
  }

  void checkImages() {
    if (desc.images.empty() && !desc.kernels.empty())
      fail("the module has kernels but no code image");
    for (size_t i = 0; i < desc.images.size(); ++i) {
      const CodeImage &img = desc.images[i];
      std::string what = "code image " + str(i);
      if (img.kind != CodeKind::Cubin && img.kind != CodeKind::Ptx)
        fail(what + " has an unknown kind (code " +
             str(static_cast<uint8_t>(img.kind)) + ")");
      else if (img.bytes.empty())
        fail(what + " is empty");
      else if (img.kind == CodeKind::Cubin &&
               (img.bytes.size() < 4 ||
                std::memcmp(img.bytes.data(), "\x7f" "ELF", 4) != 0))
        fail(what + " is marked CUBIN but does not start with the ELF magic");
      else if (img.kind == CodeKind::Ptx &&
               std::memchr(img.bytes.data(), 0, img.bytes.size()))
        fail(what + " is marked PTX but contains a NUL byte");
    }
  }

  void checkKernels() {
    for (size_t i = 0; i < desc.kernels.size(); ++i) {
      const KernelDesc &k = desc.kernels[i];
      checkPrintable(k.description, "the description of kernel " + str(i));
      if (!isIdentifier(k.name))
        fail("kernel " + str(i) + " has the name \"" + k.name +
             "\", which is not a C identifier");
      else if (k.imageIndex >= desc.images.size())
        fail("kernel " + str(i) + " '" + k.name + "' refers to code image " +
             str(k.imageIndex) + ", but the module has " +
             str(desc.images.size()) + " images");
    }
  }

  void checkBufferBinding(size_t index, const BufferDesc &b,
                          const std::vector<TensorSignature> &list,
                          const std::string &kind,
                          std::vector<int> &boundCount) {
    std::string what = "buffer " + str(index) + " (" + kind + ")";
    if (b.signatureIndex < 0 || size_t(b.signatureIndex) >= list.size()) {
      fail(what + " refers to " + kind + " " + str(b.signatureIndex) +
           ", but the signature has " + str(list.size()) + " " + kind + "s");
      return;
    }
    const TensorSignature &t = list[b.signatureIndex];
    ++boundCount[b.signatureIndex];
    std::optional<int64_t> needed = storageBytes(t);
    if (needed && b.sizeBytes < *needed)
      fail(what + " has " + str(b.sizeBytes) + " bytes, but " + kind + " '" +
           t.name + "' (" + describeTensor(t) + ") needs " + str(*needed));
  }

  void checkReuseStatistics() {
    if (desc.temporaryBytesBeforeReuse < 0 ||
        desc.temporaryBytesBeforeReuse > kMaxBufferBytes)
      fail("the temporaries' bytes before reuse, " +
           str(desc.temporaryBytesBeforeReuse) + ", are outside [0, 2^48]");
  }

  void checkBuffers() {
    const GraphSignature &sig = desc.signature;
    std::vector<int> inputBound(sig.inputs.size()), outputBound(sig.outputs.size());
    for (size_t i = 0; i < desc.buffers.size(); ++i) {
      const BufferDesc &b = desc.buffers[i];
      std::string what = "buffer " + str(i);
      if (b.sizeBytes < 0 || b.sizeBytes > kMaxBufferBytes) {
        fail(what + " has the size " + str(b.sizeBytes) +
             " bytes, outside [0, 2^48]");
        continue;
      }
      switch (b.kind) {
      case BufferKind::Input:
        checkBufferBinding(i, b, sig.inputs, "input", inputBound);
        break;
      case BufferKind::Output:
        checkBufferBinding(i, b, sig.outputs, "output", outputBound);
        break;
      case BufferKind::Temp:
        if (b.signatureIndex != -1)
          fail(what + " is a temporary but has the signature index " +
               str(b.signatureIndex) + " (expected -1)");
        break;
      default:
        fail(what + " has an unknown kind (code " +
             str(static_cast<uint8_t>(b.kind)) + ")");
      }
    }
    checkEachBoundOnce(inputBound, sig.inputs, "input");
    checkEachBoundOnce(outputBound, sig.outputs, "output");
  }

  void checkEachBoundOnce(const std::vector<int> &bound,
                          const std::vector<TensorSignature> &list,
                          const std::string &kind) {
    for (size_t i = 0; i < bound.size(); ++i)
      if (bound[i] != 1)
        fail(kind + " " + str(i) + " '" + list[i].name + "' is bound to " +
             str(bound[i]) + " buffers (expected exactly 1)");
  }

  void checkDim3(const Dim3 &d, uint32_t maxX, uint32_t maxY, uint32_t maxZ,
                 const std::string &what) {
    if (d.x == 0 || d.y == 0 || d.z == 0)
      fail(what + " (" + str(d.x) + ", " + str(d.y) + ", " + str(d.z) +
           ") has a zero dimension");
    else if (d.x > maxX || d.y > maxY || d.z > maxZ)
      fail(what + " (" + str(d.x) + ", " + str(d.y) + ", " + str(d.z) +
           ") exceeds CUDA's limits (" + str(maxX) + ", " + str(maxY) + ", " +
           str(maxZ) + ")");
  }

  static size_t argBytes(const KernelArg &a) {
    switch (a.kind) {
    case KernelArg::Kind::I32:
    case KernelArg::Kind::F32:
      return 4;
    default:
      return 8;
    }
  }

  void checkArgs(const LaunchDesc &l, const std::string &what) {
    size_t paramBytes = 0;
    for (size_t a = 0; a < l.args.size(); ++a) {
      const KernelArg &arg = l.args[a];
      paramBytes = (paramBytes + argBytes(arg) - 1) / argBytes(arg) * argBytes(arg) +
                   argBytes(arg);
      if (arg.kind == KernelArg::Kind::Buffer &&
          arg.bufferIndex >= desc.buffers.size())
        fail(what + " argument " + str(a) + " refers to buffer " +
             str(arg.bufferIndex) + ", but the module has " +
             str(desc.buffers.size()) + " buffers");
      else if (arg.kind == KernelArg::Kind::I32 &&
               arg.intValue != static_cast<int32_t>(arg.intValue))
        fail(what + " argument " + str(a) + " is an i32 holding " +
             str(arg.intValue) + ", which does not fit in 32 bits");
      else if (static_cast<uint8_t>(arg.kind) >
               static_cast<uint8_t>(KernelArg::Kind::F64))
        fail(what + " argument " + str(a) + " has an unknown kind");
    }
    if (paramBytes > kMaxKernelParamBytes)
      fail(what + " passes " + str(paramBytes) +
           " bytes of parameters, more than CUDA's limit of " +
           str(kMaxKernelParamBytes));
  }

  std::string launchName(size_t i) const {
    return "launch " + str(i + 1) + " of " + str(desc.launches.size());
  }

  void checkLaunches() {
    for (size_t i = 0; i < desc.launches.size(); ++i) {
      const LaunchDesc &l = desc.launches[i];
      std::string what = launchName(i);
      if (l.kernelIndex >= desc.kernels.size()) {
        fail(what + " refers to kernel " + str(l.kernelIndex) +
             ", but the module has " + str(desc.kernels.size()) + " kernels");
        continue;
      }
      what += " (kernel '" + desc.kernels[l.kernelIndex].name + "')";
      checkDim3(l.grid, kMaxGridX, kMaxGridYZ, kMaxGridYZ, what + " grid");
      checkDim3(l.block, kMaxBlockXY, kMaxBlockXY, kMaxBlockZ, what + " block");
      if (l.block.volume() > kMaxThreadsPerBlock)
        fail(what + " block has " + str(l.block.volume()) +
             " threads, more than CUDA's limit of " + str(kMaxThreadsPerBlock));
      if (l.dynamicSharedBytes > kMaxDynamicSharedBytes)
        fail(what + " asks for " + str(l.dynamicSharedBytes) +
             " bytes of dynamic shared memory, more than any GPU has (" +
             str(kMaxDynamicSharedBytes) + ")");
      checkArgs(l, what);
    }
  }
};

//===----------------------------------------------------------------------===//
// describeModule helpers
//===----------------------------------------------------------------------===//

/// "1 input", "2 inputs".
std::string counted(size_t n, const std::string &noun) {
  return str(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string formatDim3(const Dim3 &d) {
  // Appending (rather than "(" + str(...)) avoids a GCC 12 -Wrestrict false
  // positive.
  std::string s = "(";
  s += str(d.x);
  s += ", ";
  s += str(d.y);
  s += ", ";
  s += str(d.z);
  return s + ")";
}

std::string formatDouble(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

std::string describeArg(const KernelArg &a) {
  switch (a.kind) {
  case KernelArg::Kind::Buffer:
    return "buffer " + str(a.bufferIndex);
  case KernelArg::Kind::I32:
    return "i32 " + str(a.intValue);
  case KernelArg::Kind::I64:
    return "i64 " + str(a.intValue);
  case KernelArg::Kind::F32:
    return "f32 " + formatDouble(a.floatValue);
  case KernelArg::Kind::F64:
    return "f64 " + formatDouble(a.floatValue);
  }
  return "?";
}

const char *codeKindName(CodeKind k) {
  switch (k) {
  case CodeKind::Cubin:
    return "CUBIN";
  case CodeKind::Ptx:
    return "PTX";
  }
  return "unknown";
}

/// Name of what a buffer holds, when the index is valid.
std::string bufferRole(const ModuleDesc &desc, const BufferDesc &b) {
  auto named = [&](const std::vector<TensorSignature> &list, const char *kind) {
    std::string s = std::string(kind) + " " + str(b.signatureIndex);
    if (b.signatureIndex >= 0 && size_t(b.signatureIndex) < list.size())
      s += " '" + list[b.signatureIndex].name + "'";
    return s;
  };
  switch (b.kind) {
  case BufferKind::Input:
    return named(desc.signature.inputs, "input");
  case BufferKind::Output:
    return named(desc.signature.outputs, "output");
  case BufferKind::Temp:
    return "temporary";
  }
  return "unknown kind";
}

} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

std::optional<int64_t> storageBytes(const TensorSignature &tensor) {
  if (tensor.strides.size() != tensor.shape.size() || tensor.storageOffset < 0)
    return std::nullopt;
  for (int64_t stride : tensor.strides)
    if (stride < 0)
      return std::nullopt;
  auto numElements = checkedNumElements(tensor.shape);
  if (!numElements)
    return std::nullopt;
  if (*numElements == 0)
    return 0;
  std::optional<int64_t> extent =
      storageExtent(Layout{tensor.shape, tensor.strides, tensor.storageOffset});
  int64_t elementSize = static_cast<int64_t>(dtypeSize(tensor.dtype));
  if (!extent || elementSize == 0 || *extent > kMaxBufferBytes / elementSize)
    return std::nullopt;
  return *extent * elementSize;
}

std::optional<int> parseSmArch(const std::string &arch) {
  if (arch.size() < 5 || arch.size() > 6 || arch.compare(0, 3, "sm_") != 0)
    return std::nullopt;
  int value = 0;
  for (size_t i = 3; i < arch.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(arch[i])))
      return std::nullopt;
    value = value * 10 + (arch[i] - '0');
  }
  return value;
}

Status verifyModule(const ModuleDesc &desc, const std::string &name) {
  return ModuleVerifier(desc, name).run();
}

std::vector<uint8_t> serializeModule(const ModuleDesc &desc) {
  flatbuffers::FlatBufferBuilder b(1024);
  std::vector<flatbuffers::Offset<fb::CodeImage>> images;
  for (const CodeImage &img : desc.images)
    images.push_back(fb::CreateCodeImage(b, static_cast<fb::CodeKind>(img.kind),
                                         b.CreateVector(img.bytes)));
  std::vector<flatbuffers::Offset<fb::Kernel>> kernels;
  for (const KernelDesc &k : desc.kernels)
    kernels.push_back(fb::CreateKernel(b, b.CreateString(k.name), k.imageIndex,
                                       b.CreateString(k.description)));
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  for (const BufferDesc &buf : desc.buffers)
    buffers.push_back(fb::CreateBuffer(b, static_cast<fb::BufferKind>(buf.kind),
                                       buf.signatureIndex, buf.sizeBytes));
  std::vector<flatbuffers::Offset<fb::Launch>> launches;
  for (const LaunchDesc &l : desc.launches)
    launches.push_back(buildLaunch(b, l));
  auto signature = buildSignature(b, desc.signature);
  auto producer = b.CreateString(desc.producer);
  auto targetArch = b.CreateString(desc.targetArch);
  auto imageVector = b.CreateVector(images);
  auto kernelVector = b.CreateVector(kernels);
  auto bufferVector = b.CreateVector(buffers);
  auto launchVector = b.CreateVector(launches);
  auto root = fb::CreateModule(b, desc.formatVersion, producer, targetArch,
                               imageVector, kernelVector, bufferVector,
                               launchVector, signature,
                               desc.temporariesBeforeReuse,
                               desc.temporaryBytesBeforeReuse);
  fb::FinishSizePrefixedModuleBuffer(b, root);
  return std::vector<uint8_t>(b.GetBufferPointer(),
                              b.GetBufferPointer() + b.GetSize());
}

Result<ModuleDesc> parseModule(const uint8_t *data, size_t size,
                               const std::string &name) {
  // FlatBuffers checks alignment relative to the buffer's start; a caller's
  // buffer that is not itself 8-byte aligned is copied to one that is.
  std::vector<uint64_t> aligned;
  if (reinterpret_cast<uintptr_t>(data) % alignof(uint64_t) != 0) {
    aligned.resize((size + sizeof(uint64_t) - 1) / sizeof(uint64_t));
    std::memcpy(aligned.data(), data, size);
    data = reinterpret_cast<const uint8_t *>(aligned.data());
  }
  if (Status header = checkHeader(data, size, name); !header)
    return header.error();
  flatbuffers::Verifier verifier(data, size);
  if (!fb::VerifySizePrefixedModuleBuffer(verifier))
    return makeError(ErrorCode::InvalidModule,
                     name + ": corrupt Stride module: the FlatBuffers verifier "
                            "rejected its contents (an offset, vector or "
                            "string is out of bounds or misaligned)");
  Result<ModuleDesc> desc = convert(*fb::GetSizePrefixedModule(data), name);
  if (!desc)
    return desc;
  if (Status ok = verifyModule(*desc, name); !ok)
    return ok.error();
  return desc;
}

Result<ModuleDesc> readModuleFile(const std::string &path) {
  std::unique_ptr<FILE, int (*)(FILE *)> file(std::fopen(path.c_str(), "rb"),
                                              &std::fclose);
  if (!file)
    return makeError(
        fileErrorCode(errno),
        path + ": cannot open the module file: " + std::strerror(errno));
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), file.get())) > 0)
    bytes.insert(bytes.end(), chunk, chunk + n);
  if (std::ferror(file.get()))
    return makeError(
        fileErrorCode(errno),
        path + ": cannot read the module file: " + std::strerror(errno));
  return parseModule(bytes.data(), bytes.size(), path);
}

Status writeModuleFile(const std::string &path, const ModuleDesc &desc) {
  if (Status ok = verifyModule(desc, path); !ok)
    return makeError(ErrorCode::Internal,
                     "refusing to write an inconsistent module (a bug in its "
                     "producer): " +
                         ok.error().message);
  std::vector<uint8_t> bytes = serializeModule(desc);
  std::unique_ptr<FILE, int (*)(FILE *)> file(std::fopen(path.c_str(), "wb"),
                                              &std::fclose);
  if (!file)
    return makeError(
        fileErrorCode(errno),
        path + ": cannot create the module file: " + std::strerror(errno));
  if (std::fwrite(bytes.data(), 1, bytes.size(), file.get()) != bytes.size())
    return makeError(
        fileErrorCode(errno),
        path + ": cannot write the module file: " + std::strerror(errno));
  if (std::fclose(file.release()) != 0)
    return makeError(
        fileErrorCode(errno),
        path + ": cannot write the module file: " + std::strerror(errno));
  return Status::ok();
}

std::string describeTensor(const TensorSignature &t) {
  return std::string(dtypeName(t.dtype)) + " " + formatDims(t.shape) +
         " strides " + formatDims(t.strides) + " offset " + str(t.storageOffset);
}

namespace {
/// "temporaries: 2 buffers, 2048 bytes (before buffer reuse: 20 buffers,
/// 20480 bytes; 18432 bytes saved)".
void describeTemporaries(std::ostream &os, const ModuleDesc &desc) {
  size_t count = 0;
  int64_t bytes = 0;
  for (const BufferDesc &b : desc.buffers)
    if (b.kind == BufferKind::Temp) {
      ++count;
      bytes += b.sizeBytes;
    }
  os << "temporaries: " << counted(count, "buffer") << ", " << bytes
     << " bytes";
  if (desc.temporariesBeforeReuse != 0)
    os << " (before buffer reuse: "
       << counted(desc.temporariesBeforeReuse, "buffer") << ", "
       << desc.temporaryBytesBeforeReuse << " bytes; "
       << desc.temporaryBytesBeforeReuse - bytes << " bytes saved)";
  os << "\n";
}
} // namespace

std::string describeModule(const ModuleDesc &desc) {
  std::ostringstream os;
  os << "Stride module, format version " << desc.formatVersion
     << ", produced by " << (desc.producer.empty() ? "?" : desc.producer) << "\n";
  os << "target: " << desc.targetArch << "\n";
  const GraphSignature &sig = desc.signature;
  os << "entry: " << sig.entryName << " ("
     << counted(sig.inputs.size(), "input") << ", "
     << counted(sig.outputs.size(), "output") << ")\n";
  for (size_t i = 0; i < sig.inputs.size(); ++i)
    os << "  input " << i << " '" << sig.inputs[i].name
       << "': " << describeTensor(sig.inputs[i]) << "\n";
  for (size_t i = 0; i < sig.outputs.size(); ++i)
    os << "  output " << i << " '" << sig.outputs[i].name
       << "': " << describeTensor(sig.outputs[i]) << "\n";
  os << "code images: " << desc.images.size() << "\n";
  for (size_t i = 0; i < desc.images.size(); ++i)
    os << "  image " << i << ": " << codeKindName(desc.images[i].kind) << ", "
       << desc.images[i].bytes.size() << " bytes\n";
  os << "kernels: " << desc.kernels.size() << "\n";
  for (size_t i = 0; i < desc.kernels.size(); ++i) {
    const KernelDesc &k = desc.kernels[i];
    os << "  kernel " << i << " '" << k.name << "' (image " << k.imageIndex
       << ")";
    if (!k.description.empty())
      os << ": " << k.description;
    os << "\n";
  }
  os << "buffers: " << desc.buffers.size() << "\n";
  for (size_t i = 0; i < desc.buffers.size(); ++i)
    os << "  buffer " << i << ": " << bufferRole(desc, desc.buffers[i]) << ", "
       << desc.buffers[i].sizeBytes << " bytes\n";
  describeTemporaries(os, desc);
  os << "launches: " << desc.launches.size() << "\n";
  for (size_t i = 0; i < desc.launches.size(); ++i) {
    const LaunchDesc &l = desc.launches[i];
    os << "  launch " << i + 1 << " of " << desc.launches.size() << ": kernel "
       << l.kernelIndex;
    if (l.kernelIndex < desc.kernels.size())
      os << " '" << desc.kernels[l.kernelIndex].name << "'";
    os << " grid " << formatDim3(l.grid) << " block " << formatDim3(l.block)
       << " shared " << l.dynamicSharedBytes << " args (";
    for (size_t a = 0; a < l.args.size(); ++a)
      os << (a ? ", " : "") << describeArg(l.args[a]);
    os << ")\n";
  }
  return os.str();
}

} // namespace stride
