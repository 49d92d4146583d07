//===- Module.cpp - Sizes, archs and arenas of modules --------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The facts about a module that its reader, writer, verifier and describer
// all use: the bytes a tensor's layout spans, the sm_NN arch names, the
// arena's size. The other layers of the format are in ModuleReader.cpp
// (parsing untrusted files), ModuleVerifier.cpp (the semantic checks),
// ModuleWriter.cpp (serializing) and ModuleDescribe.cpp (the readable dump).
//
//===----------------------------------------------------------------------===//

#include "stride/Module/Module.h"

#include "ModuleInternal.h"

#include "stride/Support/Layout.h"

#include <cctype>

namespace stride {

std::string detail::str(int64_t v) { return std::to_string(v); }

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

std::vector<uint32_t> outputSourceBuffers(const ModuleDesc &desc) {
  const GraphSignature &sig = desc.signature;
  std::vector<uint32_t> sources(sig.outputs.size());
  std::vector<uint32_t> inputBuffer(sig.inputs.size());
  for (size_t i = 0; i < desc.buffers.size(); ++i) {
    const BufferDesc &b = desc.buffers[i];
    if (b.kind == BufferKind::Output)
      sources[b.index] = static_cast<uint32_t>(i);
    else if (b.kind == BufferKind::Input)
      inputBuffer[b.index] = static_cast<uint32_t>(i);
  }
  for (size_t o = 0; o < sig.outputs.size(); ++o)
    if (sig.outputs[o].isAlias())
      sources[o] = inputBuffer[sig.outputs[o].aliasOfInput];
  return sources;
}

int64_t ModuleDesc::arenaBytes() const {
  int64_t bytes = 0;
  for (const BufferDesc &b : buffers)
    if (b.inArena())
      bytes = std::max(bytes, b.arenaOffset + b.sizeBytes);
  return bytes;
}

} // namespace stride
