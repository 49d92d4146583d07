//===- Generate.cpp - Greedy decoding on the GPU --------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Generate.h"

#include <chrono>
#include <cstring>

namespace stride::generate {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

uint64_t bytesOf(const TensorSignature &t) {
  return uint64_t(storageBytes(t).value_or(0));
}

/// 0, 1, ..., count - 1 as i64 [count]: the prefill's cache_position.
HostArray positions(int64_t count) {
  HostArray a{DType::I64, {count}, std::vector<uint8_t>(size_t(count) * 8)};
  for (int64_t i = 0; i < count; ++i)
    std::memcpy(a.data.data() + 8 * i, &i, 8);
  return a;
}

Result<std::unique_ptr<Invocation>>
createInvocation(Runtime &runtime, const ModuleDesc &desc,
                 const std::string &name, InvocationOptions options) {
  Result<std::shared_ptr<const Executable>> executable =
      Executable::load(runtime, desc, name);
  if (!executable)
    return executable.error();
  return Invocation::create(*executable, std::move(options));
}

} // namespace

DeviceTensor::~DeviceTensor() {
  if (allocator)
    allocator->release(address_, bytes);
}

Status DeviceTensor::allocate(std::shared_ptr<Allocator> from, uint64_t size,
                              const std::string &what) {
  Result<uint64_t> address = from->allocate(size, what);
  if (!address)
    return address.error();
  allocator = std::move(from);
  address_ = *address;
  bytes = size;
  return Status::ok();
}

Result<std::unique_ptr<Generator>>
Generator::create(Runtime &runtime, const Protocol &protocol,
                  int64_t newTokens) {
  std::unique_ptr<Generator> g(new Generator(runtime, protocol, newTokens));
  Result<std::unique_ptr<Invocation>> prefill = createInvocation(
      runtime, protocol.prefill, protocol.prefillName, InvocationOptions{});
  if (!prefill)
    return prefill.error();
  g->prefill = std::move(*prefill);
  InvocationOptions options;
  options.useCudaGraph = true;
  options.shareStatesWith = g->prefill.get();
  Result<std::unique_ptr<Invocation>> decode = createInvocation(
      runtime, protocol.decode, protocol.decodeName, std::move(options));
  if (!decode)
    return decode.error();
  g->decode = std::move(*decode);
  // Both modules run on one stream, so one runs after the other.
  g->stream = g->decode->stream();
  if (Status s = g->allocateBuffers(); !s)
    return s.error();
  return g;
}

Status Generator::allocateBuffers() {
  const Protocol &p = protocol;
  const StepSignature &a = p.prefillStep, &b = p.decodeStep;
  const TensorSignature &token = p.output(b.nextToken);
  struct Buffer {
    DeviceTensor &tensor;
    uint64_t bytes;
    const char *what;
  };
  for (const Buffer &buffer : {
           Buffer{prefillIds, bytesOf(p.prefillInput(a.inputIds)),
                  "the prompt's input_ids"},
           Buffer{prefillPositions, bytesOf(p.prefillInput(a.cachePosition)),
                  "the prompt's cache_position"},
           Buffer{decodeIds, bytesOf(p.decodeInput(b.inputIds)),
                  "the decode step's input_ids"},
           Buffer{decodePositions, bytesOf(p.decodeInput(b.cachePosition)),
                  "the decode step's cache_position"},
           Buffer{logits, bytesOf(p.output(b.logits)), "logits"},
           Buffer{nextToken, bytesOf(token), "next_token"},
           Buffer{nextPosition, bytesOf(p.output(b.nextPosition)),
                  "next_position"},
           Buffer{history, bytesOf(token) * uint64_t(newTokens),
                  "the generated tokens"}})
    if (Status s = allocateZeroed(buffer.tensor, buffer.bytes, buffer.what);
        !s)
      return s;
  return Status::ok();
}

Status Generator::allocateZeroed(DeviceTensor &tensor, uint64_t bytes,
                                 const std::string &what) {
  if (Status s = tensor.allocate(runtime.defaultAllocator(), bytes, what); !s)
    return s;
  // Zeros, not what the memory held before, until a step writes them.
  std::vector<uint8_t> zeros(bytes);
  if (Status s = runtime.copyToDevice(tensor.address(), zeros.data(), bytes,
                                      stream);
      !s)
    return s;
  return runtime.synchronize(stream);
}

Status Generator::upload(const DeviceTensor &buffer, const HostArray &dense,
                         const TensorSignature &tensor) {
  Result<std::vector<uint8_t>> storage =
      packToStorage(dense, tensor, int64_t(bytesOf(tensor)));
  if (!storage)
    return storage.error();
  if (Status s = runtime.copyToDevice(buffer.address(), storage->data(),
                                      storage->size(), stream);
      !s)
    return s;
  // The host storage goes when this returns.
  return runtime.synchronize(stream);
}

Result<HostArray> Generator::download(uint64_t address,
                                      const TensorSignature &tensor) {
  std::vector<uint8_t> storage(bytesOf(tensor));
  if (Status s = runtime.copyToHost(storage.data(), address, storage.size(),
                                    stream);
      !s)
    return s.error();
  if (Status s = runtime.synchronize(stream); !s)
    return s.error();
  return unpackFromStorage(storage.data(), tensor);
}

Status Generator::runStep(Invocation &invocation, const StepSignature &step,
                          const DeviceTensor &ids,
                          const DeviceTensor &positions, int64_t index) {
  std::vector<uint64_t> inputs(2), outputs(3);
  inputs[step.inputIds] = ids.address();
  inputs[step.cachePosition] = positions.address();
  outputs[step.logits] = logits.address();
  outputs[step.nextToken] = nextToken.address();
  outputs[step.nextPosition] = nextPosition.address();
  if (Status s = invocation.runOnDevice(inputs, outputs, stream); !s)
    return s;
  uint64_t bytes = bytesOf(protocol.output(protocol.decodeStep.nextToken));
  return runtime.copyOnDevice(history.address() + uint64_t(index) * bytes,
                              nextToken.address(), bytes, stream);
}

Status Generator::decodeStep(int64_t index) {
  const StepSignature &b = protocol.decodeStep;
  // Storage to storage: Protocol.cpp checked that the layouts agree.
  if (Status s = runtime.copyOnDevice(decodeIds.address(), nextToken.address(),
                                      bytesOf(protocol.decodeInput(b.inputIds)),
                                      stream);
      !s)
    return s;
  if (Status s = runtime.copyOnDevice(
          decodePositions.address(), nextPosition.address(),
          bytesOf(protocol.decodeInput(b.cachePosition)), stream);
      !s)
    return s;
  // The position the device holds, known here without reading it back:
  // where it chooses the step's attention (the staged kernel on short
  // caches, cuDNN on long ones; python-free-docs/decode.md), each choice
  // replays a CUDA graph of its own.
  int64_t position = protocol.prefillStep.tokens + index - 1;
  if (Status s = decode->bindInputValue(b.cachePosition, position); !s)
    return s;
  return runStep(*decode, b, decodeIds, decodePositions, index);
}

Status Generator::checkLogits(const LogitsCheck *check, int64_t step) {
  if (!check)
    return Status::ok();
  Result<HostArray> values =
      download(logits.address(), protocol.output(protocol.decodeStep.logits));
  if (!values)
    return values.error();
  return (*check)(step, *values);
}

Result<HostArray> Generator::tokens() {
  const TensorSignature &token = protocol.output(protocol.decodeStep.nextToken);
  TensorSignature all = token;
  all.shape = {newTokens, protocol.decodeStep.batch, 1};
  all.strides = {int64_t(bytesOf(token) / 8), token.strides[0],
                 token.strides[1]};
  Result<HostArray> steps = download(history.address(), all);
  if (!steps)
    return steps.error();
  // [N, B, 1] -> [B, N].
  int64_t batch = protocol.decodeStep.batch;
  HostArray result{DType::I64, {batch, newTokens},
                   std::vector<uint8_t>(steps->data.size())};
  for (int64_t n = 0; n < newTokens; ++n)
    for (int64_t s = 0; s < batch; ++s)
      std::memcpy(result.data.data() + 8 * (s * newTokens + n),
                  steps->data.data() + 8 * (n * batch + s), 8);
  return result;
}

Result<Generation> Generator::run(const HostArray &prompt,
                                  const LogitsCheck *check) {
  const StepSignature &a = protocol.prefillStep;
  if (Status s = upload(prefillIds, prompt, protocol.prefillInput(a.inputIds));
      !s)
    return s.error();
  if (Status s = upload(prefillPositions, positions(a.tokens),
                        protocol.prefillInput(a.cachePosition));
      !s)
    return s.error();
  // Allocates the prefill's temporaries and the shared states, untimed.
  if (Status s = prefill->resetStates(); !s)
    return s.error();
  Generation g;
  Clock::time_point start = Clock::now();
  if (Status s = runStep(*prefill, a, prefillIds, prefillPositions, 0); !s)
    return s.error();
  if (Status s = runtime.synchronize(stream); !s)
    return s.error();
  g.prefillMs = msSince(start);
  if (Status s = checkLogits(check, 0); !s)
    return s.error();
  for (int64_t step = 1; step < newTokens; ++step) {
    if (step <= 2)
      start = Clock::now();
    if (Status s = decodeStep(step); !s)
      return s.error();
    if (Status s = checkLogits(check, step); !s)
      return s.error();
    if (step != 1)
      continue;
    if (Status s = runtime.synchronize(stream); !s)
      return s.error();
    g.firstDecodeMs = msSince(start);
  }
  if (Status s = runtime.synchronize(stream); !s)
    return s.error();
  if (newTokens > 2) {
    g.decodeMs = msSince(start);
    g.timedSteps = newTokens - 2;
  }
  Result<HostArray> generated = tokens();
  if (!generated)
    return generated.error();
  g.tokens = std::move(*generated);
  return g;
}

Result<HostArray> Generator::readState(const std::string &name) {
  return decode->readState(name);
}

} // namespace stride::generate
