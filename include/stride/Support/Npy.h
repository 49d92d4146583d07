//===- Npy.h - Reading and writing NumPy .npy files -----------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// NumPy `.npy` I/O for the tools that feed inputs to, and dump outputs of,
// Stride graphs. Plain C++ (no MLIR, no LLVM), errors as values.
//
// Reading accepts format versions 1.0, 2.0 and 3.0, little-endian ('<'),
// not-applicable ('|') and native ('=') byte orders, and fortran_order True
// (converted, so returned data is always C order). Writing produces the same
// bytes as `numpy.save` for a C-contiguous array: version 1.0 (2.0 only if
// the header would not fit), header padded to a multiple of 64 bytes.
//
// Supported dtypes and descrs: f16 '<f2', f32 '<f4', f64 '<f8', i1 '|b1'
// (NumPy bool), i8 '|i1', i32 '<i4', i64 '<i8', and bf16 '<V2'.
//
// NumPy has no bfloat16: `numpy.save` of an ml_dtypes bfloat16 array (what
// JAX and PyTorch users hold) writes the descr '<V2', 2-byte raw records
// (jax-ml/ml_dtypes#41), which cannot be told from any other 2-byte record.
// parseNpy reads '<V2' (and '|V2') as bf16 and writeNpyFile writes bf16 as
// '<V2', which ml_dtypes reads back with `.view(ml_dtypes.bfloat16)`;
// checkArrayMatches accepts such data for a bf16 argument only and names
// what it saw for any other. bf16FromFloat rounds f32 data for a bf16
// argument given as an f32 file.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_SUPPORT_NPY_H
#define STRIDE_SUPPORT_NPY_H

#include "stride/Support/DType.h"
#include "stride/Support/Result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stride {

/// A dense, row-major (C order) array on the host. `data` holds
/// numElements() * dtypeSize(dtype) bytes, little-endian.
struct HostArray {
  DType dtype = DType::F32;
  std::vector<int64_t> shape; // empty for a scalar
  std::vector<uint8_t> data;

  /// Product of the dims (1 for a scalar). Assumes a valid shape, as produced
  /// by parseNpy: non-negative dims whose product fits in int64_t.
  int64_t numElements() const;
};

/// Parses the bytes of a whole `.npy` file. `name` (typically the file path)
/// starts every error message.
Result<HostArray> parseNpy(const uint8_t *bytes, size_t size,
                           const std::string &name);

/// Reads and parses a `.npy` file; error messages start with `path`.
Result<HostArray> readNpyFile(const std::string &path);

/// The `.npy` bytes of `a`, identical to what `numpy.save` writes for the
/// same C-contiguous array. Precondition: `a` is writable (see
/// checkNpyWritable); otherwise returns an empty vector, which is never a
/// valid `.npy` file.
std::vector<uint8_t> serializeNpy(const HostArray &a);

/// Checks that `a` can be stored as `.npy` (bf16 as '<V2'): its dims are
/// non-negative and its data size matches its shape. `name` starts the
/// error message.
Status checkNpyWritable(const HostArray &a, const std::string &name);

/// Writes `a` to `path` (checking it with checkNpyWritable first).
Status writeNpyFile(const std::string &path, const HostArray &a);

/// `value` rounded to bf16 to nearest, ties to even; a NaN stays a (quiet)
/// NaN, infinities stay infinite, values beyond bf16's range round to
/// infinity.
uint16_t bf16FromFloat(float value);

/// The f32 value of bf16 `bits` (exact).
float floatFromBf16(uint16_t bits);

/// Checks that an array read from `fileName` fits the graph argument
/// `argName`, e.g. "x.npy: input 'x' expects f32 of shape (4, 13, 33), but
/// the file holds f64 of shape (4, 13)". A bf16 array (read from '<V2') fits
/// only a bf16 argument.
Status checkArrayMatches(const HostArray &a, DType expected,
                         const std::vector<int64_t> &expectedShape,
                         const std::string &fileName,
                         const std::string &argName);

} // namespace stride

#endif // STRIDE_SUPPORT_NPY_H
