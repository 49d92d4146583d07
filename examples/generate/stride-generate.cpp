//===- stride-generate.cpp - Greedy decoding with two Stride modules ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Reads and checks everything a run needs (the modules against the
// protocol, the prompt, the expected values) before it opens the GPU, then
// generates and checks (README.md).
//
//===----------------------------------------------------------------------===//

#include "Checks.h"
#include "Options.h"

#include <cstdio>
#include <iostream>
#include <optional>

using namespace stride;
using namespace stride::generate;

namespace {

/// What the checks compare with, read before the GPU runs.
struct Expectations {
  std::optional<HostArray> tokens, logits;
  std::optional<StateValues> states;
};

int fail(const Error &error) {
  std::cerr << "stride-generate: error: " << error.message << "\n";
  return 1;
}

Result<Expectations> readExpectations(const Options &o, const Protocol &p) {
  Expectations e;
  if (!o.expectTokens.empty()) {
    Result<HostArray> tokens = readExpectedTokens(o.expectTokens, p, o.newTokens);
    if (!tokens)
      return tokens.error();
    e.tokens = std::move(*tokens);
  }
  if (!o.expectLogits.empty()) {
    Result<HostArray> logits = readExpectedLogits(o.expectLogits, p, o.newTokens);
    if (!logits)
      return logits.error();
    e.logits = std::move(*logits);
  }
  if (!o.expectStates.empty()) {
    Result<StateValues> states = readExpectedStates(o.expectStates, p);
    if (!states)
      return states.error();
    e.states = std::move(*states);
  }
  return e;
}

void printTokens(const HostArray &tokens) {
  const auto *values = reinterpret_cast<const int64_t *>(tokens.data.data());
  for (int64_t s = 0; s < tokens.shape[0]; ++s) {
    std::cout << "sequence " << s << ":";
    for (int64_t n = 0; n < tokens.shape[1]; ++n)
      std::cout << " " << values[s * tokens.shape[1] + n];
    std::cout << "\n";
  }
}

void printTimes(const Generation &g, const Protocol &p, bool logitsChecked) {
  const char *clock = logitsChecked
                          ? "host clock, logits downloaded after each step"
                          : "host clock around the steps and a synchronization";
  std::printf("prefill: %lld tokens per sequence in %.3f ms (%s)\n",
              (long long)p.prefillStep.tokens, g.prefillMs, clock);
  if (g.timedSteps == 0) {
    std::printf("decode: too few steps to time (--new-tokens 3 or more)\n");
    return;
  }
  double perSecond = double(g.timedSteps) / (g.decodeMs / 1e3);
  std::printf("decode: %lld steps in %.3f ms: %.1f tokens/s per sequence, "
              "%.1f tokens/s for the batch of %lld (%s; one CUDA graph "
              "replayed per step; step 1, which captured it, took %.3f ms "
              "and is not counted)\n",
              (long long)g.timedSteps, g.decodeMs, perSecond,
              perSecond * double(p.decodeStep.batch),
              (long long)p.decodeStep.batch, clock, g.firstDecodeMs);
}

/// Opens the device, generates and checks; the exit status.
int generateOnDevice(const Options &o, const Protocol &p,
                     const HostArray &prompt, const Expectations &e) {
  Result<std::unique_ptr<Runtime>> runtime = Runtime::create(o.device);
  if (!runtime)
    return fail(runtime.error());
  std::cout << p.prefillName << " and " << p.decodeName << " on "
            << (*runtime)->describeDevice() << ": " << p.prefillStep.batch
            << " sequence(s), a prompt of " << p.prefillStep.tokens
            << " tokens, " << o.newTokens << " new tokens, a KV cache of "
            << p.capacity << " positions\n";
  Result<std::unique_ptr<Generator>> generator =
      Generator::create(**runtime, p, o.newTokens);
  if (!generator)
    return fail(generator.error());
  std::optional<LogitsCheck> check;
  if (e.logits)
    check = logitsCheck(*e.logits, o.expectLogits, o.rtol, std::cout);
  Result<Generation> g = (*generator)->run(prompt, check ? &*check : nullptr);
  if (!g)
    return fail(g.error());
  printTokens(g->tokens);
  printTimes(*g, p, e.logits.has_value());
  if (e.tokens) {
    if (Status s = checkTokens(g->tokens, *e.tokens, o.expectTokens); !s)
      return fail(s.error());
    std::cout << "tokens: match " << o.expectTokens << "\n";
  }
  if (e.states)
    if (Status s = checkStates(**generator, *e.states, o.rtol, std::cout); !s)
      return fail(s.error());
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  Result<Options> options = parseOptions(args);
  if (!options)
    return fail(options.error());
  if (options->help) {
    std::cout << helpText();
    return 0;
  }
  const Options &o = *options;
  Result<Protocol> protocol = readProtocol(o.prefill, o.decode);
  if (!protocol)
    return fail(protocol.error());
  Result<HostArray> prompt = readNpyFile(o.prompt);
  if (!prompt)
    return fail(prompt.error());
  if (Status s = checkPrompt(*protocol, *prompt, o.prompt, o.newTokens); !s)
    return fail(s.error());
  Result<Expectations> expectations = readExpectations(o, *protocol);
  if (!expectations)
    return fail(expectations.error());
  return generateOnDevice(o, *protocol, *prompt, *expectations);
}
