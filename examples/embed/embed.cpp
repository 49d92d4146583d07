//===- embed.cpp - Compile and run a graph through libstride --------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The smallest embedder: compile a graph from a string, print the module's
// signature, and run it on the GPU if there is one. python-free-docs/embedding.md walks
// through it.
//
//===----------------------------------------------------------------------===//

#include "stride/Compiler/Compiler.h"
#include "stride/Runtime/Invocation.h"

#include <cstdio>
#include <cstring>
#include <iostream>

// y = exp(x) + x, on a 2x4 tensor.
constexpr const char *kGraph = R"(
func.func @exp_plus(%x: !stride.tensor<2x4xf32> {stride.name = "x"})
    -> !stride.tensor<2x4xf32> {
  %e = stride.exp %x : !stride.tensor<2x4xf32> -> !stride.tensor<2x4xf32>
  %y = stride.add %e, %x : !stride.tensor<2x4xf32>, !stride.tensor<2x4xf32>
      -> !stride.tensor<2x4xf32>
  return %y : !stride.tensor<2x4xf32>
}
)";

int main() {
  // Open the GPU first, if any, to compile for its arch.
  auto runtime = stride::Runtime::create(/*deviceOrdinal=*/0);
  stride::CompileOptions options;
  if (runtime)
    options.cuda.arch = (*runtime)->deviceArch();

  stride::Compiler compiler(options);
  stride::CompileResult result = compiler.compile(kGraph, "exp_plus.mlir");
  for (const stride::Diagnostic &d : result.diagnostics)
    std::cerr << d.format();
  if (!result.success)
    return 1;

  const stride::GraphSignature &sig = result.module.signature;
  std::cout << "compiled @" << sig.entryName << " for "
            << result.module.target.arch << ": " << result.moduleBytes.size()
            << " bytes\n";
  for (const stride::TensorSignature &t : sig.inputs)
    std::cout << "  input  " << t.name << ": " << stride::describeTensor(t)
              << "\n";
  for (const stride::TensorSignature &t : sig.outputs)
    std::cout << "  output " << t.name << ": " << stride::describeTensor(t)
              << "\n";

  if (!runtime) {
    std::cout << "not running it: " << runtime.error().message << "\n";
    return 0;
  }
  // The executable is immutable and may be shared by threads; each caller
  // runs it through an invocation of its own (buffers, stream).
  auto executable =
      stride::Executable::loadBytes(**runtime, result.moduleBytes.data(),
                                    result.moduleBytes.size(), "exp_plus");
  if (!executable) {
    std::cerr << "error (" << stride::errorCodeName(executable.error().code)
              << "): " << executable.error().message << "\n";
    return 1;
  }
  auto invocation = stride::Invocation::create(*executable);
  if (!invocation) {
    std::cerr << "error: " << invocation.error().message << "\n";
    return 1;
  }
  float x[8] = {0, 1, 2, 3, -1, -2, -3, 0.5f};
  stride::HostArray input{stride::DType::F32, {2, 4}, {}};
  input.data.resize(sizeof x);
  std::memcpy(input.data.data(), x, sizeof x);
  auto outputs = (*invocation)->run({input});
  if (!outputs) {
    std::cerr << "error (" << stride::errorCodeName(outputs.error().code)
              << "): " << outputs.error().message << "\n";
    return 1;
  }
  float y[8];
  std::memcpy(y, (*outputs)[0].data.data(), sizeof y);
  std::cout << "ran on " << (*runtime)->describeDevice() << ": y =";
  for (float v : y)
    std::printf(" %.4f", v);
  std::cout << "\n";
  return 0;
}
