//===- NVRTC.cpp - Compiling generated CUDA C++ with NVRTC ---------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Target/CUDA/NVRTC.h"

#include <nvrtc.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>

namespace stride {

namespace {

constexpr const char *kDefaultProgramName = "stride_module.cu";

std::string nvrtcErrorText(nvrtcResult r) { return nvrtcGetErrorString(r); }

/// Owns an nvrtcProgram.
struct ProgramDeleter {
  void operator()(nvrtcProgram *p) const {
    if (*p)
      nvrtcDestroyProgram(p);
    delete p;
  }
};
using ProgramPtr = std::unique_ptr<nvrtcProgram, ProgramDeleter>;

std::string joinArchs(const std::vector<std::string> &archs) {
  std::string s;
  for (size_t i = 0; i < archs.size(); ++i)
    s += (i ? ", " : "") + archs[i];
  return s;
}

bool hasCudaHeaders(const std::filesystem::path &dir) {
  std::error_code ec;
  return std::filesystem::exists(dir / "cuda_fp16.h", ec);
}

/// The directory of the loaded libnvrtc, from the address of one of its
/// functions.
std::optional<std::filesystem::path> nvrtcLibraryDir() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&nvrtcVersion), &info) ||
      !info.dli_fname)
    return std::nullopt;
  std::error_code ec;
  std::filesystem::path lib =
      std::filesystem::weakly_canonical(info.dli_fname, ec);
  if (ec)
    lib = info.dli_fname;
  return lib.parent_path();
}

std::vector<std::string> buildOptions(const NvrtcOptions &opts, int archNumber,
                                      const std::string &includeDir) {
  std::string archFlag = opts.emitPtx ? "compute_" : "sm_";
  std::vector<std::string> options = {
      "--gpu-architecture=" + archFlag + std::to_string(archNumber),
      "-default-device", "--std=c++17"};
  if (!includeDir.empty())
    options.push_back("--include-path=" + includeDir);
  options.insert(options.end(), opts.extraOptions.begin(),
                 opts.extraOptions.end());
  return options;
}

std::string programLog(nvrtcProgram program) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size == 0)
    return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS)
    return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log;
}

Result<std::vector<uint8_t>> readCode(nvrtcProgram program, bool ptx,
                                      const std::string &name) {
  size_t size = 0;
  nvrtcResult r = ptx ? nvrtcGetPTXSize(program, &size)
                      : nvrtcGetCUBINSize(program, &size);
  std::vector<uint8_t> bytes(size);
  if (r == NVRTC_SUCCESS)
    r = ptx ? nvrtcGetPTX(program, reinterpret_cast<char *>(bytes.data()))
            : nvrtcGetCUBIN(program, reinterpret_cast<char *>(bytes.data()));
  if (r != NVRTC_SUCCESS)
    return makeError(ErrorCode::Internal,
                     "NVRTC compiled '" + name + "' but could not return its " +
                         (ptx ? "PTX" : "CUBIN") + ": " + nvrtcErrorText(r));
  // The module format stores PTX without its C string terminator.
  while (ptx && !bytes.empty() && bytes.back() == 0)
    bytes.pop_back();
  return bytes;
}

} // namespace

std::string nvrtcVersionString() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return "NVRTC (unknown version)";
  return "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> nvrtcSupportedArchs() {
  int count = 0;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0)
    return {};
  std::vector<int> numbers(count);
  if (nvrtcGetSupportedArchs(numbers.data()) != NVRTC_SUCCESS)
    return {};
  std::vector<std::string> archs;
  for (int n : numbers)
    archs.push_back("sm_" + std::to_string(n));
  return archs;
}

std::string defaultCudaIncludeDir() {
  std::vector<std::filesystem::path> candidates;
  if (std::optional<std::filesystem::path> libDir = nvrtcLibraryDir()) {
    // lib64/ or lib/ next to include/, or targets/<triple>/lib/.
    candidates.push_back(*libDir / ".." / "include");
    candidates.push_back(*libDir / ".." / ".." / "include");
  }
  if (const char *cudaPath = std::getenv("CUDA_PATH"))
    candidates.push_back(std::filesystem::path(cudaPath) / "include");
  candidates.push_back("/usr/local/cuda/include");
  for (const std::filesystem::path &dir : candidates)
    if (hasCudaHeaders(dir))
      return dir.lexically_normal().string();
  return {};
}

Result<int> checkNvrtcArch(const std::string &arch) {
  std::vector<std::string> supported = nvrtcSupportedArchs();
  std::optional<int> number = parseSmArch(arch);
  if (!number)
    return makeError(ErrorCode::InvalidArgument,
                     "invalid GPU architecture '" + arch +
                         "': expected sm_ followed by the compute "
                         "capability's digits (e.g. sm_90 for an H100); " +
                         nvrtcVersionString() + " supports " +
                         joinArchs(supported));
  if (std::find(supported.begin(), supported.end(), arch) == supported.end())
    return makeError(ErrorCode::Incompatible,
                     "GPU architecture '" + arch + "' is not supported by " +
                         nvrtcVersionString() + ", which supports " +
                         joinArchs(supported));
  return *number;
}

Result<CodeImage> compileCudaSource(const std::string &source,
                                    const NvrtcOptions &opts) {
  std::optional<int> archNumber = parseSmArch(opts.arch);
  if (!archNumber)
    return checkNvrtcArch(opts.arch).error();
  std::string name =
      opts.programName.empty() ? kDefaultProgramName : opts.programName;
  std::string includeDir =
      opts.cudaIncludeDir.empty() ? defaultCudaIncludeDir() : opts.cudaIncludeDir;

  ProgramPtr program(new nvrtcProgram(nullptr));
  nvrtcResult r = nvrtcCreateProgram(program.get(), source.c_str(), name.c_str(),
                                     0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS)
    return makeError(ErrorCode::Internal, "NVRTC could not create program '" +
                                              name + "': " + nvrtcErrorText(r));

  std::vector<std::string> options = buildOptions(opts, *archNumber, includeDir);
  std::vector<const char *> optionPtrs;
  for (const std::string &o : options)
    optionPtrs.push_back(o.c_str());
  r = nvrtcCompileProgram(*program, static_cast<int>(optionPtrs.size()),
                          optionPtrs.data());
  if (r == NVRTC_ERROR_INVALID_OPTION)
    if (Result<int> checked = checkNvrtcArch(opts.arch); !checked)
      return checked.error();
  if (r != NVRTC_SUCCESS) {
    std::string log = programLog(*program);
    return makeError(
        ErrorCode::Internal,
        "internal compiler error: NVRTC could not compile the CUDA C++ that "
        "Stride generated for program '" +
            name + "' (" + opts.arch + ", " + nvrtcVersionString() + ": " +
            nvrtcErrorText(r) +
            "). This is a bug in Stride: generated code must always compile; "
            "please report it with the graph file.\nNVRTC log:\n" +
            (log.empty() ? std::string("(empty)") : log));
  }

  Result<std::vector<uint8_t>> bytes = readCode(*program, opts.emitPtx, name);
  if (!bytes)
    return bytes.error();
  return CodeImage{opts.emitPtx ? CodeKind::Ptx : CodeKind::Cubin,
                   std::move(*bytes)};
}

} // namespace stride
