//===- HalfBits.h - f16 and bf16 bits to and from double, for tests --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Round to nearest even from double to f16 and bf16 bits, and back. Shared
// by the emulated kernels (CudaEmulation.h) and the emulated library calls
// (EmuMatmul.h).
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_EMU_HALFBITS_H
#define STRIDE_TEST_EMU_HALFBITS_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace stride_emu {
inline uint16_t doubleToHalfBits(double d) {
  uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  double a = std::fabs(d);
  if (std::isnan(d))
    return sign | 0x7e00;
  if (a >= 65520.0) // rounds to infinity
    return sign | 0x7c00;
  if (a < std::ldexp(1.0, -14)) { // subnormal: multiples of 2^-24
    double q = std::nearbyint(a * std::ldexp(1.0, 24)); // ties to even
    return sign | static_cast<uint16_t>(q);
  }
  int e;
  double m = std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  double q = std::nearbyint(m * 2048.0); // 11 significant bits
  if (q == 2048.0) {
    q = 1024.0;
    ++e;
  }
  int exponent = e - 1 + 15;
  if (exponent >= 31)
    return sign | 0x7c00;
  return sign | static_cast<uint16_t>((exponent << 10) | (static_cast<int>(q) - 1024));
}
inline double halfBitsToDouble(uint16_t h) {
  int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v = exponent == 0    ? std::ldexp(mantissa, -24)
             : exponent == 31 ? (mantissa ? NAN : INFINITY)
                              : std::ldexp(mantissa + 1024, exponent - 25);
  return sign ? -v : v;
}
inline uint16_t doubleToBf16Bits(double d) {
  if (std::isnan(d))
    return std::signbit(d) ? 0xffc0 : 0x7fc0;
  // Round the double to 8 significant bits first, exactly, then take the
  // float's upper half (the value is exactly representable as a float).
  double a = std::fabs(d);
  if (a == 0 || std::isinf(d)) {
    float f = static_cast<float>(d);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return static_cast<uint16_t>(b >> 16);
  }
  int e;
  double m = std::frexp(a, &e);
  int lowest = -133; // smallest bf16 subnormal exponent: 2^-133
  int bits = std::max(0, std::min(8, e - lowest));
  double q = std::ldexp(std::nearbyint(std::ldexp(m, bits)), e - bits);
  if (q > 3.3895313892515355e38) // beyond the largest finite bf16
    q = INFINITY;
  float f = static_cast<float>(std::signbit(d) ? -q : q);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return static_cast<uint16_t>(b >> 16);
}
inline double bf16BitsToDouble(uint16_t h) {
  uint32_t b = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
} // namespace stride_emu

#endif // STRIDE_TEST_EMU_HALFBITS_H
