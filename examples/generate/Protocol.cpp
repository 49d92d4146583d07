//===- Protocol.cpp - The modules stride-generate runs --------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Protocol.h"

#include "stride/Support/DType.h"
#include "stride/Support/Layout.h"

#include <algorithm>

namespace stride::generate {

namespace {

std::string quoted(const std::string &s) { return "'" + s + "'"; }

std::string str(int64_t v) { return std::to_string(v); }

/// "'input_ids' i64 [1, 4] strides [4, 1] offset 0, 'cache_position' ...".
std::string listTensors(const std::vector<TensorSignature> &tensors) {
  if (tensors.empty())
    return "none";
  std::string text;
  for (const TensorSignature &t : tensors)
    text += (text.empty() ? "" : ", ") + quoted(t.name) + " " +
            describeTensor(t);
  return text;
}

Error misfit(const std::string &module, const std::string &what) {
  return makeError(ErrorCode::InvalidArgument,
                   module + " does not fit stride-generate's module protocol: " +
                       what +
                       " (examples/generate/README.md describes the prefill "
                       "and decode modules that `stride_export.py decode` "
                       "writes)");
}

/// The index of the tensor called `name` among `tensors` (a module's
/// inputs or outputs, `kind`).
Result<size_t> find(const std::vector<TensorSignature> &tensors,
                    const std::string &name, const std::string &kind,
                    const std::string &module) {
  auto found = std::find_if(tensors.begin(), tensors.end(),
                            [&](const TensorSignature &t) { return t.name == name; });
  if (found == tensors.end())
    return misfit(module, "it has no " + kind + " " + quoted(name) + " (its " +
                              kind + "s: " + listTensors(tensors) + ")");
  return size_t(found - tensors.begin());
}

/// Checks that `t` is i64 of rank `rank` (the caller checks the sizes).
Status checkInteger(const TensorSignature &t, size_t rank,
                    const std::string &expected, const std::string &kind,
                    const std::string &module) {
  if (t.dtype == DType::I64 && t.shape.size() == rank)
    return Status::ok();
  return misfit(module, kind + " " + quoted(t.name) + " is " +
                            describeTensor(t) + ", expected " + expected);
}

Status checkCounts(const GraphSignature &sig, const std::string &module) {
  if (sig.inputs.size() != 2)
    return misfit(module, "it has " + str(int64_t(sig.inputs.size())) +
                              " inputs (" + listTensors(sig.inputs) +
                              "), expected input_ids and cache_position");
  if (sig.outputs.size() != 3)
    return misfit(module, "it has " + str(int64_t(sig.outputs.size())) +
                              " outputs (" + listTensors(sig.outputs) +
                              "), expected logits, next_token and "
                              "next_position");
  for (const TensorSignature &t : sig.inputs)
    if (t.mutated)
      return misfit(module, "it writes its input " + quoted(t.name) +
                                ", which the protocol's modules only read");
  return Status::ok();
}

Status findTensors(const GraphSignature &sig, const std::string &module,
                   StepSignature &step) {
  for (auto [name, index] : {std::pair{"input_ids", &step.inputIds},
                             std::pair{"cache_position", &step.cachePosition}}) {
    Result<size_t> found = find(sig.inputs, name, "input", module);
    if (!found)
      return found.error();
    *index = *found;
  }
  for (auto [name, index] : {std::pair{"logits", &step.logits},
                             std::pair{"next_token", &step.nextToken},
                             std::pair{"next_position", &step.nextPosition}}) {
    Result<size_t> found = find(sig.outputs, name, "output", module);
    if (!found)
      return found.error();
    *index = *found;
  }
  return Status::ok();
}

/// Reads `module`'s step signature: the protocol's tensors, their dtypes
/// and the sizes B, T (tokens per run) and V they agree on.
Result<StepSignature> readStep(const ModuleDesc &desc,
                               const std::string &module) {
  const GraphSignature &sig = desc.signature;
  StepSignature step;
  if (Status s = checkCounts(sig, module); !s)
    return s.error();
  if (Status s = findTensors(sig, module, step); !s)
    return s.error();
  const TensorSignature &ids = sig.inputs[step.inputIds];
  if (Status s = checkInteger(ids, 2, "i64 [B, tokens]", "input", module); !s)
    return s.error();
  step.batch = ids.shape[0];
  step.tokens = ids.shape[1];
  const std::string tokens = "i64 [" + str(step.tokens) + "]";
  const std::string batch = "i64 [" + str(step.batch) + ", 1]";
  const TensorSignature &positions = sig.inputs[step.cachePosition];
  const TensorSignature &token = sig.outputs[step.nextToken];
  const TensorSignature &next = sig.outputs[step.nextPosition];
  if (Status s = checkInteger(positions, 1, tokens, "input", module);
      !s || positions.shape[0] != step.tokens)
    return s ? misfit(module, "input 'cache_position' is " +
                                  describeTensor(positions) + ", expected " +
                                  tokens + " (one position per token)")
             : s.error();
  if (Status s = checkInteger(token, 2, batch, "output", module);
      !s || token.shape != std::vector<int64_t>{step.batch, 1})
    return s ? misfit(module, "output 'next_token' is " +
                                  describeTensor(token) + ", expected " + batch)
             : s.error();
  if (Status s = checkInteger(next, 1, "i64 [1]", "output", module);
      !s || next.shape[0] != 1)
    return s ? misfit(module, "output 'next_position' is " +
                                  describeTensor(next) + ", expected i64 [1]")
             : s.error();
  const TensorSignature &logits = sig.outputs[step.logits];
  if (!isFloat(logits.dtype) || logits.shape.size() != 2 ||
      logits.shape[0] != step.batch)
    return misfit(module, "output 'logits' is " + describeTensor(logits) +
                              ", expected floating-point [" + str(step.batch) +
                              ", V] (the last position's logits)");
  step.vocabulary = logits.shape[1];
  return step;
}

Layout layoutOf(const TensorSignature &t) {
  return Layout{t.shape, t.strides, t.storageOffset};
}

/// Both modules write their outputs into the same buffers: each output
/// must have the same dtype and layout in both.
Status checkSameOutputs(const Protocol &p) {
  for (auto index : {&StepSignature::logits, &StepSignature::nextToken,
                     &StepSignature::nextPosition}) {
    const TensorSignature &a = p.prefill.signature.outputs[p.prefillStep.*index];
    const TensorSignature &b = p.decode.signature.outputs[p.decodeStep.*index];
    if (a.dtype != b.dtype || !sameAddressing(layoutOf(a), layoutOf(b)))
      return misfit(p.decodeName,
                    "output " + quoted(b.name) + " is " + describeTensor(b) +
                        ", but " + describeTensor(a) + " in " + p.prefillName +
                        " (both modules write the same output buffers)");
  }
  return Status::ok();
}

/// The loop copies the decode's next_token into its input_ids and
/// next_position into cache_position, storage to storage.
Status checkFeedback(const Protocol &p) {
  for (auto [output, input] :
       {std::pair{p.decodeStep.nextToken, p.decodeStep.inputIds},
        std::pair{p.decodeStep.nextPosition, p.decodeStep.cachePosition}}) {
    const TensorSignature &out = p.output(output);
    const TensorSignature &in = p.decodeInput(input);
    if (!sameAddressing(layoutOf(out), layoutOf(in)))
      return misfit(p.decodeName,
                    "output " + quoted(out.name) + " is laid out as " +
                        describeTensor(out) + " but input " + quoted(in.name) +
                        " as " + describeTensor(in) +
                        " (each step copies the one into the other on the "
                        "device, storage to storage)");
  }
  return Status::ok();
}

/// The cache's capacity: the largest dim -2 among the decode module's
/// states of rank 3 or more (transformers' static caches are [batch,
/// heads, positions, head_dim]; a sliding window's are shorter).
Status readCapacity(Protocol &p) {
  for (const StateDesc &state : p.decode.states) {
    const std::vector<int64_t> &shape = state.tensor.shape;
    if (shape.size() >= 3 && shape[shape.size() - 2] > p.capacity) {
      p.capacity = shape[shape.size() - 2];
      p.capacityState = state.tensor.name;
    }
  }
  if (p.capacityState.empty())
    return misfit(p.decodeName,
                  "none of its states (" +
                      std::to_string(p.decode.states.size()) +
                      ") has rank 3 or more, so none is a KV cache of "
                      "[batch, heads, positions, head_dim] to read the "
                      "number of positions from");
  return Status::ok();
}

Status checkPair(Protocol &p) {
  const StepSignature &a = p.prefillStep, &b = p.decodeStep;
  if (b.tokens != 1)
    return misfit(p.decodeName, "its input 'input_ids' holds " +
                                    str(b.tokens) +
                                    " tokens per sequence; a decode module "
                                    "runs one ([B, 1])");
  if (a.batch != b.batch)
    return misfit(p.decodeName, "it runs a batch of " + str(b.batch) +
                                    " sequences, but " + p.prefillName +
                                    " one of " + str(a.batch));
  if (Status s = checkSameOutputs(p); !s)
    return s;
  if (Status s = checkFeedback(p); !s)
    return s;
  return readCapacity(p);
}

} // namespace

Result<Protocol> readProtocol(const std::string &prefillPath,
                              const std::string &decodePath) {
  Protocol p;
  p.prefillName = prefillPath;
  p.decodeName = decodePath;
  Result<ModuleDesc> prefill = readModuleFile(prefillPath);
  if (!prefill)
    return prefill.error();
  Result<ModuleDesc> decode = readModuleFile(decodePath);
  if (!decode)
    return decode.error();
  p.prefill = std::move(*prefill);
  p.decode = std::move(*decode);
  Result<StepSignature> prefillStep = readStep(p.prefill, prefillPath);
  if (!prefillStep)
    return prefillStep.error();
  Result<StepSignature> decodeStep = readStep(p.decode, decodePath);
  if (!decodeStep)
    return decodeStep.error();
  p.prefillStep = *prefillStep;
  p.decodeStep = *decodeStep;
  if (Status s = checkPair(p); !s)
    return s.error();
  return p;
}

Status checkPrompt(const Protocol &p, const HostArray &prompt,
                   const std::string &promptPath, int64_t newTokens) {
  const TensorSignature &ids = p.prefillInput(p.prefillStep.inputIds);
  if (Status s = checkArrayMatches(prompt, DType::I64, ids.shape, promptPath,
                                   "input_ids");
      !s)
    return makeError(s.error().code,
                     s.error().message + ": the prompt is " + p.prefillName +
                         "'s input_ids, B sequences of P tokens as it was "
                         "exported");
  int64_t positions = p.prefillStep.tokens;
  if (positions > p.capacity)
    return makeError(ErrorCode::InvalidArgument,
                     promptPath + ": the prompt's " + str(positions) +
                         " tokens do not fit the KV cache of " +
                         str(p.capacity) + " positions (state " +
                         quoted(p.capacityState) + ")");
  if (positions + newTokens > p.capacity)
    return makeError(ErrorCode::InvalidArgument,
                     "the prompt's " + str(positions) + " tokens and " +
                         str(newTokens) + " new ones need " +
                         str(positions + newTokens) +
                         " positions, but the KV cache holds " +
                         str(p.capacity) + " (state " +
                         quoted(p.capacityState) + " of " + p.decodeName +
                         "); ask for at most " + str(p.capacity - positions) +
                         " new tokens, or export with a longer cache");
  return Status::ok();
}

} // namespace stride::generate
