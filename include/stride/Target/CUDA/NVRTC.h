//===- NVRTC.h - Compiling generated CUDA C++ with NVRTC -----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Turns the CUDA C++ that Stride's emitter generates into a CodeImage: a
// CUBIN for a real arch (sm_90) or PTX for the matching virtual arch
// (compute_90). Plain C++ (no MLIR). libnvrtc.so.13 is opened with dlopen
// when first needed (STRIDE_NVRTC names another file), so a tool that
// links this starts without it; each entry point below reports a missing
// NVRTC as an error (NotFound) naming what to install.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TARGET_CUDA_NVRTC_H
#define STRIDE_TARGET_CUDA_NVRTC_H

#include "stride/Module/Module.h"
#include "stride/Support/Result.h"

#include <string>
#include <vector>

namespace stride {

struct NvrtcOptions {
  /// "sm_" + digits; one that checkNvrtcArch accepts.
  std::string arch = "sm_90";
  /// PTX for compute_NN instead of a CUBIN for sm_NN.
  bool emitPtx = false;
  /// The file name NVRTC reports in diagnostics; "stride_module.cu" if empty.
  std::string programName;
  /// Directory holding cuda_fp16.h and cuda_bf16.h. Empty: found next to
  /// the libnvrtc file nvrtcLibraryIdentity names, else under $CUDA_PATH, else /usr/local/cuda/include.
  std::string cudaIncludeDir;
  /// Appended after Stride's own options, e.g. "-lineinfo".
  std::vector<std::string> extraOptions;
};

/// The form of a GPU arch given to Stride: "sm_" followed by the compute
/// capability's digits. Returns its number (90 for "sm_90"). Needs no
/// NVRTC; the compiler checks this before parsing, and whether NVRTC
/// supports the arch when NVRTC runs (checkNvrtcArch).
Result<int> parseGpuArch(const std::string &arch);

/// The one check of a GPU arch against NVRTC: parseGpuArch's form, and one
/// this NVRTC can compile for (loading NVRTC). Returns its number; the error
/// names the archs this NVRTC supports.
Result<int> checkNvrtcArch(const std::string &arch);

/// Compiles one translation unit for `opts.arch`, loading NVRTC and
/// checking the arch with checkNvrtcArch first. A compile error is reported
/// as a Stride bug (the generated code must always compile) and carries
/// NVRTC's log. Thread-safe: translation units may be compiled in parallel.
Result<CodeImage> compileCudaSource(const std::string &source,
                                    const NvrtcOptions &opts);

/// Identifies, without loading it, the NVRTC that compileCudaSource would
/// load: the file findLibraryFile picks from STRIDE_NVRTC or libnvrtc.so.13
/// (DynamicLibrary.h), as "<canonical path> size <bytes> mtime <s.ns>", or
/// "no NVRTC" when there is none. The NVRTC cache keys on this instead of
/// NVRTC's version, so that a cache hit never loads NVRTC.
std::string nvrtcLibraryIdentity();

/// "NVRTC 13.0".
std::string nvrtcVersionString();

/// The archs this NVRTC can compile for, as "sm_NN" strings, oldest first.
std::vector<std::string> nvrtcSupportedArchs();

/// The include directory compileCudaSource uses when
/// NvrtcOptions::cudaIncludeDir is empty, found without loading NVRTC;
/// empty if none was found.
std::string defaultCudaIncludeDir();

} // namespace stride

#endif // STRIDE_TARGET_CUDA_NVRTC_H
