//===- Compare.cpp - Comparing arrays against expected values ------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace stride {
namespace {

double halfToDouble(uint16_t h) {
  int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double value;
  if (exponent == 0)
    value = std::ldexp(mantissa, -24);
  else if (exponent == 31)
    value = mantissa ? NAN : INFINITY;
  else
    value = std::ldexp(mantissa + 1024, exponent - 25);
  return sign ? -value : value;
}

template <typename T> T load(const HostArray &a, int64_t i) {
  T v;
  std::memcpy(&v, a.data.data() + i * sizeof(T), sizeof(T));
  return v;
}

int64_t elementAsInt(const HostArray &a, int64_t i) {
  switch (a.dtype) {
  case DType::I1: return a.data[i] != 0;
  case DType::I8: return load<int8_t>(a, i);
  case DType::I32: return load<int32_t>(a, i);
  case DType::I64: return load<int64_t>(a, i);
  default: return static_cast<int64_t>(elementAsDouble(a, i));
  }
}

std::string indexText(const std::vector<int64_t> &shape, int64_t linear) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? linear % shape[d] : 0;
    linear = shape[d] ? linear / shape[d] : 0;
  }
  std::string s = "[";
  for (size_t d = 0; d < index.size(); ++d)
    s += (d ? ", " : "") + std::to_string(index[d]);
  return s + "]";
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t d = 0; d < shape.size(); ++d)
    s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + "]";
}

std::string number(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

} // namespace

double elementAsDouble(const HostArray &a, int64_t i) {
  switch (a.dtype) {
  case DType::F16: return halfToDouble(load<uint16_t>(a, i));
  case DType::BF16: return floatFromBf16(load<uint16_t>(a, i));
  case DType::F32: return load<float>(a, i);
  case DType::F64: return load<double>(a, i);
  default: return static_cast<double>(elementAsInt(a, i));
  }
}

Comparison compareArrays(const HostArray &actual, const HostArray &expected,
                         double rtol, double atol) {
  Comparison c;
  if (actual.dtype != expected.dtype || actual.shape != expected.shape) {
    c.ok = false;
    c.mismatches = 1;
    c.firstMismatch = "got " + std::string(dtypeName(actual.dtype)) + " " +
                      shapeText(actual.shape) + ", expected " +
                      std::string(dtypeName(expected.dtype)) + " " +
                      shapeText(expected.shape);
    return c;
  }
  int64_t n = expected.numElements();
  auto describe = [&](int64_t i, const std::string &got,
                      const std::string &want) {
    return "element " + indexText(expected.shape, i) + ": got " + got +
           ", expected " + want;
  };
  auto mismatch = [&](int64_t i, const std::string &got,
                      const std::string &want) {
    if (c.mismatches++ == 0)
      c.firstMismatch = describe(i, got, want);
    c.ok = false;
  };
  if (!isFloat(expected.dtype)) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t a = elementAsInt(actual, i), e = elementAsInt(expected, i);
      if (a != e)
        mismatch(i, std::to_string(a), std::to_string(e));
    }
    return c;
  }
  double meanAbs = 0;
  int64_t finite = 0;
  for (int64_t i = 0; i < n; ++i) {
    double e = elementAsDouble(expected, i);
    if (std::isfinite(e)) {
      meanAbs += std::fabs(e);
      ++finite;
    }
  }
  meanAbs = finite ? meanAbs / finite : 0;
  for (int64_t i = 0; i < n; ++i) {
    double a = elementAsDouble(actual, i), e = elementAsDouble(expected, i);
    if (std::isnan(e) || std::isnan(a)) {
      if (std::isnan(e) != std::isnan(a))
        mismatch(i, number(a), number(e));
      continue;
    }
    if (std::isinf(e) || std::isinf(a)) {
      if (a != e)
        mismatch(i, number(a), number(e));
      continue;
    }
    double diff = std::fabs(a - e);
    if (diff == 0)
      continue;
    double scale = std::max(std::fabs(e), meanAbs);
    double rel = scale > 0 ? diff / scale : INFINITY;
    c.maxAbsoluteError = std::max(c.maxAbsoluteError, diff);
    if (rel > c.maxRelativeError || c.worstElement.empty())
      c.worstElement = describe(i, number(a), number(e));
    c.maxRelativeError = std::max(c.maxRelativeError, rel);
    if (diff > atol && (rtol == 0 || rel > rtol))
      mismatch(i, number(a), number(e));
  }
  return c;
}

std::string describeComparison(const std::string &name, const Comparison &c) {
  char line[256];
  std::snprintf(line, sizeof(line), "%s: %s (max relative error %.3g)",
                name.c_str(), c.ok ? "match" : "MISMATCH", c.maxRelativeError);
  std::string text = line;
  if (!c.ok)
    text += ", " + std::to_string(c.mismatches) + " element" +
            (c.mismatches == 1 ? "" : "s") + " differ; first: " +
            c.firstMismatch;
  return text;
}

HostArray widenForNpy(const HostArray &a) {
  if (a.dtype != DType::BF16)
    return a;
  HostArray out;
  out.dtype = DType::F32;
  out.shape = a.shape;
  int64_t n = a.numElements();
  out.data.resize(n * 4);
  for (int64_t i = 0; i < n; ++i) {
    float f = static_cast<float>(elementAsDouble(a, i));
    std::memcpy(out.data.data() + i * 4, &f, 4);
  }
  return out;
}

HostArray narrowFromNpy(const HostArray &a, DType dtype) {
  if (dtype != DType::BF16 || a.dtype != DType::F32)
    return a;
  HostArray out;
  out.dtype = DType::BF16;
  out.shape = a.shape;
  int64_t n = a.numElements();
  out.data.resize(n * 2);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t b = bf16FromFloat(load<float>(a, i));
    std::memcpy(out.data.data() + i * 2, &b, 2);
  }
  return out;
}

std::optional<Bf16Output> parseBf16Output(const std::string &text) {
  if (text == "f32")
    return Bf16Output::F32;
  if (text == "raw")
    return Bf16Output::Raw;
  return std::nullopt;
}

HostArray encodeForNpy(const HostArray &a, Bf16Output bf16) {
  return bf16 == Bf16Output::Raw ? a : widenForNpy(a);
}

Result<HostArray> readInputNpy(const std::string &path, DType dtype,
                               const std::optional<std::vector<int64_t>> &shape,
                               const std::string &name) {
  Result<HostArray> array = readNpyFile(path);
  if (!array)
    return array;
  *array = narrowFromNpy(*array, dtype);
  if (Status s = checkArrayMatches(*array, dtype, shape.value_or(array->shape),
                                   path, name);
      !s)
    return s.error();
  return array;
}

} // namespace stride
