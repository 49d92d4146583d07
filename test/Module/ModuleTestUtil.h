//===- ModuleTestUtil.h - Modules the module tests build on -----*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TEST_MODULE_MODULETESTUTIL_H
#define STRIDE_TEST_MODULE_MODULETESTUTIL_H

#include "stride/Module/Module.h"

namespace stride::test {

/// `n` bytes that differ from their neighbours: first, first + step, ...
inline std::vector<uint8_t> countingBytes(size_t n, uint8_t first = 0,
                                          uint8_t step = 1) {
  std::vector<uint8_t> bytes(n);
  for (size_t i = 0; i < n; ++i)
    bytes[i] = uint8_t(first + i * step);
  return bytes;
}

/// A module for sm_90 with entry "forward" and one executable of `kind`
/// (a minimal CUBIN or PTX image) holding `kernels`; nothing else.
inline ModuleDesc moduleWithKernels(CodeKind kind,
                                    std::vector<KernelDesc> kernels) {
  ModuleDesc d;
  d.producer = "stridec 0.1";
  d.target = {Backend::Cuda, "sm_90"};
  ExecutableDesc exe;
  exe.image = kind == CodeKind::Cubin
                  ? CodeImage{kind, {0x7f, 'E', 'L', 'F', 2, 1, 1, 0}}
                  : CodeImage{kind, {'.', 'v', 'e', 'r', 's', 'i', 'o', 'n'}};
  exe.kernels = std::move(kernels);
  d.executables.push_back(std::move(exe));
  d.signature.entryName = "forward";
  return d;
}

/// A dispatch of kernel `kernel` of executable 0 on a small grid.
inline DispatchStep smallDispatch(uint32_t kernel, std::vector<KernelArg> args) {
  DispatchStep d;
  d.kernel = kernel;
  d.grid = {2, 1, 1};
  d.block = {128, 1, 1};
  d.args = std::move(args);
  return d;
}

/// A kernel writes a gradient; the collective stream forks, all-reduces it
/// into the output and joins:
///   1 kernel, 2 record 0 (main), 3 wait 0 (collective),
///   4 nccl.all_reduce (collective), 5 record 1 (collective), 6 wait 1 (main).
inline ModuleDesc streamedModule() {
  ModuleDesc d = moduleWithKernels(CodeKind::Cubin, {{"grad", "grad"}});
  TensorSignature x{"x", DType::F32, {4}, {1}, 0};
  TensorSignature y{"y", DType::F32, {4}, {1}, 0};
  d.signature.inputs = {x};
  d.signature.outputs = {y};
  d.buffers = {{BufferKind::Input, 0, 16, false, -1},
               {BufferKind::Temp, -1, 16, false, -1},
               {BufferKind::Output, 0, 16, false, -1}};
  LibraryCallStep reduce{"nccl.all_reduce",
                         {1, 2},
                         {{"dtype", {}, "f32"}, {"count", {4}, ""}}};
  reduce.stream = StreamId::Collective;
  using Action = EventStep::Action;
  d.steps = {smallDispatch(0, {KernelArg::buffer(0), KernelArg::buffer(1)}),
             EventStep{Action::Record, 0, StreamId::Main},
             EventStep{Action::Wait, 0, StreamId::Collective},
             reduce,
             EventStep{Action::Record, 1, StreamId::Collective},
             EventStep{Action::Wait, 1, StreamId::Main}};
  d.events = 2;
  return d;
}

/// Size expressions, shortly.
inline SizeExpr sym(const char *name) { return SizeExpr::symbol(name); }
inline SizeExpr num(int64_t v) { return SizeExpr::constant(v); }
inline SizeExpr times(const SizeExpr &a, const SizeExpr &b) {
  return *a.times(b);
}

/// Format version 7: x: f32 [batch, 768] with batch in [1, 1024]; a kernel
/// over batch*768 elements (the batch its size argument) writes output y,
/// and a copy of y's bytes output z.
inline ModuleDesc symbolicModule() {
  ModuleDesc d = moduleWithKernels(CodeKind::Cubin, {{"relu", "relu"}});
  d.symbols = {{"batch", 1, 1024, 1}};
  SymbolicLayout layout{{sym("batch"), num(768)}, {num(768), num(1)}, num(0)};
  TensorSignature x{"x", DType::F32, {1024, 768}, {768, 1}, 0};
  x.symbolic = layout;
  TensorSignature y = x;
  y.name = "y";
  TensorSignature z = y;
  z.name = "z";
  d.signature.inputs = {x};
  d.signature.outputs = {y, z};
  int64_t bytes = 1024 * 768 * 4;
  d.buffers = {{BufferKind::Input, 0, bytes}, {BufferKind::Output, 0, bytes},
               {BufferKind::Output, 1, bytes}};
  DispatchStep k = smallDispatch(
      0, {KernelArg::buffer(0), KernelArg::buffer(1), KernelArg::symbol(0)});
  k.grid = {528, 1, 1};
  k.block = {256, 1, 1};
  k.gridElements = times(sym("batch"), num(768));
  k.gridDivisor = 256;
  CopyStep copy{1, 2, bytes};
  copy.symbolicSizeBytes = times(sym("batch"), num(768 * 4));
  d.steps = {k, copy};
  return d;
}

/// symbolicModule with a library call whose `n` and `stride_d` are size
/// expressions (format version 8) and `ld` a constant.
inline ModuleDesc symbolicCallModule() {
  ModuleDesc d = symbolicModule();
  d.steps.push_back(LibraryCallStep{
      "cublaslt.matmul",
      {0, 1},
      {{"n", {1024}, "", {sym("batch")}},
       {"stride_d", {1024 * 768}, "", {times(sym("batch"), num(768))}},
       {"ld", {768}, "", {}}}});
  return d;
}

/// symbolicCallModule with its dispatch a variant at batch 1 and its call
/// the alternative (format version 9's step guards;
/// python-free-docs/symbolic-sizes.md, "Variants selected at run time").
inline ModuleDesc guardedModule() {
  ModuleDesc d = symbolicCallModule();
  std::get<DispatchStep>(d.steps[0]).guard.when = {{0, 1, 1}};
  std::get<LibraryCallStep>(d.steps[2]).guard.unless = {{0, 1, 1}};
  return d;
}

/// guardedModule with its guards over `pos`, a symbol bound from the value
/// of a second input, one i64 (format version 10;
/// python-free-docs/symbolic-sizes.md, "Symbols bound from a value"): the
/// dispatch runs at positions 0 to 47, the call at the others.
inline ModuleDesc valueGuardedModule() {
  ModuleDesc d = guardedModule();
  d.symbols.push_back({"pos", 0, 95, 1});
  d.signature.inputs.push_back({"pos", DType::I64, {1}, {1}, 0});
  d.buffers.push_back({BufferKind::Input, 1, 8});
  d.valueBindings = {{1, 1}};
  std::get<DispatchStep>(d.steps[0]).guard.when = {{1, 0, 47}};
  std::get<LibraryCallStep>(d.steps[2]).guard.unless = {{1, 0, 47}};
  return d;
}

} // namespace stride::test

#endif // STRIDE_TEST_MODULE_MODULETESTUTIL_H
