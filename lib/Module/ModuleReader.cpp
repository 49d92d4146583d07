//===- ModuleReader.cpp - Parse untrusted module files --------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Module files are untrusted input: a file may be foreign, truncated,
// corrupted or from another release. Parsing therefore goes in layers, and no
// layer reads a byte that an earlier one has not checked:
//   1. size, file identifier (bytes 8..11), and the size prefix, which must
//      place the FlatBuffer's end within the file,
//   2. just enough FlatBuffers verification to read `format_version`,
//   3. the version,
//   4. the full FlatBuffers verifier, over the FlatBuffer only,
//   5. the data section: the file ends exactly where the section it
//      declares does,
//   6. conversion to ModuleDesc (tolerating absent fields), checking every
//      constant's and state's range of the data section,
//   7. verifyModule: the semantic checks the runtime relies on
//      (ModuleVerifier.cpp).
// The data section is never read through a typed pointer: its bytes are
// only copied, or shared with the caller's (a mapped file, ModuleFile.cpp).
//
//===----------------------------------------------------------------------===//

#include "stride/Module/Module.h"

#include "ModuleInternal.h"
#include "ModuleSchema.h"
#include "ModuleSymbolsFb.h"

#include <cstdio>
#include <cstring>
#include <memory>

namespace stride {

using detail::str;

namespace {

//===----------------------------------------------------------------------===//
// FlatBuffer -> ModuleDesc. Runs only on verified buffers; absent fields
// read as empty and are caught by verifyModule.
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

std::string printableBytes(const std::string &s) {
  return printableBytes(reinterpret_cast<const uint8_t *>(s.data()), s.size());
}

/// `v` in decimal (sizes and offsets from the file are unsigned 64-bit).
std::string ustr(uint64_t v) { return std::to_string(v); }

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
  case fb::ArgKind::Symbol:
    if (bits != 0)
      return std::nullopt;
    return KernelArg::symbol(a.buffer());
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
  out.mutated = t->mutated();
  out.aliasOfInput = t->alias_of_input();
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

/// A guard's list (the verifier checks its symbols and ranges).
std::vector<SymbolBound>
boundsOf(const flatbuffers::Vector<const fb::SymbolBound *> *v) {
  std::vector<SymbolBound> out;
  for (const fb::SymbolBound &b : structsOf(v))
    out.push_back(SymbolBound{b.symbol(), b.min(), b.max()});
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
  step.guard = StepGuard{boundsOf(d.when()), boundsOf(d.unless())};
  step.l2ResidentBuffer = d.l2_resident_buffer();
  step.l2ResidentBytes = d.l2_resident_bytes();
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
  step.stream = static_cast<StreamId>(c.stream());
  step.guard = StepGuard{boundsOf(c.when()), boundsOf(c.unless())};
  return step;
}

EventStep fromFb(const fb::Event &e) {
  return EventStep{static_cast<EventStep::Action>(e.action()), e.event(),
                   static_cast<StreamId>(e.stream())};
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
    case fb::Step::Event:
      return Step(fromFb(*static_cast<const fb::Event *>(table)));
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

/// Where the constants' bytes come from: the data section of the file at
/// `file` (`sectionOffset` from its start, `sectionBytes` long), either
/// shared with the caller's bytes (`shared`) or copied out of them.
struct DataSection {
  const uint8_t *file = nullptr;
  uint64_t sectionOffset = 0;
  uint64_t sectionBytes = 0;
  const SharedBytes *shared = nullptr;
  /// Where the entry before the next one ended: entries lie in order.
  uint64_t previousEnd = 0;

  SharedBytes take(uint64_t offset, uint64_t size) const {
    uint64_t at = sectionOffset + offset;
    if (shared)
      return shared->slice(at, size);
    return SharedBytes(std::vector<uint8_t>(file + at, file + at + size));
  }
};

/// What is wrong with a data range of the section `data`, or "" when it lies
/// in the section, aligned, after the entry before it.
std::string rangeProblem(const fb::DataRange &r, const DataSection &data) {
  uint64_t offset = r.offset(), size = r.size();
  if (offset % kModuleDataAlignment != 0)
    return "starts at data section offset " + ustr(offset) +
           ", not a multiple of " + ustr(kModuleDataAlignment);
  if (size > UINT64_MAX - offset)
    return "has " + ustr(size) + " bytes from data section offset " +
           ustr(offset) + ": its end is past 2^64";
  if (offset + size > data.sectionBytes)
    return "has " + ustr(size) + " bytes from data section offset " +
           ustr(offset) + ", past the end of the " + ustr(data.sectionBytes) +
           "-byte data section";
  if (offset < data.previousEnd)
    return "starts at data section offset " + ustr(offset) +
           ", inside the entry before it (which ends at " +
           ustr(data.previousEnd) +
           "): the entries lie in order, constants then states, without "
           "overlapping";
  return "";
}

/// The bytes of `range` (absent or empty: none), after checking it lies in
/// `data`; `what` names the entry in the error.
Result<SharedBytes> entryOf(const fb::DataRange *range, DataSection &data,
                            const std::string &what, const std::string &name) {
  if (!range || range->size() == 0)
    return SharedBytes();
  std::string problem = rangeProblem(*range, data);
  if (!problem.empty())
    return makeError(ErrorCode::InvalidModule,
                     name + ": corrupt Stride module: " + what + " " + problem);
  data.previousEnd = range->offset() + range->size();
  return data.take(range->offset(), range->size());
}

/// Decodes constant `index`, taking its data from `data`.
Result<ConstantDesc> constantOf(const fb::Constant *c, size_t index,
                                DataSection &data, const std::string &name) {
  ConstantDesc out;
  if (!c) {
    out.dtype = static_cast<DType>(kUnknownEnum);
    return out;
  }
  out.dtype = static_cast<DType>(c->dtype());
  out.shape = toVector(c->shape());
  out.strides = toVector(c->strides());
  Result<SharedBytes> bytes =
      entryOf(c->data(), data, "the data of constant " + str(index), name);
  if (!bytes)
    return bytes.error();
  out.data = std::move(*bytes);
  return out;
}

/// Decodes state `index`, taking its initial value from `data`.
Result<StateDesc> stateOf(const fb::State *s, size_t index, DataSection &data,
                          const std::string &name) {
  StateDesc out;
  out.tensor = fromFb(s ? s->tensor() : nullptr);
  std::string what = "the initial value of state " + str(index) + " '" +
                     printableBytes(out.tensor.name) + "'";
  Result<SharedBytes> init =
      entryOf(s ? s->init() : nullptr, data, what, name);
  if (!init)
    return init.error();
  out.init = std::move(*init);
  return out;
}

/// Converts a verified module whose data section is `data`. Fails on
/// encodings that cannot be represented in a ModuleDesc and on data ranges
/// outside the section.
Result<ModuleDesc> convert(const fb::Module &m, DataSection data,
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
          constantOf(c, desc.constants.size(), data, name);
      if (!constant)
        return constant.error();
      desc.constants.push_back(std::move(*constant));
    }
  if (m.states())
    for (const fb::State *s : *m.states()) {
      Result<StateDesc> state = stateOf(s, desc.states.size(), data, name);
      if (!state)
        return state.error();
      desc.states.push_back(std::move(*state));
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
    if (const flatbuffers::Vector<uint32_t> *absent = sig->absent_outputs())
      desc.signature.absentOutputs.assign(absent->begin(), absent->end());
  }
  desc.temporariesBeforeReuse = m.temporaries_before_reuse();
  desc.temporaryBytesBeforeReuse = m.temporary_bytes_before_reuse();
  desc.deterministic = m.deterministic();
  desc.events = m.events();
  if (Status s = decodeSymbolicParts(m, desc, name); !s)
    return s.error();
  return desc;
}

//===----------------------------------------------------------------------===//
// Layered checks of untrusted bytes
//===----------------------------------------------------------------------===//

/// The file starts with a size-prefixed FlatBuffer: a uint32 byte count of
/// the rest of it, then the root offset, then the identifier.
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

/// Checks the identifier and the size prefix of a file of `size` bytes;
/// returns the bytes of its FlatBuffer, size prefix included.
Result<uint64_t> checkHeader(const uint8_t *data, size_t size,
                             const std::string &name) {
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
  flatbuffers::uoffset_t prefix;
  std::memcpy(&prefix, data, sizeof(prefix));
  uint64_t flatBufferBytes = uint64_t(prefix) + kSizePrefixBytes;
  if (flatBufferBytes > size)
    return makeError(ErrorCode::InvalidModule,
                     name + ": truncated Stride module: the file has " +
                         str(size) + " bytes, but its header says its "
                         "FlatBuffer alone has " + ustr(flatBufferBytes));
  if (flatBufferBytes >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return makeError(ErrorCode::InvalidModule,
                     name + ": corrupt Stride module: its header says its "
                            "FlatBuffer has " + ustr(flatBufferBytes) +
                         " bytes, more than FlatBuffers' 2 GiB limit");
  return flatBufferBytes;
}

/// Checks the format version of the FlatBuffer `flatBuffer` (8-byte
/// aligned, `bytes` long).
Status checkVersion(const uint8_t *flatBuffer, uint64_t bytes,
                    const std::string &name) {
  if (!verifyVersionField(flatBuffer, bytes))
    return makeError(ErrorCode::InvalidModule,
                     name + ": corrupt Stride module: the header is damaged");
  uint32_t version = readVersionField(flatBuffer);
  if (version < kOldestModuleFormatVersion || version > kModuleFormatVersion)
    return makeError(
        ErrorCode::Incompatible,
        name + ": module format version " + str(version) +
            " is not supported by this runtime (it reads versions " +
            str(kOldestModuleFormatVersion) + " to " +
            str(kModuleFormatVersion) +
            "); recompile the graph with this release's stridec");
  return Status::ok();
}

/// The data section that the verified module `m`, whose FlatBuffer is
/// `flatBufferBytes` long, declares; the file, `size` bytes, must end
/// exactly where the section does.
Result<DataSection> dataSectionOf(const fb::Module &m, uint64_t flatBufferBytes,
                                  uint64_t size, const std::string &name) {
  DataSection data;
  data.sectionBytes = m.data_section_bytes();
  data.sectionOffset =
      data.sectionBytes == 0
          ? flatBufferBytes
          : (flatBufferBytes + kModuleDataAlignment - 1) /
                kModuleDataAlignment * kModuleDataAlignment;
  std::string section = "a data section of " + ustr(data.sectionBytes) +
                        " bytes from file offset " + ustr(data.sectionOffset);
  if (data.sectionOffset > size || data.sectionBytes > size - data.sectionOffset)
    return makeError(ErrorCode::InvalidModule,
                     name + ": truncated Stride module: the file has " +
                         ustr(size) + " bytes, but it declares " + section);
  if (data.sectionBytes < size - data.sectionOffset)
    return makeError(ErrorCode::InvalidModule,
                     name + ": corrupt Stride module: the file has " +
                         ustr(size) + " bytes, but it declares " + section +
                         ", which ends at byte " +
                         ustr(data.sectionOffset + data.sectionBytes) +
                         " (extra data at the end)");
  return data;
}

/// Parses the module of `size` bytes at `data`; its constants share
/// `shared`'s bytes when it is set (it then holds `data`), else copy them.
Result<ModuleDesc> parse(const uint8_t *data, uint64_t size,
                         const SharedBytes *shared, const std::string &name) {
  Result<uint64_t> flatBufferBytes = checkHeader(data, size, name);
  if (!flatBufferBytes)
    return flatBufferBytes.error();
  // FlatBuffers checks alignment relative to the buffer's start; a
  // FlatBuffer that is not itself 8-byte aligned is copied to one that is
  // (the data section is only ever copied byte-wise).
  const uint8_t *flatBuffer = data;
  std::vector<uint64_t> aligned;
  if (reinterpret_cast<uintptr_t>(data) % alignof(uint64_t) != 0) {
    aligned.resize((*flatBufferBytes + sizeof(uint64_t) - 1) / sizeof(uint64_t));
    std::memcpy(aligned.data(), data, *flatBufferBytes);
    flatBuffer = reinterpret_cast<const uint8_t *>(aligned.data());
  }
  if (Status version = checkVersion(flatBuffer, *flatBufferBytes, name);
      !version)
    return version.error();
  flatbuffers::Verifier verifier(flatBuffer, *flatBufferBytes);
  if (!fb::VerifySizePrefixedModuleBuffer(verifier))
    return makeError(ErrorCode::InvalidModule,
                     name + ": corrupt Stride module: the FlatBuffers verifier "
                            "rejected its contents (an offset, vector or "
                            "string is out of bounds or misaligned)");
  const fb::Module &m = *fb::GetSizePrefixedModule(flatBuffer);
  Result<DataSection> section = dataSectionOf(m, *flatBufferBytes, size, name);
  if (!section)
    return section.error();
  section->file = data;
  section->shared = shared;
  Result<ModuleDesc> desc = convert(m, *section, name);
  if (!desc)
    return desc;
  if (Status ok = verifyModule(*desc, name); !ok)
    return ok.error();
  return desc;
}

} // namespace

Result<ModuleDesc> parseModule(const uint8_t *data, size_t size,
                               const std::string &name) {
  return parse(data, size, nullptr, name);
}

Result<ModuleDesc> parseModule(const SharedBytes &bytes,
                               const std::string &name) {
  return parse(bytes.data(), bytes.size(), &bytes, name);
}

Result<ModuleDesc> readModuleFile(const std::string &path) {
  Result<SharedBytes> bytes = mapModuleFile(path);
  if (!bytes)
    return bytes.error();
  return parseModule(*bytes, path);
}

} // namespace stride
