//===- ModuleSymbols.h - A module's symbols bound at run time ----*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A module with symbolic sizes (format versions 7 and 8,
// python-free-docs/symbolic-sizes.md, "At run time") runs at every value of
// its symbols: each run binds the symbols from the inputs' shapes, checks
// them against their ranges, and runs the module instantiated at those
// values, a static module whose grids, copy sizes, size arguments,
// library-call descriptors and signature are evaluated. Buffers and the
// arena are the module's own, sized for every symbol's largest value, so
// an instance needs no new allocation. Plain C++: the runtime and stride-emu share it.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_MODULE_MODULESYMBOLS_H
#define STRIDE_MODULE_MODULESYMBOLS_H

#include "stride/Module/Module.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stride {

/// The value of every symbol of `desc`, bound from `inputShapes` (one per
/// signature input, in order): a dim whose size is one symbol binds it, and
/// every other symbolic dim must equal its size there. Refused
/// (InvalidArgument) with the input, its dim and the symbol: a value outside
/// the symbol's range ("input 'x' dim 0 is 2048; symbol 'batch' takes 1 to
/// 1024"), a symbol bound twice to different values, a dim of another size
/// than its expression's value, an input of another rank.
Result<SymbolValues>
bindModuleSymbols(const ModuleDesc &desc,
                  const std::vector<std::vector<int64_t>> &inputShapes);

/// Whether `name` is a symbol of `desc` bound from an input's value
/// (ModuleDesc::valueBindings), which no size names.
bool isValueSymbol(const ModuleDesc &desc, const std::string &name);

/// Binds in `values` each symbol of `desc` bound from an input's value,
/// from `inputValues` (by signature input; nullopt, or past its end, where
/// the value is unknown). Values at which every step guard over the symbol
/// holds or fails alike bind alike (the smallest of them), so that an
/// invocation captures a CUDA graph per set of steps that run, not per
/// value. An unknown value, or one outside the symbol's range, binds one
/// below the range, where no guard over it holds (the `unless` steps run).
/// bindModuleSymbols binds them so, as unknown.
void bindValueSymbols(const ModuleDesc &desc,
                      const std::vector<std::optional<int64_t>> &inputValues,
                      SymbolValues &values);

/// `desc` at `values` (bindModuleSymbols): no symbols; each symbolic layout,
/// grid, copy size, size argument and library-call descriptor entry
/// evaluated (a grid empty there is one
/// block, whose loops over the sizes run no iteration). Buffers and step
/// indices are unchanged. `desc` without symbols is returned as it is.
/// With `withCode` false the executables keep their kernels but not their
/// images (a runtime that loaded them needs only the plan).
ModuleDesc instantiateModule(const ModuleDesc &desc, const SymbolValues &values,
                             bool withCode = true);

/// The guard of a dispatch or library call; null for the other steps,
/// which run always.
const StepGuard *guardOf(const Step &step);

/// Whether `step` of `desc` runs at `values` (its guard, StepGuard), which
/// bind every symbol of `desc`.
bool stepRuns(const Step &step, const ModuleDesc &desc,
              const SymbolValues &values);

/// "batch = 7, seq = 128": values in the order of `desc.symbols`.
std::string describeSymbolValues(const ModuleDesc &desc,
                                 const SymbolValues &values);

} // namespace stride

#endif // STRIDE_MODULE_MODULESYMBOLS_H
