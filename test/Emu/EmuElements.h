//===- EmuElements.h - Elements of a dtype in host buffers -----*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What the emulated library calls (EmuMatmul.h, EmuAttention.h) share:
// reading and writing element i of a host buffer holding f64, f32, f16 or
// bf16 values (named as a library-call descriptor names them), as double,
// and rounding a double to the dtype as the reference interpreter rounds.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_EMU_EMUELEMENTS_H
#define STRIDE_TEST_EMU_EMUELEMENTS_H

#include "HalfBits.h"

#include "stride/Module/Module.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace stride::emu {

/// A library call's descriptor: its one-integer fields and its text fields
/// by name.
struct DescriptorFields {
  std::map<std::string, int64_t> ints;
  std::map<std::string, std::string> text;

  explicit DescriptorFields(const std::vector<DescriptorField> &fields) {
    for (const DescriptorField &field : fields) {
      if (field.ints.size() == 1)
        ints[field.name] = field.ints[0];
      else
        text[field.name] = field.text;
    }
  }
};

/// Elements of one descriptor dtype ("f64", "f32", "f16", "bf16").
struct Elements {
  std::string dtype;

  bool known() const {
    return dtype == "f64" || dtype == "f32" || dtype == "f16" ||
           dtype == "bf16";
  }

  double load(const uint8_t *base, int64_t i) const {
    if (dtype == "f64") {
      double v;
      std::memcpy(&v, base + i * 8, 8);
      return v;
    }
    if (dtype == "f32") {
      float v;
      std::memcpy(&v, base + i * 4, 4);
      return v;
    }
    uint16_t h;
    std::memcpy(&h, base + i * 2, 2);
    return dtype == "f16" ? stride_emu::halfBitsToDouble(h)
                          : stride_emu::bf16BitsToDouble(h);
  }

  double round(double v) const {
    if (dtype == "f64")
      return v;
    if (dtype == "f32")
      return float(v);
    return dtype == "f16"
               ? stride_emu::halfBitsToDouble(stride_emu::doubleToHalfBits(v))
               : stride_emu::bf16BitsToDouble(stride_emu::doubleToBf16Bits(v));
  }

  void store(uint8_t *base, int64_t i, double v) const {
    if (dtype == "f64") {
      std::memcpy(base + i * 8, &v, 8);
      return;
    }
    if (dtype == "f32") {
      float x = float(v);
      std::memcpy(base + i * 4, &x, 4);
      return;
    }
    uint16_t h = dtype == "f16" ? stride_emu::doubleToHalfBits(v)
                                : stride_emu::doubleToBf16Bits(v);
    std::memcpy(base + i * 2, &h, 2);
  }
};

} // namespace stride::emu

#endif // STRIDE_TEST_EMU_EMUELEMENTS_H
