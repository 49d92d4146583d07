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

using StepOffset = std::pair<fb::Step, flatbuffers::Offset<void>>;

StepOffset buildStep(flatbuffers::FlatBufferBuilder &b, const DispatchStep &d) {
  std::vector<fb::LaunchArg> args;
  for (const KernelArg &a : d.args)
    args.emplace_back(static_cast<fb::ArgKind>(a.kind),
                      a.kind == KernelArg::Kind::Buffer ? a.bufferIndex : 0,
                      immediateBits(a));
  fb::Dim3 grid = toFb(d.grid), block = toFb(d.block);
  auto argVector = b.CreateVectorOfStructs(args);
  return {fb::Step::Dispatch,
          fb::CreateDispatch(b, d.executable, d.kernel, &grid, &block,
                             d.dynamicSharedBytes, argVector,
                             d.dependentLaunch)
              .Union()};
}

StepOffset buildStep(flatbuffers::FlatBufferBuilder &b,
                     const LibraryCallStep &call) {
  std::vector<flatbuffers::Offset<fb::DescriptorField>> fields;
  for (const DescriptorField &f : call.descriptor)
    fields.push_back(fb::CreateDescriptorField(b, b.CreateString(f.name),
                                               b.CreateVector(f.ints),
                                               b.CreateString(f.text)));
  auto routine = b.CreateString(call.routine);
  auto buffers = b.CreateVector(call.buffers);
  auto descriptor = b.CreateVector(fields);
  return {fb::Step::LibraryCall,
          fb::CreateLibraryCall(b, routine, buffers, descriptor).Union()};
}

StepOffset buildStep(flatbuffers::FlatBufferBuilder &b, const FillStep &f) {
  return {fb::Step::Fill, fb::CreateFill(b, f.buffer, f.value).Union()};
}

StepOffset buildStep(flatbuffers::FlatBufferBuilder &b, const CopyStep &c) {
  return {fb::Step::Copy,
          fb::CreateCopy(b, c.source, c.target, c.sizeBytes).Union()};
}

flatbuffers::Offset<fb::Executable>
buildExecutable(flatbuffers::FlatBufferBuilder &b, const ExecutableDesc &e) {
  std::vector<flatbuffers::Offset<fb::Kernel>> kernels;
  for (const KernelDesc &k : e.kernels)
    kernels.push_back(fb::CreateKernel(b, b.CreateString(k.name),
                                       b.CreateString(k.description)));
  auto bytes = b.CreateVector(e.image.bytes);
  auto kernelVector = b.CreateVector(kernels);
  return fb::CreateExecutable(
      b, static_cast<fb::ExecutableFormat>(e.image.kind), bytes, kernelVector);
}

flatbuffers::Offset<fb::Constant>
buildConstant(flatbuffers::FlatBufferBuilder &b, const ConstantDesc &c) {
  auto shape = b.CreateVector(c.shape);
  auto strides = b.CreateVector(c.strides);
  b.ForceVectorAlignment(c.data.size(), sizeof(uint8_t), kConstantAlignment);
  auto data = b.CreateVector(c.data);
  return fb::CreateConstant(b, static_cast<fb::ElementType>(c.dtype), shape,
                            strides, data);
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

/// Decodes a verified dispatch. Fails only on argument encodings that
/// cannot be represented in a ModuleDesc.
Result<DispatchStep> fromFb(const fb::Dispatch &d, const std::string &where) {
  DispatchStep step;
  step.executable = d.executable();
  step.kernel = d.kernel();
  step.grid = fromFb(d.grid());
  step.block = fromFb(d.block());
  step.dynamicSharedBytes = d.dynamic_shared_bytes();
  step.dependentLaunch = d.dependent_launch();
  for (const fb::LaunchArg &a : structsOf(d.args())) {
    std::optional<KernelArg> arg = fromFb(a);
    if (!arg)
      return makeError(ErrorCode::InvalidModule,
                       where + ": argument " + str(step.args.size()) +
                           " has an unknown encoding");
    step.args.push_back(*arg);
  }
  return step;
}

LibraryCallStep fromFb(const fb::LibraryCall &c) {
  LibraryCallStep step;
  step.routine = toString(c.routine());
  step.buffers = toVector(c.buffers());
  if (c.descriptor())
    for (const fb::DescriptorField *f : *c.descriptor())
      step.descriptor.push_back(
          f ? DescriptorField{toString(f->name()), toVector(f->ints()),
                              toString(f->text())}
            : DescriptorField{});
  return step;
}

/// Decodes step `index` of `m`; a step of a kind this build does not know,
/// or without its table, is an error.
Result<Step> stepOf(const fb::Module &m, size_t index, const std::string &name) {
  std::string where = name + ": corrupt Stride module: step " +
                      str(index + 1) + " of " + str(m.steps()->size());
  if (!m.steps_type() || m.steps_type()->size() != m.steps()->size())
    return makeError(ErrorCode::InvalidModule,
                     where + " has no kind (the step kinds and steps differ "
                             "in number)");
  auto kind = static_cast<fb::Step>(m.steps_type()->Get(index));
  const void *table = m.steps()->Get(index);
  if (table)
    switch (kind) {
    case fb::Step::Dispatch: {
      Result<DispatchStep> d =
          fromFb(*static_cast<const fb::Dispatch *>(table), where);
      if (!d)
        return d.error();
      return Step(std::move(*d));
    }
    case fb::Step::LibraryCall:
      return Step(fromFb(*static_cast<const fb::LibraryCall *>(table)));
    case fb::Step::Fill: {
      auto *f = static_cast<const fb::Fill *>(table);
      return Step(FillStep{f->buffer(), f->value()});
    }
    case fb::Step::Copy: {
      auto *c = static_cast<const fb::Copy *>(table);
      return Step(CopyStep{c->source(), c->target(), c->size_bytes()});
    }
    default:
      break;
    }
  return makeError(ErrorCode::InvalidModule,
                   where + " has an unknown kind (code " +
                       str(static_cast<uint8_t>(kind)) + ")");
}

ExecutableDesc fromFb(const fb::Executable *e) {
  ExecutableDesc out;
  if (!e) {
    out.image.kind = static_cast<CodeKind>(kUnknownEnum);
    return out;
  }
  out.image = {static_cast<CodeKind>(e->format()), toVector(e->bytes())};
  if (e->kernels())
    for (const fb::Kernel *k : *e->kernels())
      out.kernels.push_back(k ? KernelDesc{toString(k->name()),
                                           toString(k->description())}
                              : KernelDesc{});
  return out;
}

/// Decodes constant `index`; its data must start at a multiple of
/// kConstantAlignment from the file's start, `file`.
Result<ConstantDesc> constantOf(const fb::Constant *c, size_t index,
                                const uint8_t *file, const std::string &name) {
  ConstantDesc out;
  if (!c) {
    out.dtype = static_cast<DType>(kUnknownEnum);
    return out;
  }
  out.dtype = static_cast<DType>(c->dtype());
  out.shape = toVector(c->shape());
  out.strides = toVector(c->strides());
  if (const flatbuffers::Vector<uint8_t> *data = c->data()) {
    size_t offset = static_cast<size_t>(data->Data() - file);
    if (offset % kConstantAlignment != 0)
      return makeError(ErrorCode::InvalidModule,
                       name + ": corrupt Stride module: the data of constant " +
                           str(index) + " is at file offset " + str(offset) +
                           ", not a multiple of " + str(kConstantAlignment));
    out.data = toVector(data);
  }
  return out;
}

/// Converts a verified module (`file` is where its bytes start). Fails only
/// on encodings that cannot be represented in a ModuleDesc.
Result<ModuleDesc> convert(const fb::Module &m, const uint8_t *file,
                           const std::string &name) {
  ModuleDesc desc;
  desc.formatVersion = m.format_version();
  desc.producer = toString(m.producer());
  if (const fb::Target *t = m.target())
    desc.target = {static_cast<Backend>(t->backend()), toString(t->arch())};
  else
    desc.target.backend = static_cast<Backend>(kUnknownEnum);
  if (m.executables())
    for (const fb::Executable *e : *m.executables())
      desc.executables.push_back(fromFb(e));
  if (m.constants())
    for (const fb::Constant *c : *m.constants()) {
      Result<ConstantDesc> constant =
          constantOf(c, desc.constants.size(), file, name);
      if (!constant)
        return constant.error();
      desc.constants.push_back(std::move(*constant));
    }
  if (m.buffers())
    for (const fb::Buffer *b : *m.buffers())
      desc.buffers.push_back(
          b ? BufferDesc{static_cast<BufferKind>(b->kind()), b->index(),
                         b->size_bytes(), b->zeroed(), b->arena_offset()}
            : BufferDesc{static_cast<BufferKind>(kUnknownEnum), -1, 0, false});
  if (m.steps())
    for (size_t i = 0; i < m.steps()->size(); ++i) {
      Result<Step> step = stepOf(m, i, name);
      if (!step)
        return step.error();
      desc.steps.push_back(std::move(*step));
    }
  if (const fb::Signature *sig = m.signature()) {
    desc.signature.entryName = toString(sig->entry());
    desc.signature.inputs = fromFb(sig->inputs());
    desc.signature.outputs = fromFb(sig->outputs());
  }
  desc.temporariesBeforeReuse = m.temporaries_before_reuse();
  desc.temporaryBytesBeforeReuse = m.temporary_bytes_before_reuse();
  desc.deterministic = m.deterministic();
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
    checkExecutables();
    checkConstants();
    checkBuffers();
    checkSteps();
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
    if (desc.target.backend != Backend::Cuda)
      fail("the target has an unknown backend (code " +
           str(static_cast<uint8_t>(desc.target.backend)) + ")");
    else if (!parseSmArch(desc.target.arch))
      fail("target arch \"" + desc.target.arch +
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

  void checkImage(const CodeImage &img, const std::string &what) {
    if (img.kind != CodeKind::Cubin && img.kind != CodeKind::Ptx)
      fail(what + " has an unknown format (code " +
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

  void checkExecutables() {
    for (size_t e = 0; e < desc.executables.size(); ++e) {
      const ExecutableDesc &exe = desc.executables[e];
      std::string what = "executable " + str(e);
      checkImage(exe.image, what);
      for (size_t i = 0; i < exe.kernels.size(); ++i) {
        const KernelDesc &k = exe.kernels[i];
        std::string kernel = "kernel " + str(i) + " of " + what;
        checkPrintable(k.description, "the description of " + kernel);
        if (!isIdentifier(k.name))
          fail(kernel + " has the name \"" + k.name +
               "\", which is not a C identifier");
      }
    }
  }

  void checkConstants() {
    for (size_t i = 0; i < desc.constants.size(); ++i) {
      const ConstantDesc &c = desc.constants[i];
      TensorSignature layout{"constant " + str(i), c.dtype, c.shape, c.strides,
                             0};
      if (!checkTensor(layout, "constant " + str(i)))
        return;
      std::optional<int64_t> bytes = storageBytes(layout);
      if (bytes && static_cast<size_t>(*bytes) != c.data.size())
        fail("constant " + str(i) + " (" + describeTensor(layout) + ") has " +
             str(c.data.size()) + " bytes of data, but its layout needs " +
             str(*bytes));
    }
  }

  void checkBufferBinding(size_t index, const BufferDesc &b,
                          const std::vector<TensorSignature> &list,
                          const std::string &kind,
                          std::vector<int> &boundCount) {
    std::string what = "buffer " + str(index) + " (" + kind + ")";
    if (b.index < 0 || size_t(b.index) >= list.size()) {
      fail(what + " refers to " + kind + " " + str(b.index) +
           ", but the signature has " + str(list.size()) + " " + kind + "s");
      return;
    }
    const TensorSignature &t = list[b.index];
    ++boundCount[b.index];
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

  void checkArenaOffset(const std::string &what, const BufferDesc &b) {
    if (b.arenaOffset == -1)
      return;
    if (b.arenaOffset < 0 || b.arenaOffset % kArenaAlignment != 0 ||
        b.arenaOffset > kMaxBufferBytes - b.sizeBytes)
      fail(what + " has the arena offset " + str(b.arenaOffset) +
           ", which is not -1 (none) or a multiple of " +
           str(kArenaAlignment) + " that ends within 2^48 bytes");
    else if (b.zeroed ||
             (b.kind != BufferKind::Temp && b.kind != BufferKind::Output))
      fail(what + " is in the arena but is no temporary or output that "
                  "is not zeroed (only those share the arena)");
  }

  void checkBuffers() {
    const GraphSignature &sig = desc.signature;
    std::vector<int> inputBound(sig.inputs.size()), outputBound(sig.outputs.size());
    std::vector<int> constantBound(desc.constants.size());
    for (size_t i = 0; i < desc.buffers.size(); ++i) {
      const BufferDesc &b = desc.buffers[i];
      std::string what = "buffer " + str(i);
      if (b.sizeBytes < 0 || b.sizeBytes > kMaxBufferBytes) {
        fail(what + " has the size " + str(b.sizeBytes) +
             " bytes, outside [0, 2^48]");
        continue;
      }
      if (b.zeroed && b.kind != BufferKind::Temp)
        fail(what + " is marked zeroed but is no temporary (only the plan's "
                    "own buffers start zeroed)");
      checkArenaOffset(what, b);
      switch (b.kind) {
      case BufferKind::Input:
        checkBufferBinding(i, b, sig.inputs, "input", inputBound);
        break;
      case BufferKind::Output:
        checkBufferBinding(i, b, sig.outputs, "output", outputBound);
        break;
      case BufferKind::Temp:
        if (b.index != -1)
          fail(what + " is a temporary but has the index " + str(b.index) +
               " (expected -1)");
        break;
      case BufferKind::Constant:
        checkConstantBinding(i, b, constantBound);
        break;
      default:
        fail(what + " has an unknown kind (code " +
             str(static_cast<uint8_t>(b.kind)) + ")");
      }
    }
    checkEachBoundOnce(inputBound, sig.inputs, "input");
    checkEachBoundOnce(outputBound, sig.outputs, "output");
    for (size_t i = 0; i < constantBound.size(); ++i)
      if (constantBound[i] != 1)
        fail("constant " + str(i) + " is bound to " + str(constantBound[i]) +
             " buffers (expected exactly 1)");
  }

  void checkConstantBinding(size_t index, const BufferDesc &b,
                            std::vector<int> &boundCount) {
    std::string what = "buffer " + str(index) + " (constant)";
    if (b.index < 0 || size_t(b.index) >= desc.constants.size()) {
      fail(what + " refers to constant " + str(b.index) +
           ", but the module has " + str(desc.constants.size()) +
           " constants");
      return;
    }
    ++boundCount[b.index];
    size_t needed = desc.constants[b.index].data.size();
    if (static_cast<uint64_t>(b.sizeBytes) < needed)
      fail(what + " has " + str(b.sizeBytes) + " bytes, but constant " +
           str(b.index) + " has " + str(needed));
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

  void checkArgs(const DispatchStep &d, const std::string &what) {
    size_t paramBytes = 0;
    for (size_t a = 0; a < d.args.size(); ++a) {
      const KernelArg &arg = d.args[a];
      paramBytes = (paramBytes + argBytes(arg) - 1) / argBytes(arg) * argBytes(arg) +
                   argBytes(arg);
      if (arg.kind == KernelArg::Kind::Buffer)
        checkBufferIndex(arg.bufferIndex, what + " argument " + str(a));
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

  bool checkBufferIndex(uint32_t buffer, const std::string &what) {
    if (buffer < desc.buffers.size())
      return true;
    return fail(what + " refers to buffer " + str(buffer) +
                ", but the module has " + str(desc.buffers.size()) +
                " buffers");
  }

  /// The steps may write only buffers the plan owns: temporaries and outputs.
  void checkWritable(uint32_t buffer, const std::string &what) {
    if (!checkBufferIndex(buffer, what))
      return;
    BufferKind kind = desc.buffers[buffer].kind;
    if (kind != BufferKind::Temp && kind != BufferKind::Output)
      fail(what + " writes buffer " + str(buffer) +
           ", which is an input or a constant");
  }

  std::string stepName(size_t i) const {
    return "step " + str(i + 1) + " of " + str(desc.steps.size());
  }

  void checkStep(const DispatchStep &d, const std::string &step) {
    if (d.executable >= desc.executables.size()) {
      fail(step + " dispatches from executable " + str(d.executable) +
           ", but the module has " + str(desc.executables.size()) +
           " executables");
      return;
    }
    const ExecutableDesc &exe = desc.executables[d.executable];
    if (d.kernel >= exe.kernels.size()) {
      fail(step + " dispatches kernel " + str(d.kernel) + " of executable " +
           str(d.executable) + ", which has " + str(exe.kernels.size()) +
           " kernels");
      return;
    }
    std::string what = step + " (kernel '" + exe.kernels[d.kernel].name + "')";
    checkDim3(d.grid, kMaxGridX, kMaxGridYZ, kMaxGridYZ, what + " grid");
    checkDim3(d.block, kMaxBlockXY, kMaxBlockXY, kMaxBlockZ, what + " block");
    if (d.block.volume() > kMaxThreadsPerBlock)
      fail(what + " block has " + str(d.block.volume()) +
           " threads, more than CUDA's limit of " + str(kMaxThreadsPerBlock));
    if (d.dynamicSharedBytes > kMaxDynamicSharedBytes)
      fail(what + " asks for " + str(d.dynamicSharedBytes) +
           " bytes of dynamic shared memory, more than any GPU has (" +
           str(kMaxDynamicSharedBytes) + ")");
    if (d.dependentLaunch && !supportsDependentLaunch(desc.target.arch))
      fail(what + " is a dependent launch, which needs sm_90 or later, but "
                  "the module's target is " +
           desc.target.arch);
    checkArgs(d, what);
  }

  void checkStep(const LibraryCallStep &call, const std::string &step) {
    size_t dot = call.routine.find('.');
    if (dot == 0 || dot == std::string::npos || dot + 1 == call.routine.size() ||
        !isIdentifier(call.routine.substr(0, dot)) ||
        !isIdentifier(call.routine.substr(dot + 1)))
      fail(step + " calls the routine \"" + call.routine +
           "\", which is not of the form library.routine");
    for (size_t i = 0; i < call.buffers.size(); ++i)
      checkBufferIndex(call.buffers[i], step + " buffer " + str(i));
    for (const DescriptorField &f : call.descriptor) {
      if (!isIdentifier(f.name))
        fail(step + " has the descriptor field \"" + f.name +
             "\", which is not an identifier");
      checkPrintable(f.text, step + " descriptor field '" + f.name + "'");
    }
  }

  void checkStep(const FillStep &f, const std::string &step) {
    checkWritable(f.buffer, step + " (fill)");
  }

  void checkStep(const CopyStep &c, const std::string &step) {
    std::string what = step + " (copy)";
    if (!checkBufferIndex(c.source, what))
      return;
    checkWritable(c.target, what);
    if (c.target >= desc.buffers.size())
      return;
    if (c.source == c.target)
      fail(what + " copies buffer " + str(c.source) + " onto itself");
    int64_t limit = std::min(desc.buffers[c.source].sizeBytes,
                             desc.buffers[c.target].sizeBytes);
    if (c.sizeBytes < 0 || c.sizeBytes > limit)
      fail(what + " copies " + str(c.sizeBytes) + " bytes, outside [0, " +
           str(limit) + "] (the smaller buffer's size)");
  }

  void checkSteps() {
    for (size_t i = 0; i < desc.steps.size() && problem.empty(); ++i)
      std::visit([&](const auto &step) { checkStep(step, stepName(i)); },
                 desc.steps[i]);
  }
};

//===----------------------------------------------------------------------===//
// describeModule helpers
//===----------------------------------------------------------------------===//

/// "1 input", "2 inputs".
std::string counted(size_t n, const std::string &noun) {
  return str(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string counted(size_t n, const std::string &noun,
                    const std::string &plural) {
  return str(n) + " " + (n == 1 ? noun : plural);
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
    std::string s = std::string(kind) + " " + str(b.index);
    if (b.index >= 0 && size_t(b.index) < list.size())
      s += " '" + list[b.index].name + "'";
    return s;
  };
  switch (b.kind) {
  case BufferKind::Input:
    return named(desc.signature.inputs, "input");
  case BufferKind::Output:
    return named(desc.signature.outputs, "output");
  case BufferKind::Temp:
    return b.zeroed ? "temporary, zeroed" : "temporary";
  case BufferKind::Constant:
    return "constant " + str(b.index);
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

bool supportsDependentLaunch(const std::string &arch) {
  std::optional<int> sm = parseSmArch(arch);
  return sm && *sm >= 90;
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
  std::vector<flatbuffers::Offset<fb::Executable>> executables;
  for (const ExecutableDesc &e : desc.executables)
    executables.push_back(buildExecutable(b, e));
  std::vector<flatbuffers::Offset<fb::Constant>> constants;
  for (const ConstantDesc &c : desc.constants)
    constants.push_back(buildConstant(b, c));
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  for (const BufferDesc &buf : desc.buffers)
    buffers.push_back(fb::CreateBuffer(b, static_cast<fb::BufferKind>(buf.kind),
                                       buf.index, buf.sizeBytes, buf.zeroed,
                                       buf.arenaOffset));
  std::vector<fb::Step> stepKinds;
  std::vector<flatbuffers::Offset<void>> steps;
  for (const Step &step : desc.steps) {
    StepOffset built =
        std::visit([&](const auto &s) { return buildStep(b, s); }, step);
    stepKinds.push_back(built.first);
    steps.push_back(built.second);
  }
  auto signature = buildSignature(b, desc.signature);
  auto producer = b.CreateString(desc.producer);
  auto target = fb::CreateTarget(b, static_cast<fb::Backend>(desc.target.backend),
                                 b.CreateString(desc.target.arch));
  auto executableVector = b.CreateVector(executables);
  auto constantVector = b.CreateVector(constants);
  auto bufferVector = b.CreateVector(buffers);
  auto stepKindVector = b.CreateVector(stepKinds);
  auto stepVector = b.CreateVector(steps);
  auto root = fb::CreateModule(
      b, desc.formatVersion, producer, target, executableVector,
      constantVector, bufferVector, stepKindVector, stepVector, signature,
      desc.temporariesBeforeReuse, desc.temporaryBytesBeforeReuse,
      desc.deterministic);
  fb::FinishSizePrefixedModuleBuffer(b, root);
  return std::vector<uint8_t>(b.GetBufferPointer(),
                              b.GetBufferPointer() + b.GetSize());
}

int64_t ModuleDesc::arenaBytes() const {
  int64_t bytes = 0;
  for (const BufferDesc &b : buffers)
    if (b.inArena())
      bytes = std::max(bytes, b.arenaOffset + b.sizeBytes);
  return bytes;
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
  Result<ModuleDesc> desc =
      convert(*fb::GetSizePrefixedModule(data), data, name);
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
void describeExecutables(std::ostream &os, const ModuleDesc &desc) {
  os << "executables: " << desc.executables.size() << "\n";
  for (size_t e = 0; e < desc.executables.size(); ++e) {
    const ExecutableDesc &exe = desc.executables[e];
    os << "  executable " << e << ": " << codeKindName(exe.image.kind) << ", "
       << exe.image.bytes.size() << " bytes, "
       << counted(exe.kernels.size(), "kernel") << "\n";
    for (size_t i = 0; i < exe.kernels.size(); ++i) {
      os << "    kernel " << i << " '" << exe.kernels[i].name << "'";
      if (!exe.kernels[i].description.empty())
        os << ": " << exe.kernels[i].description;
      os << "\n";
    }
  }
}

/// Constants are summarized: layout and size, never the data.
void describeConstants(std::ostream &os, const ModuleDesc &desc) {
  size_t bytes = 0;
  for (const ConstantDesc &c : desc.constants)
    bytes += c.data.size();
  os << "constants: " << desc.constants.size() << " (" << bytes
     << " bytes)\n";
  for (size_t i = 0; i < desc.constants.size(); ++i) {
    const ConstantDesc &c = desc.constants[i];
    os << "  constant " << i << ": "
       << describeTensor({"", c.dtype, c.shape, c.strides, 0}) << ", "
       << c.data.size() << " bytes\n";
  }
}

void describeStep(std::ostream &os, const ModuleDesc &desc,
                  const DispatchStep &d) {
  os << "dispatch kernel " << d.kernel;
  if (d.executable < desc.executables.size() &&
      d.kernel < desc.executables[d.executable].kernels.size())
    os << " '" << desc.executables[d.executable].kernels[d.kernel].name << "'";
  os << " of executable " << d.executable << " grid " << formatDim3(d.grid)
     << " block " << formatDim3(d.block) << " shared " << d.dynamicSharedBytes
     << " args (";
  for (size_t a = 0; a < d.args.size(); ++a)
    os << (a ? ", " : "") << describeArg(d.args[a]);
  os << ")";
  if (d.dependentLaunch)
    os << " dependent";
}

void describeStep(std::ostream &os, const ModuleDesc &,
                  const LibraryCallStep &call) {
  os << "library call '" << call.routine << "' buffers (";
  for (size_t i = 0; i < call.buffers.size(); ++i)
    os << (i ? ", " : "") << call.buffers[i];
  os << ") descriptor {";
  for (size_t i = 0; i < call.descriptor.size(); ++i) {
    const DescriptorField &f = call.descriptor[i];
    os << (i ? ", " : "") << f.name << " = ";
    if (!f.text.empty() || f.ints.empty())
      os << "\"" << f.text << "\"";
    else
      os << formatDims(f.ints);
  }
  os << "}";
}

void describeStep(std::ostream &os, const ModuleDesc &, const FillStep &f) {
  os << "fill buffer " << f.buffer << " with byte " << int(f.value);
}

void describeStep(std::ostream &os, const ModuleDesc &, const CopyStep &c) {
  os << "copy " << c.sizeBytes << " bytes from buffer " << c.source
     << " to buffer " << c.target;
}

/// "temporaries: 20 buffers, 20480 bytes" and, when buffers share an arena,
/// "arena: 4096 bytes for 20 temporaries and 1 output of 22528 bytes
/// (18432 bytes saved)". A module without an arena (from an older stridec)
/// says what buffer reuse started from, when it recorded it.
void describeTemporaries(std::ostream &os, const ModuleDesc &desc) {
  size_t count = 0, inArena = 0, outputsInArena = 0;
  int64_t bytes = 0, arenaMembersBytes = 0;
  for (const BufferDesc &b : desc.buffers) {
    if (b.kind == BufferKind::Temp) {
      ++count;
      bytes += b.sizeBytes;
    }
    if (b.inArena()) {
      ++inArena;
      outputsInArena += b.kind == BufferKind::Output;
      arenaMembersBytes += b.sizeBytes;
    }
  }
  os << "temporaries: " << counted(count, "buffer") << ", " << bytes
     << " bytes";
  if (inArena == 0 && desc.temporariesBeforeReuse != 0)
    os << " (before buffer reuse: "
       << counted(desc.temporariesBeforeReuse, "buffer") << ", "
       << desc.temporaryBytesBeforeReuse << " bytes; "
       << desc.temporaryBytesBeforeReuse - bytes << " bytes saved)";
  os << "\n";
  if (inArena == 0)
    return;
  int64_t arena = desc.arenaBytes();
  int64_t saved = arenaMembersBytes - arena;
  os << "arena: " << arena << " bytes for "
     << counted(inArena - outputsInArena, "temporary", "temporaries")
     << " and " << counted(outputsInArena, "output") << " of "
     << arenaMembersBytes << " bytes ("
     << (saved >= 0 ? str(saved) + " bytes saved"
                    : str(-saved) + " bytes of alignment")
     << ")\n";
}
} // namespace

const char *stepKindName(StepKind kind) {
  switch (kind) {
  case StepKind::Kernel:
    return "kernel";
  case StepKind::LibraryCall:
    return "library call";
  case StepKind::Copy:
    return "copy";
  case StepKind::Fill:
    return "fill";
  }
  return "?";
}

namespace {
/// "cublaslt.matmul f32 m=768 n=8192 k=3072 batch=1 epilogue=gelu_bias",
/// "cudnn.sdpa_forward bf16 b=2 h=12/12 s=128/128 d=64/64 causal".
std::string summarizeLibraryCall(const LibraryCallStep &call) {
  auto field = [&](const char *name) -> const DescriptorField * {
    for (const DescriptorField &f : call.descriptor)
      if (f.name == name)
        return &f;
    return nullptr;
  };
  std::string s = call.routine;
  if (const DescriptorField *dtype = field("dtype"))
    s += " " + dtype->text;
  for (const char *name : {"m", "n", "k", "batch"})
    if (const DescriptorField *f = field(name); f && f->ints.size() == 1)
      s += std::string(" ") + name + "=" + str(f->ints[0]);
  if (const DescriptorField *epilogue = field("epilogue");
      epilogue && epilogue->text != "default")
    s += " epilogue=" + epilogue->text;
  // Attention (python-free-docs/attention.md): dims [b, h_q, h_kv, s_q,
  // s_kv, d_qk, d_v].
  if (const DescriptorField *dims = field("dims"); dims && dims->ints.size() == 7) {
    const std::vector<int64_t> &d = dims->ints;
    s += " b=" + str(d[0]) + " h=" + str(d[1]) + "/" + str(d[2]) +
         " s=" + str(d[3]) + "/" + str(d[4]) + " d=" + str(d[5]) + "/" +
         str(d[6]);
  }
  for (const char *flag : {"causal", "bias"})
    if (const DescriptorField *f = field(flag);
        f && f->ints.size() == 1 && f->ints[0] == 1)
      s += std::string(" ") + flag;
  return s;
}
} // namespace

StepSummary summarizeStep(const ModuleDesc &desc, size_t index) {
  const Step &step = desc.steps[index];
  if (const auto *d = std::get_if<DispatchStep>(&step))
    return {StepKind::Kernel,
            desc.executables[d->executable].kernels[d->kernel].name};
  if (const auto *call = std::get_if<LibraryCallStep>(&step))
    return {StepKind::LibraryCall, summarizeLibraryCall(*call)};
  if (const auto *c = std::get_if<CopyStep>(&step))
    return {StepKind::Copy, str(c->sizeBytes) + " bytes"};
  const auto &f = std::get<FillStep>(step);
  return {StepKind::Fill, str(desc.buffers[f.buffer].sizeBytes) + " bytes"};
}

MemorySummary summarizeMemory(const ModuleDesc &desc) {
  MemorySummary m;
  m.arenaBytes = desc.arenaBytes();
  for (const BufferDesc &b : desc.buffers) {
    if (b.inArena())
      continue;
    switch (b.kind) {
    case BufferKind::Constant:
      m.constantBytes += b.sizeBytes;
      break;
    case BufferKind::Temp:
      m.temporaryBytes += b.sizeBytes;
      break;
    case BufferKind::Input:
      m.inputBytes += b.sizeBytes;
      break;
    case BufferKind::Output:
      m.outputBytes += b.sizeBytes;
      break;
    }
  }
  return m;
}

std::string describeModule(const ModuleDesc &desc) {
  std::ostringstream os;
  os << "Stride module, format version " << desc.formatVersion
     << ", produced by " << (desc.producer.empty() ? "?" : desc.producer) << "\n";
  os << "target: "
     << (desc.target.backend == Backend::Cuda ? "CUDA " : "unknown backend ")
     << desc.target.arch << "\n";
  if (desc.deterministic)
    os << "deterministic: float index_add sums in source order (stridec "
          "--deterministic)\n";
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
  describeExecutables(os, desc);
  describeConstants(os, desc);
  os << "buffers: " << desc.buffers.size() << "\n";
  for (size_t i = 0; i < desc.buffers.size(); ++i)
    os << "  buffer " << i << ": " << bufferRole(desc, desc.buffers[i]) << ", "
       << desc.buffers[i].sizeBytes << " bytes"
       << (desc.buffers[i].inArena()
               ? " at arena " + str(desc.buffers[i].arenaOffset)
               : std::string())
       << "\n";
  describeTemporaries(os, desc);
  os << "steps: " << desc.steps.size() << "\n";
  for (size_t i = 0; i < desc.steps.size(); ++i) {
    os << "  step " << i + 1 << " of " << desc.steps.size() << ": ";
    std::visit([&](const auto &step) { describeStep(os, desc, step); },
               desc.steps[i]);
    os << "\n";
  }
  return os.str();
}

} // namespace stride
