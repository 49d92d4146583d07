//===- Interpreter.h - The reference interpreter of stride graphs -*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Executes a verified `stride` function on the CPU, op by op, with PyTorch's
// semantics: the oracle that the fusion pass and the CUDA backend are tested
// against. It shares only the IR (and Layout.h) with the code generator.
//
// - Every tensor is a storage plus the Layout of its type. Floating-point
//   storage holds doubles, integer and boolean storage holds int64_t, and
//   every stored value is already rounded (or wrapped) to its element type.
// - Views share their operand's storage and take the result type's layout, so
//   a zero-stride expand reads one element many times and as_strided reads
//   exactly the addresses its type describes.
// - Functional ops allocate a fresh storage of the result layout's extent and
//   write every logical element at its address. Floating-point ops compute in
//   float64 and round once, to nearest even, to the result type.
// - `stride.kernel` runs its body with the same op implementations, then
//   copies each yielded value into a fresh buffer with the kernel result's
//   layout, so a fused graph gives bit-identical results to the unfused one.
//
// Run-time errors (integer division by zero, an index out of range, max/min
// of an empty dim) are returned as an Error naming the op and its location.
// python-free-docs/interpreter.md lists every semantic decision.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_INTERPRETER_INTERPRETER_H
#define STRIDE_INTERPRETER_INTERPRETER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "stride/Support/Npy.h"
#include "stride/Support/Result.h"

#include <string>
#include <vector>

namespace stride {

/// Runs `func` on `inputs` (one dense, C-order array per argument, with the
/// argument's element type and shape) and returns one dense, C-order array
/// per result. A mismatched input gives an Error naming the argument.
Result<std::vector<HostArray>> interpret(mlir::func::FuncOp func,
                                         const std::vector<HostArray> &inputs);

/// An Error naming the first symbolic size of `func` (the interpreter sizes
/// every value's storage from its static shape), or success. Callers that
/// make inputs from the argument types check this first.
Status checkStaticShapes(mlir::func::FuncOp func);

/// Runs a group of ranks together, one function per rank (funcs[r] is rank
/// r's program, inputs[r] its inputs): each rank runs on its own until a
/// collective of a world size above 1, where every rank must stand at a
/// collective of the same kind, attributes and input shape; the collective
/// exchanges the ranks' values (python-free-docs/distributed.md) and the ranks
/// go on. The world size of every collective must be the number of ranks.
/// Returns each rank's results; an Error names the rank, op and location.
Result<std::vector<std::vector<HostArray>>>
interpretRanks(llvm::ArrayRef<mlir::func::FuncOp> funcs,
               const std::vector<std::vector<HostArray>> &inputs);

/// Decodes element `i` of a dense array as a double (integers and booleans
/// converted exactly where representable; f16/bf16 decoded exactly).
double hostArrayElement(const HostArray &a, int64_t i);

/// The shortest text that reads back to `value` in `dtype` ("0.1", "1",
/// "-inf", "nan"; integers in decimal, i1 as "true"/"false").
std::string formatElement(DType dtype, double value);

/// A small array as text, NumPy style: innermost rows on one line each,
/// e.g. "[[1, 2],\n [3, 4]]"; a scalar as its element.
std::string formatHostArray(const HostArray &a);

} // namespace stride

#endif // STRIDE_INTERPRETER_INTERPRETER_H
