//===- Protocol.h - The modules stride-generate runs ------------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The two modules of one causal language model that `stride_export.py
// decode` exports and stridec compiles (README.md, "The module protocol"):
//
//   prefill: input_ids [B, P] i64, cache_position [P] i64
//   decode:  input_ids [B, 1] i64, cache_position [1] i64
//   both:    -> logits [B, V], next_token [B, 1] i64, next_position [1] i64
//            and the same states (the KV cache)
//
// Everything here reads module descriptions only, so each check runs, and
// each error is reported, before a GPU is needed.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_EXAMPLES_GENERATE_PROTOCOL_H
#define STRIDE_EXAMPLES_GENERATE_PROTOCOL_H

#include "stride/Module/Module.h"
#include "stride/Support/Npy.h"

#include <string>

namespace stride::generate {

/// Where one module keeps the tensors of the protocol: indices into its
/// signature's inputs and outputs, and the sizes they agree on.
struct StepSignature {
  size_t inputIds = 0, cachePosition = 0;
  size_t logits = 0, nextToken = 0, nextPosition = 0;
  /// B, the tokens per run (P for the prefill, 1 for the decode), V.
  int64_t batch = 0, tokens = 0, vocabulary = 0;
};

/// The pair of modules, checked against the protocol and each other.
struct Protocol {
  ModuleDesc prefill, decode;
  std::string prefillName, decodeName;
  StepSignature prefillStep, decodeStep;
  /// The positions the KV cache holds and the state that says so.
  int64_t capacity = 0;
  std::string capacityState;

  const TensorSignature &prefillInput(size_t index) const {
    return prefill.signature.inputs[index];
  }
  const TensorSignature &decodeInput(size_t index) const {
    return decode.signature.inputs[index];
  }
  const TensorSignature &output(size_t index) const {
    return decode.signature.outputs[index];
  }
};

/// Reads both module files and checks them: each has the protocol's inputs
/// and outputs (and no others), the decode runs one token, both agree on
/// B, V, the outputs' dtypes and layouts and their states, and the decode
/// module's next_token and next_position are laid out as its input_ids
/// and cache_position (the loop copies one into the other).
Result<Protocol> readProtocol(const std::string &prefillPath,
                              const std::string &decodePath);

/// Checks the prompt ([B, P] i64, as the prefill module was compiled for)
/// and that P + `newTokens` positions fit the cache.
Status checkPrompt(const Protocol &protocol, const HostArray &prompt,
                   const std::string &promptPath, int64_t newTokens);

} // namespace stride::generate

#endif // STRIDE_EXAMPLES_GENERATE_PROTOCOL_H
