//===- NVRTC.cpp - Compiling generated CUDA C++ with NVRTC ---------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Target/CUDA/NVRTC.h"
#include "stride/Support/DynamicLibrary.h"

// nvrtc.h for the API's types and prototypes only: libnvrtc is opened with
// dlopen when first needed (loadNvrtc), never linked.
#include <nvrtc.h>

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>

namespace stride {

namespace {

constexpr const char *kDefaultProgramName = "stride_module.cu";
constexpr const char *kNvrtcLibrary = "libnvrtc.so.13";

// clang-format off
#define STRIDE_NVRTC_FUNCTIONS(X)                                              \
  X(nvrtcGetErrorString) X(nvrtcVersion)                                       \
  X(nvrtcGetNumSupportedArchs) X(nvrtcGetSupportedArchs)                       \
  X(nvrtcCreateProgram) X(nvrtcDestroyProgram) X(nvrtcCompileProgram)          \
  X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog)                              \
  X(nvrtcGetPTXSize) X(nvrtcGetPTX) X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN)
// clang-format on

/// Where loadNvrtc looks, in order.
std::vector<std::string> nvrtcCandidates() {
  return cudaLibraryCandidates("STRIDE_NVRTC", kNvrtcLibrary);
}

/// NVRTC's entry points, bound from the library loadNvrtc opened.
struct Nvrtc {
#define STRIDE_DECLARE_NVRTC_FN(fn) decltype(&::fn) fn = nullptr;
  STRIDE_NVRTC_FUNCTIONS(STRIDE_DECLARE_NVRTC_FN)
#undef STRIDE_DECLARE_NVRTC_FN
  /// The file it was loaded from.
  std::string path;
};

/// Opens NVRTC and binds its entry points, once per process; a NotFound
/// error (no library) or Incompatible (a symbol missing) every time after
/// when that failed.
Result<const Nvrtc *> loadNvrtc() {
  static const Result<const Nvrtc *> loaded = []() -> Result<const Nvrtc *> {
    static Nvrtc nvrtc;
    std::string failures;
    std::optional<OpenedLibrary> library = openFirstLibrary(
        nvrtcCandidates(), failures);
    if (!library)
      return makeError(ErrorCode::NotFound,
                       std::string("NVRTC (") + kNvrtcLibrary +
                           "), which compiles the generated CUDA C++, could "
                           "not be loaded (" + failures +
                           "); install the CUDA 13 toolkit's NVRTC (Debian/"
                           "Ubuntu package cuda-nvrtc-13-0), or set "
                           "STRIDE_NVRTC to the path of its " + kNvrtcLibrary);
    nvrtc.path = library->path;
#define STRIDE_BIND_NVRTC_FN(fn)                                               \
  nvrtc.fn = reinterpret_cast<decltype(nvrtc.fn)>(dlsym(library->handle, #fn)); \
  if (!nvrtc.fn)                                                               \
    return makeError(ErrorCode::Incompatible,                                  \
                     "NVRTC at " + library->path + " lacks '" #fn              \
                     "' (it is not the NVRTC of CUDA 13); set STRIDE_NVRTC "   \
                     "to the path of CUDA 13's " + kNvrtcLibrary);
    STRIDE_NVRTC_FUNCTIONS(STRIDE_BIND_NVRTC_FN)
#undef STRIDE_BIND_NVRTC_FN
    return &nvrtc;
  }();
  return loaded;
}

/// The bound API; only for code that runs after loadNvrtc succeeded.
const Nvrtc &api() { return **loadNvrtc(); }

std::string nvrtcErrorText(nvrtcResult r) { return api().nvrtcGetErrorString(r); }

/// Owns an nvrtcProgram.
struct ProgramDeleter {
  void operator()(nvrtcProgram *p) const {
    if (*p)
      api().nvrtcDestroyProgram(p);
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

/// The error of an arch that is not "sm_" + digits; it names the archs NVRTC
/// supports when NVRTC loads.
Error malformedArch(const std::string &arch) {
  std::string supported;
  if (loadNvrtc())
    supported = "; " + nvrtcVersionString() + " supports " +
                joinArchs(nvrtcSupportedArchs());
  return makeError(ErrorCode::InvalidArgument,
                   "invalid GPU architecture '" + arch +
                       "': expected sm_ followed by the compute "
                       "capability's digits (e.g. sm_90 for an H100)" +
                       supported);
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
  if (api().nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size == 0)
    return {};
  std::string log(size, '\0');
  if (api().nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS)
    return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log;
}

Result<std::vector<uint8_t>> readCode(nvrtcProgram program, bool ptx,
                                      const std::string &name) {
  size_t size = 0;
  nvrtcResult r = ptx ? api().nvrtcGetPTXSize(program, &size)
                      : api().nvrtcGetCUBINSize(program, &size);
  std::vector<uint8_t> bytes(size);
  if (r == NVRTC_SUCCESS)
    r = ptx ? api().nvrtcGetPTX(program, reinterpret_cast<char *>(bytes.data()))
            : api().nvrtcGetCUBIN(program, reinterpret_cast<char *>(bytes.data()));
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
  Result<const Nvrtc *> nvrtc = loadNvrtc();
  if (!nvrtc)
    return "NVRTC not found";
  int major = 0, minor = 0;
  if ((*nvrtc)->nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return "NVRTC (unknown version)";
  return "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> nvrtcSupportedArchs() {
  Result<const Nvrtc *> nvrtc = loadNvrtc();
  int count = 0;
  if (!nvrtc || (*nvrtc)->nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS ||
      count <= 0)
    return {};
  std::vector<int> numbers(count);
  if ((*nvrtc)->nvrtcGetSupportedArchs(numbers.data()) != NVRTC_SUCCESS)
    return {};
  std::vector<std::string> archs;
  for (int n : numbers)
    archs.push_back("sm_" + std::to_string(n));
  return archs;
}

std::string nvrtcLibraryIdentity() {
  std::optional<std::string> file = findLibraryFile(nvrtcCandidates());
  struct stat st;
  if (!file || ::stat(file->c_str(), &st) != 0)
    return "no NVRTC";
  return *file + " size " + std::to_string(st.st_size) + " mtime " +
         std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

std::string defaultCudaIncludeDir() {
  std::vector<std::filesystem::path> candidates;
  if (std::optional<std::string> library = findLibraryFile(nvrtcCandidates())) {
    // lib64/ or lib/ next to include/, or targets/<triple>/lib/.
    std::filesystem::path libDir = std::filesystem::path(*library).parent_path();
    candidates.push_back(libDir / ".." / "include");
    candidates.push_back(libDir / ".." / ".." / "include");
  }
  if (const char *cudaPath = std::getenv("CUDA_PATH"))
    candidates.push_back(std::filesystem::path(cudaPath) / "include");
  candidates.push_back("/usr/local/cuda/include");
  for (const std::filesystem::path &dir : candidates)
    if (hasCudaHeaders(dir))
      return dir.lexically_normal().string();
  return {};
}

Result<int> parseGpuArch(const std::string &arch) {
  if (std::optional<int> number = parseSmArch(arch))
    return *number;
  return malformedArch(arch);
}

Result<int> checkNvrtcArch(const std::string &arch) {
  if (Result<const Nvrtc *> nvrtc = loadNvrtc(); !nvrtc)
    return nvrtc.error();
  Result<int> number = parseGpuArch(arch);
  if (!number)
    return number;
  std::vector<std::string> supported = nvrtcSupportedArchs();
  if (std::find(supported.begin(), supported.end(), arch) == supported.end())
    return makeError(ErrorCode::Incompatible,
                     "GPU architecture '" + arch + "' is not supported by " +
                         nvrtcVersionString() + ", which supports " +
                         joinArchs(supported));
  return *number;
}

Result<CodeImage> compileCudaSource(const std::string &source,
                                    const NvrtcOptions &opts) {
  // NVRTC is loaded here, and the arch checked against it, only when
  // something is compiled (a cache hit never comes here).
  Result<int> archNumber = checkNvrtcArch(opts.arch);
  if (!archNumber)
    return archNumber.error();
  std::string name =
      opts.programName.empty() ? kDefaultProgramName : opts.programName;
  std::string includeDir =
      opts.cudaIncludeDir.empty() ? defaultCudaIncludeDir() : opts.cudaIncludeDir;

  ProgramPtr program(new nvrtcProgram(nullptr));
  nvrtcResult r = api().nvrtcCreateProgram(program.get(), source.c_str(), name.c_str(),
                                     0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS)
    return makeError(ErrorCode::Internal, "NVRTC could not create program '" +
                                              name + "': " + nvrtcErrorText(r));

  std::vector<std::string> options = buildOptions(opts, *archNumber, includeDir);
  std::vector<const char *> optionPtrs;
  for (const std::string &o : options)
    optionPtrs.push_back(o.c_str());
  r = api().nvrtcCompileProgram(*program, static_cast<int>(optionPtrs.size()),
                          optionPtrs.data());
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
