//===- AttentionGraph.cpp - Random attention graphs for the emulator ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Each graph is one stride.attention (and, at times, its
// stride.attention_backward) over the operands a model gives it: query, key
// and value row-major [B, H, S, D] or head views of a [B, S, H, D]
// projection (a permute), key and value heads dividing the query heads
// (grouped-query attention), in f32 (the decomposition), f16 or bf16 (one
// cuDNN call where it takes the head dim, the decomposition where not, and
// Stride's split-KV kernel for a decode step of one query); a boolean
// padding mask [B, Skv] or an additive mask [Sq, Skv] or [B, Sq, Skv]
// broadcast with stride 0, causal or not, scaled by 1/sqrt(D) or another
// factor, with or without the row log-sum-exp. Sizes are odd on purpose
// (1, 5, 33, 37, 70 tokens; head dims 8 to 128, and 20, which cuDNN does not
// take).
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace stride::test {

namespace {

using Value = GraphValue;

class AttentionGraphBuilder : GraphBuilder {
public:
  explicit AttentionGraphBuilder(uint64_t seed) : GraphBuilder(seed) {}

  std::string build();

private:
  /// A view that keeps `from`'s offset.
  Value view(const Value &from, const std::string &op,
             const std::string &attributes, Dims shape, Dims strides) {
    return GraphBuilder::view(from, op, attributes, std::move(shape),
                              std::move(strides), from.offset);
  }
  Value operand(int64_t heads, int64_t tokens);
  Value mask(int64_t queryTokens, int64_t keyTokens);

  std::string dtype;
  int64_t batch = 1, heads = 1, headDim = 8;
  std::vector<Value> results;
};

/// A [B, heads, tokens, D] operand: row-major, or the head view of a
/// [B, tokens, heads, D] projection.
Value AttentionGraphBuilder::operand(int64_t operandHeads, int64_t tokens) {
  if (rng.chance(50))
    return argument({batch, operandHeads, tokens, headDim}, dtype);
  Value stored = argument({batch, tokens, operandHeads, headDim}, dtype);
  Dims perm{0, 2, 1, 3};
  return view(stored, "permute", " dims [0, 2, 1, 3]",
              permuted(stored.shape, perm), permuted(stored.strides, perm));
}

/// A mask [B, H, Sq, Skv] broadcast with stride 0 from a boolean padding
/// mask [B, Skv], an additive [Sq, Skv] or an additive [B, Sq, Skv]; the
/// name is empty for no mask.
Value AttentionGraphBuilder::mask(int64_t queryTokens, int64_t keyTokens) {
  Dims shape{batch, heads, queryTokens, keyTokens};
  switch (rng.below(4)) {
  case 0:
    return {};
  case 1: {
    Value keep = argument({batch, keyTokens}, "i1");
    Value keep4 = view(keep, "view", "", {batch, 1, 1, keyTokens},
                       rowMajor({batch, 1, 1, keyTokens}));
    return view(keep4, "expand", "", shape, {keyTokens, 0, 0, 1});
  }
  case 2: {
    Value bias = argument({queryTokens, keyTokens}, dtype);
    return view(bias, "expand", "", shape, {0, 0, keyTokens, 1});
  }
  default: {
    Value bias = argument({batch, queryTokens, keyTokens}, dtype);
    Value bias4 = view(bias, "view", "", {batch, 1, queryTokens, keyTokens},
                       rowMajor({batch, 1, queryTokens, keyTokens}));
    return view(bias4, "expand", "", shape,
                {queryTokens * keyTokens, 0, keyTokens, 1});
  }
  }
}

std::string AttentionGraphBuilder::build() {
  static const char *dtypes[] = {"f32", "f16", "bf16"};
  static const int64_t kvHeadChoices[] = {1, 2, 3};
  static const int64_t groupChoices[] = {1, 2, 4};
  static const int64_t queryChoices[] = {1, 2, 5, 16, 33, 64};
  static const int64_t keyChoices[] = {1, 5, 16, 37, 64, 70};
  static const int64_t headDimChoices[] = {8, 16, 20, 40, 64, 80, 128};
  dtype = dtypes[rng.below(3)];
  batch = rng.range(1, 2);
  int64_t kvHeads = pick(kvHeadChoices);
  heads = kvHeads * pick(groupChoices);
  int64_t queryTokens = pick(queryChoices), keyTokens = pick(keyChoices);
  headDim = pick(headDimChoices);

  Value q = operand(heads, queryTokens);
  Value k = operand(kvHeads, keyTokens);
  Value v = operand(kvHeads, keyTokens);
  Value m = mask(queryTokens, keyTokens);
  char scale[32];
  std::snprintf(scale, sizeof(scale), "%.17g",
                rng.chance(50) ? 1.0 / std::sqrt(double(headDim)) : 0.25);
  std::string flags = std::string(" scale ") + scale +
                      (rng.chance(30) ? " causal" : "");
  std::string maskOperand = m.name.empty() ? "" : " mask " + m.name;
  std::string maskType = m.name.empty() ? "" : ", " + type(m);

  Dims outShape{batch, heads, queryTokens, headDim};
  Value o{"%o", outShape, rowMajor(outShape), 0, dtype};
  Dims lseShape{batch, heads, queryTokens};
  Value lse{"%lse", lseShape, rowMajor(lseShape), 0, "f32"};
  bool backward = rng.chance(30);
  bool withLse = backward || rng.chance(40);
  std::string operands = q.name + ", " + k.name + ", " + v.name;
  std::string types = type(q) + ", " + type(k) + ", " + type(v);
  body += "  " + o.name + (withLse ? ", " + lse.name : "") +
          " = stride.attention " + operands + maskOperand + flags + " : " +
          types + maskType + " -> " + type(o) +
          (withLse ? ", " + type(lse) : "") + "\n";
  results.push_back(o);
  if (withLse)
    results.push_back(lse);
  if (backward) {
    Value gradOut = argument(outShape, dtype);
    Dims kvShape{batch, kvHeads, keyTokens, headDim};
    Value dq{"%dq", outShape, rowMajor(outShape), 0, dtype};
    Value dk{"%dk", kvShape, rowMajor(kvShape), 0, dtype};
    Value dv{"%dv", kvShape, rowMajor(kvShape), 0, dtype};
    body += "  %dq, %dk, %dv = stride.attention_backward " + gradOut.name +
            ", " + operands + ", %o, %lse" + maskOperand + flags + " : " +
            type(gradOut) + ", " + types + ", " + type(o) + ", " + type(lse) +
            maskType + " -> " + type(dq) + ", " + type(dk) + ", " + type(dv) +
            "\n";
    results.insert(results.end(), {dq, dk, dv});
  }

  return function(results);
}

} // namespace

std::string generateAttentionGraph(uint64_t seed) {
  return AttentionGraphBuilder(seed).build();
}

} // namespace stride::test
