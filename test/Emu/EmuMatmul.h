//===- EmuMatmul.h - cublaslt.matmul on the CPU, for stride-emu -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The `cublaslt.matmul` library-call step computed on host buffers as its
// descriptor says (python-free-docs/matmul.md, "The library call": column-major A, B
// and D with transpose flags, leading dimensions, batch strides and
// offsets; an addend C read with D's layout; bias and epilogue), so the emulated plan of a graph with matrix
// products runs the kernels around them on the CPU and the comparison with
// the reference interpreter checks the descriptor the compiler wrote. The
// sums are in double, each element rounded once to the dtype (f64, f32,
// f16 or bf16), as the reference interpreter rounds.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_EMU_EMUMATMUL_H
#define STRIDE_TEST_EMU_EMUMATMUL_H

#include "EmuElements.h"
#include "stride/Module/Module.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace stride::emu {

/// One cublaslt.matmul step on the buffers at `buffers` (an address per
/// buffer of the module); "" or what it cannot emulate.
inline std::string runMatmul(const LibraryCallStep &call,
                             const std::vector<uint8_t *> &buffers) {
  DescriptorFields fields(call.descriptor);
  std::map<std::string, int64_t> &f = fields.ints;
  std::map<std::string, std::string> &text = fields.text;
  std::string dtype = text["dtype"];
  if (!Elements{dtype}.known())
    return "cublaslt.matmul on " + dtype + " is not emulated";
  std::string epilogue = text["epilogue"];
  bool bias = epilogue.find("bias") != std::string::npos;
  bool addend = f.count("offset_c") != 0;
  const std::vector<uint32_t> &b = call.buffers;
  uint8_t *a = buffers[b[0]], *bm = buffers[b[1]],
          *biasData = bias ? buffers[b[2]] : nullptr,
          *c = addend ? buffers[b[2 + bias]] : nullptr,
          *d = buffers[b[2 + bias + addend]];
  // The accumulator (here: double) plus the addend and the bias is rounded
  // to the result type, then the activation applies and rounds again: the
  // reference interpreter's semantics (python-free-docs/matmul.md,
  // "Accuracy"). C may be D (read, then written, element by element).
  const Elements elements{dtype};
  auto load = [&](const uint8_t *base, int64_t i) {
    return elements.load(base, i);
  };
  auto roundToType = [&](double v) { return elements.round(v); };
  auto store = [&](uint8_t *base, int64_t i, double v) {
    elements.store(base, i, v);
  };
  for (int64_t batch = 0; batch < f["batch"]; ++batch)
    for (int64_t i = 0; i < f["m"]; ++i)
      for (int64_t j = 0; j < f["n"]; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < f["k"]; ++l) {
          int64_t ai = f["transa"] ? l + i * f["lda"] : i + l * f["lda"];
          int64_t bi = f["transb"] ? j + l * f["ldb"] : l + j * f["ldb"];
          sum += load(a, f["offset_a"] + batch * f["stride_a"] + ai) *
                 load(bm, f["offset_b"] + batch * f["stride_b"] + bi);
        }
        int64_t at = batch * f["stride_d"] + i + j * f["ldd"];
        if (addend)
          sum += load(c, f["offset_c"] + at);
        if (bias)
          sum += load(biasData, f["offset_bias"] + i);
        sum = roundToType(sum);
        if (epilogue.rfind("relu", 0) == 0)
          sum = sum > 0 || std::isnan(sum) ? sum : 0.0;
        if (epilogue.rfind("gelu", 0) == 0)
          sum = 0.5 * sum *
                (1 + std::tanh(0.79788456080286535588 *
                               (sum + 0.044715 * sum * sum * sum)));
        store(d, f["offset_d"] + at, sum);
      }
  return "";
}

} // namespace stride::emu

#endif // STRIDE_TEST_EMU_EMUMATMUL_H
