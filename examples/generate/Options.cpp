//===- Options.cpp - stride-generate's command line -----------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Options.h"

#include <charconv>
#include <filesystem>

namespace stride::generate {

namespace {

Error usage(const std::string &message) {
  return makeError(ErrorCode::InvalidArgument,
                   message + " (stride-generate --help lists the options)");
}

/// `text` as an integer in [low, high], or an error naming `option`.
Result<int64_t> parseInteger(const std::string &option, const std::string &text,
                             int64_t low, int64_t high) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < low ||
      value > high)
    return usage(option + " takes an integer from " + std::to_string(low) +
                 " to " + std::to_string(high) + ", got '" + text + "'");
  return value;
}

Result<double> parseTolerance(const std::string &text) {
  try {
    size_t used = 0;
    double value = std::stod(text, &used);
    if (used == text.size() && value >= 0)
      return value;
  } catch (const std::exception &) {
  }
  return usage("--rtol takes a non-negative number, got '" + text + "'");
}

/// Sets the option `arg` from `value`.
Status setOption(Options &o, const std::string &arg, const std::string &value) {
  if (arg == "--prompt")
    o.prompt = value;
  else if (arg == "--expect-tokens")
    o.expectTokens = value;
  else if (arg == "--expect-logits")
    o.expectLogits = value;
  else if (arg == "--expect-states")
    o.expectStates = value;
  else if (arg == "--new-tokens") {
    Result<int64_t> n = parseInteger(arg, value, 1, int64_t(1) << 30);
    if (!n)
      return n.error();
    o.newTokens = *n;
  } else if (arg == "--device") {
    Result<int64_t> n = parseInteger(arg, value, 0, 1023);
    if (!n)
      return n.error();
    o.device = int(*n);
  } else { // --rtol, the last option that takesValue() names
    Result<double> rtol = parseTolerance(value);
    if (!rtol)
      return rtol.error();
    o.rtol = *rtol;
  }
  return Status::ok();
}

bool takesValue(const std::string &arg) {
  for (const char *option : {"--prompt", "--new-tokens", "--expect-tokens",
                             "--expect-logits", "--expect-states", "--rtol",
                             "--device"})
    if (arg == option)
      return true;
  return false;
}

} // namespace

Result<Options> parseOptions(const std::vector<std::string> &args) {
  Options o;
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    if (arg == "--help" || arg == "-h") {
      o.help = true;
      return o;
    }
    if (takesValue(arg)) {
      if (i + 1 == args.size())
        return usage(arg + " needs a value");
      if (Status s = setOption(o, arg, args[++i]); !s)
        return s.error();
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usage("unknown option '" + arg + "'");
    } else {
      files.push_back(arg);
    }
  }
  if (files.size() != 2)
    return usage("expected two modules, PREFILL.stridemod and "
                 "DECODE.stridemod, got " + std::to_string(files.size()) +
                 " file arguments");
  o.prefill = files[0];
  o.decode = files[1];
  if (o.prompt.empty())
    o.prompt =
        (std::filesystem::path(o.prefill).parent_path() / "prompt.npy").string();
  return o;
}

std::string helpText() {
  return R"(usage: stride-generate PREFILL.stridemod DECODE.stridemod [options]

Greedy decoding of a causal language model exported in two modules
(examples/generate/README.md): the prompt through the prefill module, then
one decode step per new token, the decode steps replayed as a CUDA graph
over a KV cache that both modules share.

  --prompt FILE          the prompt, [B, P] int64 (default: prompt.npy beside
                         the prefill module)
  --new-tokens N         tokens to generate, the prefill's included (default
                         32); P + N must fit the KV cache
  --expect-tokens FILE   compare the tokens with FILE, [B, n >= N] int64;
                         exit 1 at the first that differs
  --expect-logits FILE   download each step's logits and compare them with
                         FILE, [n >= N, B, V] float32 (slows the steps down)
  --expect-states DIR    compare the states after the last step with
                         DIR/<state>.npy
  --rtol X               tolerance of the logits and states (default 0.05;
                         relative to max(|expected|, the array's mean
                         magnitude), as stride-run --expect)
  --device N             the CUDA device (default 0)
)";
}

} // namespace stride::generate
