//===- DType.h - Element types shared by compiler, runtime and I/O -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The element types a Stride tensor can hold. This header is plain C++ (no
// MLIR, no LLVM) so that the runtime, the module format and the `.npy` reader
// can share it with the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_SUPPORT_DTYPE_H
#define STRIDE_SUPPORT_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace stride {

enum class DType : uint8_t { F16, BF16, F32, F64, I1, I8, I32, I64 };

/// Size of one element in bytes (i1 is stored as one byte, like NumPy bool).
constexpr size_t dtypeSize(DType t) {
  switch (t) {
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::I1:
  case DType::I8:
    return 1;
  }
  return 0;
}

constexpr bool isFloat(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 ||
         t == DType::F64;
}

/// The MLIR spelling: "f16", "bf16", "f32", "f64", "i1", "i8", "i32", "i64".
constexpr std::string_view dtypeName(DType t) {
  switch (t) {
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::F32: return "f32";
  case DType::F64: return "f64";
  case DType::I1: return "i1";
  case DType::I8: return "i8";
  case DType::I32: return "i32";
  case DType::I64: return "i64";
  }
  return "?";
}

inline std::optional<DType> parseDType(std::string_view name) {
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::F64, DType::I1,
                  DType::I8, DType::I32, DType::I64})
    if (dtypeName(t) == name)
      return t;
  return std::nullopt;
}

} // namespace stride

#endif // STRIDE_SUPPORT_DTYPE_H
