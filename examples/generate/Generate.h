//===- Generate.h - Greedy decoding on the GPU ------------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The prefill and decode modules (Protocol.h) run through the C++ API: two
// invocations that share their states (InvocationOptions::shareStatesWith),
// over device buffers the program allocates and binds with runOnDevice.
// Each step's next_token and next_position are copied on the device into
// the next step's input_ids and cache_position, so the host never waits
// for a token; the decode steps replay one CUDA graph, whose addresses
// never change.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_EXAMPLES_GENERATE_GENERATE_H
#define STRIDE_EXAMPLES_GENERATE_GENERATE_H

#include "Protocol.h"

#include "stride/Runtime/Invocation.h"

#include <functional>
#include <memory>

namespace stride::generate {

/// Called with each step's logits ([B, V], dense, the module's dtype),
/// step 0 being the prefill's; an error stops the generation.
using LogitsCheck = std::function<Status(int64_t step, const HostArray &)>;

struct Generation {
  /// [B, N] i64: the generated tokens, the prefill's first.
  HostArray tokens;
  /// Host clock around the prefill's run and a synchronization.
  double prefillMs = 0;
  /// Host clock around decode step 1 (which captures the CUDA graph).
  double firstDecodeMs = 0;
  /// Host clock around decode steps 2 to N - 1 and one synchronization at
  /// their end; `timedSteps` of them.
  double decodeMs = 0;
  int64_t timedSteps = 0;
};

/// Device memory of an Allocator for one tensor, released on destruction.
class DeviceTensor {
public:
  DeviceTensor() = default;
  DeviceTensor(const DeviceTensor &) = delete;
  DeviceTensor &operator=(const DeviceTensor &) = delete;
  ~DeviceTensor();
  Status allocate(std::shared_ptr<Allocator> allocator, uint64_t bytes,
                  const std::string &what);
  uint64_t address() const { return address_; }

private:
  std::shared_ptr<Allocator> allocator;
  uint64_t address_ = 0, bytes = 0;
};

/// The two modules loaded on a device, their invocations (sharing the
/// states) and the buffers they run on.
class Generator {
public:
  /// Loads both modules, creates the invocations (the decode one replays
  /// a CUDA graph and uses the prefill's states) and allocates the buffers
  /// for `newTokens` tokens.
  static Result<std::unique_ptr<Generator>>
  create(Runtime &runtime, const Protocol &protocol, int64_t newTokens);

  /// Resets the states, runs `prompt` ([B, P] i64, checked) through the
  /// prefill module and `newTokens` - 1 decode steps after it. With
  /// `check`, downloads each step's logits after the step and passes them
  /// to it (a synchronization per step, which the timings then include).
  Result<Generation> run(const HostArray &prompt, const LogitsCheck *check);

  /// State `name` now: after run(), after the step that chose the last
  /// token.
  Result<HostArray> readState(const std::string &name);

private:
  Generator(Runtime &runtime, const Protocol &protocol, int64_t newTokens)
      : runtime(runtime), protocol(protocol), newTokens(newTokens) {}
  Status allocateBuffers();
  Status allocateZeroed(DeviceTensor &tensor, uint64_t bytes,
                        const std::string &what);
  Status upload(const DeviceTensor &buffer, const HostArray &dense,
                const TensorSignature &tensor);
  Result<HostArray> download(uint64_t address, const TensorSignature &tensor);
  /// Runs one module over the buffers (the prefill's inputs, or the
  /// decode's), then copies next_token into the tokens' history.
  Status runStep(Invocation &invocation, const StepSignature &step,
                 const DeviceTensor &ids, const DeviceTensor &positions,
                 int64_t index);
  Status decodeStep(int64_t index);
  Status checkLogits(const LogitsCheck *check, int64_t step);
  Result<HostArray> tokens();

  Runtime &runtime;
  const Protocol &protocol;
  int64_t newTokens;
  std::unique_ptr<Invocation> prefill, decode;
  void *stream = nullptr;
  DeviceTensor prefillIds, prefillPositions, decodeIds, decodePositions;
  DeviceTensor logits, nextToken, nextPosition, history;
};

} // namespace stride::generate

#endif // STRIDE_EXAMPLES_GENERATE_GENERATE_H
