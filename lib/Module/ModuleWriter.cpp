//===- ModuleWriter.cpp - Serialize modules -------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// ModuleDesc to a module file: the size-prefixed FlatBuffer of
// StrideModule.fbs, then the data section it refers to, streamed from the
// constants themselves (a file is written only once verifyModule accepts the
// module: an inconsistent one is a bug in its producer).
//
//===----------------------------------------------------------------------===//

#include "stride/Module/Module.h"

#include "ModuleInternal.h"
#include "ModuleSchema.h"
#include "ModuleSymbolsFb.h"

#include <algorithm>

namespace stride {

namespace {

//===----------------------------------------------------------------------===//
// ModuleDesc -> FlatBuffer
//===----------------------------------------------------------------------===//

uint64_t immediateBits(const KernelArg &arg) {
  switch (arg.kind) {
  case KernelArg::Kind::Buffer:
  case KernelArg::Kind::Symbol:
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
buildTensor(PolynomialBuilder &polynomials, flatbuffers::FlatBufferBuilder &b,
            const TensorSignature &t) {
  auto name = b.CreateString(t.name);
  auto shape = b.CreateVector(t.shape);
  auto strides = b.CreateVector(t.strides);
  PolynomialBuilder::TensorFields symbolic = polynomials.build(t.symbolic);
  return fb::CreateTensorSignature(
      b, name, static_cast<fb::ElementType>(t.dtype), shape, strides,
      t.storageOffset, t.mutated, t.aliasOfInput, symbolic.shape,
      symbolic.strides, symbolic.offset);
}

flatbuffers::Offset<fb::Signature>
buildSignature(PolynomialBuilder &polynomials, flatbuffers::FlatBufferBuilder &b,
               const GraphSignature &sig) {
  std::vector<flatbuffers::Offset<fb::TensorSignature>> inputs, outputs;
  for (const TensorSignature &t : sig.inputs)
    inputs.push_back(buildTensor(polynomials, b, t));
  for (const TensorSignature &t : sig.outputs)
    outputs.push_back(buildTensor(polynomials, b, t));
  auto entry = b.CreateString(sig.entryName);
  auto inputVector = b.CreateVector(inputs);
  auto outputVector = b.CreateVector(outputs);
  flatbuffers::Offset<flatbuffers::Vector<uint32_t>> absentVector;
  if (!sig.absentOutputs.empty())
    absentVector = b.CreateVector(sig.absentOutputs);
  return fb::CreateSignature(b, entry, inputVector, outputVector,
                             absentVector);
}

using StepOffset = std::pair<fb::Step, flatbuffers::Offset<void>>;
using BoundsOffset =
    flatbuffers::Offset<flatbuffers::Vector<const fb::SymbolBound *>>;

/// A guard's list; null when empty (the field is absent).
BoundsOffset buildBounds(flatbuffers::FlatBufferBuilder &b,
                         const std::vector<SymbolBound> &bounds) {
  if (bounds.empty())
    return 0;
  std::vector<fb::SymbolBound> out;
  for (const SymbolBound &bound : bounds)
    out.emplace_back(bound.symbol, bound.min, bound.max);
  return b.CreateVectorOfStructs(out);
}

StepOffset buildStep(PolynomialBuilder &polynomials,
                     flatbuffers::FlatBufferBuilder &b, const DispatchStep &d) {
  std::vector<fb::LaunchArg> args;
  for (const KernelArg &a : d.args)
    args.emplace_back(static_cast<fb::ArgKind>(a.kind),
                      a.kind == KernelArg::Kind::Buffer ||
                              a.kind == KernelArg::Kind::Symbol
                          ? a.bufferIndex
                          : 0,
                      immediateBits(a));
  fb::Dim3 grid = toFb(d.grid), block = toFb(d.block);
  auto argVector = b.CreateVectorOfStructs(args);
  auto gridElements = polynomials.buildOptional(d.gridElements);
  BoundsOffset when = buildBounds(b, d.guard.when);
  BoundsOffset unless = buildBounds(b, d.guard.unless);
  return {fb::Step::Dispatch,
          fb::CreateDispatch(b, d.executable, d.kernel, &grid, &block,
                             d.dynamicSharedBytes, argVector,
                             d.dependentLaunch, gridElements, d.gridDivisor,
                             when, unless, d.l2ResidentBuffer,
                             d.l2ResidentBytes)
              .Union()};
}

StepOffset buildStep(PolynomialBuilder &polynomials,
                     flatbuffers::FlatBufferBuilder &b,
                     const LibraryCallStep &call) {
  std::vector<flatbuffers::Offset<fb::DescriptorField>> fields;
  for (const DescriptorField &f : call.descriptor) {
    // One builder call per statement: the order of a call's arguments
    // differs between compilers, and so would the file's bytes.
    auto name = b.CreateString(f.name);
    auto ints = b.CreateVector(f.ints);
    auto text = b.CreateString(f.text);
    auto symbolic = polynomials.buildList(f.symbolicInts);
    fields.push_back(
        fb::CreateDescriptorField(b, name, ints, text, symbolic));
  }
  auto routine = b.CreateString(call.routine);
  auto buffers = b.CreateVector(call.buffers);
  auto descriptor = b.CreateVector(fields);
  BoundsOffset when = buildBounds(b, call.guard.when);
  BoundsOffset unless = buildBounds(b, call.guard.unless);
  return {fb::Step::LibraryCall,
          fb::CreateLibraryCall(b, routine, buffers, descriptor,
                                static_cast<uint8_t>(call.stream), when,
                                unless)
              .Union()};
}

StepOffset buildStep(flatbuffers::FlatBufferBuilder &b, const FillStep &f) {
  return {fb::Step::Fill, fb::CreateFill(b, f.buffer, f.value).Union()};
}

StepOffset buildStep(PolynomialBuilder &polynomials,
                     flatbuffers::FlatBufferBuilder &b, const CopyStep &c) {
  auto size = polynomials.buildOptional(c.symbolicSizeBytes);
  return {fb::Step::Copy,
          fb::CreateCopy(b, c.source, c.target, c.sizeBytes, size).Union()};
}

StepOffset buildStep(flatbuffers::FlatBufferBuilder &b, const EventStep &e) {
  return {fb::Step::Event,
          fb::CreateEvent(b, static_cast<fb::EventAction>(e.action), e.event,
                          static_cast<uint8_t>(e.stream))
              .Union()};
}

flatbuffers::Offset<fb::Executable>
buildExecutable(flatbuffers::FlatBufferBuilder &b, const ExecutableDesc &e) {
  std::vector<flatbuffers::Offset<fb::Kernel>> kernels;
  for (const KernelDesc &k : e.kernels) {
    auto name = b.CreateString(k.name);
    auto description = b.CreateString(k.description);
    kernels.push_back(fb::CreateKernel(b, name, description));
  }
  auto bytes = b.CreateVector(e.image.bytes);
  auto kernelVector = b.CreateVector(kernels);
  return fb::CreateExecutable(
      b, static_cast<fb::ExecutableFormat>(e.image.kind), bytes, kernelVector);
}

/// A range of the data section, or nullptr for no bytes (the field is then
/// absent).
const fb::DataRange *rangeOf(uint64_t offset, uint64_t size,
                             fb::DataRange &storage) {
  if (size == 0)
    return nullptr;
  storage = fb::DataRange(offset, size);
  return &storage;
}

flatbuffers::Offset<fb::Constant>
buildConstant(flatbuffers::FlatBufferBuilder &b, const ConstantDesc &c,
              uint64_t offset) {
  auto shape = b.CreateVector(c.shape);
  auto strides = b.CreateVector(c.strides);
  fb::DataRange range;
  return fb::CreateConstant(b, static_cast<fb::ElementType>(c.dtype), shape,
                            strides, rangeOf(offset, c.data.size(), range));
}

flatbuffers::Offset<fb::State> buildState(PolynomialBuilder &polynomials,
                                          flatbuffers::FlatBufferBuilder &b,
                                          const StateDesc &s,
                                          uint64_t offset) {
  auto tensor = buildTensor(polynomials, b, s.tensor);
  fb::DataRange range;
  return fb::CreateState(b, tensor, rangeOf(offset, s.init.size(), range));
}

uint64_t alignUp(uint64_t offset) {
  return (offset + kModuleDataAlignment - 1) / kModuleDataAlignment *
         kModuleDataAlignment;
}

/// Places the data section: the constants' data in order, then the states'
/// initial values, each at the next multiple of kModuleDataAlignment. Fills
/// in the layout's offsets and dataSectionBytes.
void placeData(const ModuleDesc &desc, ModuleFileLayout &layout) {
  uint64_t end = 0;
  auto place = [&](uint64_t size) -> uint64_t {
    if (size == 0)
      return 0;
    uint64_t at = alignUp(end);
    end = at + size;
    return at;
  };
  for (const ConstantDesc &c : desc.constants)
    layout.constantOffsets.push_back(place(c.data.size()));
  for (const StateDesc &s : desc.states)
    layout.stateOffsets.push_back(place(s.init.size()));
  layout.dataSectionBytes = end;
}

/// Builds the FlatBuffer of `desc`, whose data lies as `layout` places it.
void buildModule(flatbuffers::FlatBufferBuilder &b, const ModuleDesc &desc,
                 const ModuleFileLayout &layout) {
  PolynomialBuilder polynomials(b, desc.symbols);
  std::vector<flatbuffers::Offset<fb::Executable>> executables;
  for (const ExecutableDesc &e : desc.executables)
    executables.push_back(buildExecutable(b, e));
  std::vector<flatbuffers::Offset<fb::Constant>> constants;
  for (size_t i = 0; i < desc.constants.size(); ++i)
    constants.push_back(
        buildConstant(b, desc.constants[i], layout.constantOffsets[i]));
  std::vector<flatbuffers::Offset<fb::State>> states;
  for (size_t i = 0; i < desc.states.size(); ++i)
    states.push_back(
        buildState(polynomials, b, desc.states[i], layout.stateOffsets[i]));
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  for (const BufferDesc &buf : desc.buffers)
    buffers.push_back(fb::CreateBuffer(b, static_cast<fb::BufferKind>(buf.kind),
                                       buf.index, buf.sizeBytes, buf.zeroed,
                                       buf.arenaOffset));
  std::vector<fb::Step> stepKinds;
  std::vector<flatbuffers::Offset<void>> steps;
  for (const Step &step : desc.steps) {
    StepOffset built = std::visit(
        [&](const auto &s) {
          using T = std::decay_t<decltype(s)>;
          if constexpr (std::is_same_v<T, DispatchStep> ||
                        std::is_same_v<T, LibraryCallStep> ||
                        std::is_same_v<T, CopyStep>)
            return buildStep(polynomials, b, s);
          else
            return buildStep(b, s);
        },
        step);
    stepKinds.push_back(built.first);
    steps.push_back(built.second);
  }
  auto signature = buildSignature(polynomials, b, desc.signature);
  auto symbols = polynomials.buildSymbols();
  auto valueBindings = buildValueBindings(b, desc.valueBindings);
  auto producer = b.CreateString(desc.producer);
  auto target = fb::CreateTarget(b, static_cast<fb::Backend>(desc.target.backend),
                                 b.CreateString(desc.target.arch));
  auto executableVector = b.CreateVector(executables);
  auto constantVector = b.CreateVector(constants);
  auto bufferVector = b.CreateVector(buffers);
  auto stepKindVector = b.CreateVector(stepKinds);
  auto stepVector = b.CreateVector(steps);
  auto stateVector = b.CreateVector(states);
  auto root = fb::CreateModule(
      b, desc.formatVersion, producer, target, executableVector,
      constantVector, bufferVector, stepKindVector, stepVector, signature,
      desc.temporariesBeforeReuse, desc.temporaryBytesBeforeReuse,
      desc.deterministic, stateVector, layout.dataSectionBytes, desc.events,
      symbols, valueBindings);
  fb::FinishSizePrefixedModuleBuffer(b, root);
}

/// The layout of `desc`'s file, with its FlatBuffer built in `b`.
ModuleFileLayout layoutAndBuild(const ModuleDesc &desc,
                                flatbuffers::FlatBufferBuilder &b) {
  ModuleFileLayout layout;
  placeData(desc, layout);
  buildModule(b, desc, layout);
  layout.flatBufferBytes = b.GetSize();
  layout.dataSectionOffset = layout.dataSectionBytes == 0
                                 ? layout.flatBufferBytes
                                 : alignUp(layout.flatBufferBytes);
  return layout;
}

/// Hands `size` zero bytes to `sink`.
bool streamZeros(uint64_t size, const ModuleByteSink &sink) {
  static const uint8_t zeros[kModuleDataAlignment] = {};
  for (uint64_t left = size; left > 0;) {
    uint64_t n = std::min<uint64_t>(left, sizeof(zeros));
    if (!sink(zeros, n))
      return false;
    left -= n;
  }
  return true;
}

/// Hands the file of `desc`, whose FlatBuffer `b` holds and whose data lies
/// as `layout` says, to `sink`.
bool streamBuilt(const ModuleDesc &desc, flatbuffers::FlatBufferBuilder &b,
                 const ModuleFileLayout &layout, const ModuleByteSink &sink) {
  if (!sink(b.GetBufferPointer(), b.GetSize()))
    return false;
  uint64_t written = layout.flatBufferBytes;
  auto entry = [&](const SharedBytes &bytes, uint64_t offset) {
    if (bytes.empty())
      return true;
    uint64_t at = layout.dataSectionOffset + offset;
    if (!streamZeros(at - written, sink))
      return false;
    written = at + bytes.size();
    return sink(bytes.data(), bytes.size());
  };
  for (size_t i = 0; i < desc.constants.size(); ++i)
    if (!entry(desc.constants[i].data, layout.constantOffsets[i]))
      return false;
  for (size_t i = 0; i < desc.states.size(); ++i)
    if (!entry(desc.states[i].init, layout.stateOffsets[i]))
      return false;
  return true;
}

} // namespace

ModuleFileLayout moduleFileLayout(const ModuleDesc &desc) {
  flatbuffers::FlatBufferBuilder b(1024);
  return layoutAndBuild(desc, b);
}

bool streamModule(const ModuleDesc &desc, const ModuleByteSink &sink) {
  flatbuffers::FlatBufferBuilder b(1024);
  ModuleFileLayout layout = layoutAndBuild(desc, b);
  return streamBuilt(desc, b, layout, sink);
}

std::vector<uint8_t> serializeModule(const ModuleDesc &desc) {
  flatbuffers::FlatBufferBuilder b(1024);
  ModuleFileLayout layout = layoutAndBuild(desc, b);
  std::vector<uint8_t> bytes;
  bytes.reserve(layout.fileBytes());
  streamBuilt(desc, b, layout, [&](const uint8_t *data, uint64_t size) {
    bytes.insert(bytes.end(), data, data + size);
    return true;
  });
  return bytes;
}

Status writeModuleFile(const std::string &path, const ModuleDesc &desc) {
  if (Status ok = verifyModule(desc, path); !ok)
    return makeError(ErrorCode::Internal,
                     "refusing to write an inconsistent module (a bug in its "
                     "producer): " +
                         ok.error().message);
  return replaceFile(path, [&](int fd) {
    return streamModule(desc, [&](const uint8_t *data, uint64_t size) {
      return writeAll(fd, data, size);
    });
  });
}

} // namespace stride
