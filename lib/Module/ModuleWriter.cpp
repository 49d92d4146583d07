//===- ModuleWriter.cpp - Serialize modules -------------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// ModuleDesc to the size-prefixed FlatBuffer of StrideModule.fbs, and the
// module file written from it (only once verifyModule accepts the module:
// an inconsistent one is a bug in its producer).
//
//===----------------------------------------------------------------------===//

#include "stride/Module/Module.h"

#include "ModuleSchema.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace stride {

namespace {

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
                                   shape, strides, t.storageOffset, t.mutated);
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
  flatbuffers::Offset<flatbuffers::Vector<uint32_t>> absentVector;
  if (!sig.absentOutputs.empty())
    absentVector = b.CreateVector(sig.absentOutputs);
  return fb::CreateSignature(b, entry, inputVector, outputVector,
                             absentVector);
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

flatbuffers::Offset<fb::State> buildState(flatbuffers::FlatBufferBuilder &b,
                                          const StateDesc &s) {
  auto tensor = buildTensor(b, s.tensor);
  b.ForceVectorAlignment(s.init.size(), sizeof(uint8_t), kConstantAlignment);
  auto init = b.CreateVector(s.init);
  return fb::CreateState(b, tensor, init);
}

} // namespace

std::vector<uint8_t> serializeModule(const ModuleDesc &desc) {
  flatbuffers::FlatBufferBuilder b(1024);
  std::vector<flatbuffers::Offset<fb::Executable>> executables;
  for (const ExecutableDesc &e : desc.executables)
    executables.push_back(buildExecutable(b, e));
  std::vector<flatbuffers::Offset<fb::Constant>> constants;
  for (const ConstantDesc &c : desc.constants)
    constants.push_back(buildConstant(b, c));
  std::vector<flatbuffers::Offset<fb::State>> states;
  for (const StateDesc &s : desc.states)
    states.push_back(buildState(b, s));
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
  auto stateVector = b.CreateVector(states);
  auto root = fb::CreateModule(
      b, desc.formatVersion, producer, target, executableVector,
      constantVector, bufferVector, stepKindVector, stepVector, signature,
      desc.temporariesBeforeReuse, desc.temporaryBytesBeforeReuse,
      desc.deterministic, stateVector);
  fb::FinishSizePrefixedModuleBuffer(b, root);
  return std::vector<uint8_t>(b.GetBufferPointer(),
                              b.GetBufferPointer() + b.GetSize());
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

} // namespace stride
