//===- DecodeAttention.h - Decode steps the staged kernel takes -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The one home of which `stride.attention` ops the CUDA backend's staged
// decode attention (schemes staged_kv_attention and, on the tensor cores,
// staged_kv_mma_attention; python-free-docs/attention.md, "Decode
// attention") takes: stride-schedule-kernels gives them one of those
// schemes where CudaTargetOptions::stagedKvAttention asks for it (stridec
// --decode-attention=staged) or the op is marked stride.staged_kv (the
// variant stride-attention-library makes, selected at run time from the
// input its valid length is read from: validLengthInput).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_DIALECTS_STRIDE_ANALYSIS_DECODEATTENTION_H
#define STRIDE_DIALECTS_STRIDE_ANALYSIS_DECODEATTENTION_H

#include "dialects/stride/IR/StrideOps.h"

#include <cstdint>
#include <optional>

namespace stride {

/// The staged kernel's most units (batch x key/value heads x query rows):
/// each takes kStagedKvSlices blocks, and beyond this many the blocks
/// outnumber two a multiprocessor of an H200 (bench/NOTES.md section 78
/// measured its probe at 8 units; at 64, batch 8, it was slower than
/// cuDNN at position 4000).
constexpr int64_t kMaxStagedKvUnits = 16;
/// ... the most query heads a unit holds times the value head dim: each of
/// its 128 threads accumulates at most 4 groups of 4 value dims.
constexpr int64_t kMaxStagedKvRowElements = 2048;
/// ... and the largest head dims (a chunk of 64 keys' and values' rows in
/// shared memory, two chunks in flight).
constexpr int64_t kMaxStagedKvHeadDim = 256;

/// Whether `type` (a [b, h, s, d] key or value) is read `width` elements
/// per aligned load along its head dim: the head dim a multiple of it and
/// contiguous, the offset and the other strides (of dims of size > 1)
/// multiples of it.
bool readsRowVectorsOf(StridedTensorType type, int64_t width);

/// Whether the staged decode attention takes `op`: a decode step over a
/// static KV cache (a kv_length, no other mask, not causal, no
/// logsumexp), f16 or bf16 keys and values whose rows start 16 bytes
/// apart (readsRowVectorsOf 8 elements), head dims that are multiples of
/// 8 up to kMaxStagedKvHeadDim, static sizes, at most kMaxStagedKvUnits
/// units and kMaxStagedKvRowElements of a unit's results.
bool stagedDecodeTakes(AttentionOp op);

/// The input a decode step's valid key count is read from: `op`'s
/// kv_length is the value of function argument `argument` (one i32 or
/// i64: transformers' `cache_position`) plus `offset`, clamped (the count
/// stride-fold-index-masks builds, `clamp(position + 1, 0, keys)`).
struct ValidLengthInput {
  unsigned argument = 0;
  int64_t offset = 0;
};

/// `op`'s ValidLengthInput, traced from its kv_length back to a function
/// argument of one element through views, integer casts, and additions
/// of, maxima and minima with `stride.full` constants; nullopt where the
/// count is computed otherwise (or `op` has none).
std::optional<ValidLengthInput> validLengthInput(AttentionOp op);

} // namespace stride

#endif // STRIDE_DIALECTS_STRIDE_ANALYSIS_DECODEATTENTION_H
