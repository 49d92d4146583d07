//===- Nccl.cpp - NCCL through dlopen, one process per GPU ----------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// See Nccl.h. Tested through a fake libnccl.so.2 (test/Runtime/FakeNccl.cpp)
// in test/Runtime/FakeNcclTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "Nccl.h"

#include "stride/Support/DynamicLibrary.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace stride {

namespace {

constexpr const char *kLibrary = "libnccl.so.2";
constexpr const char *kInstall =
    "install NCCL: the pip package nvidia-nccl-cu13 (PyTorch's "
    "site-packages/nvidia/nccl/lib holds libnccl.so.2), or set STRIDE_NCCL "
    "to the path of a libnccl.so.2";

bool bindNccl(void *handle, Nccl &nccl, std::string &missing) {
#define STRIDE_BIND_NCCL_FN(fn)                                                \
  nccl.fn = reinterpret_cast<decltype(nccl.fn)>(dlsym(handle, #fn));          \
  if (!nccl.fn) {                                                              \
    missing = #fn;                                                             \
    return false;                                                              \
  }
  STRIDE_NCCL_FUNCTIONS(STRIDE_BIND_NCCL_FN)
#undef STRIDE_BIND_NCCL_FN
  return true;
}

/// An environment variable as an int in [low, high), or an error.
Result<int> intFromEnvironment(const char *name, std::optional<int> fallback,
                               int low, int high) {
  const char *text = std::getenv(name);
  if (!text || !*text) {
    if (fallback)
      return *fallback;
    return makeError(ErrorCode::InvalidArgument,
                     std::string(name) +
                         " is not set: run one process per GPU under torchrun "
                         "(or set RANK, WORLD_SIZE and LOCAL_RANK)");
  }
  char *end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (*end || value < low || value >= high)
    return makeError(ErrorCode::InvalidArgument,
                     std::string(name) + "=" + text + " is not an integer in [" +
                         std::to_string(low) + ", " + std::to_string(high) + ")");
  return static_cast<int>(value);
}

} // namespace

std::string Nccl::failure(const char *function, ncclResult_t result) const {
  const char *text = ncclGetErrorString ? ncclGetErrorString(result) : nullptr;
  return std::string(function) + " returned '" +
         (text ? std::string(text) : std::string("NCCL error")) + "' (" +
         std::to_string(int(result)) + ")";
}

Result<const Nccl *> loadNccl(const std::string &where) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Nccl>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  std::string failures;
  std::optional<OpenedLibrary> library =
      openFirstLibrary(cudaLibraryCandidates("STRIDE_NCCL", kLibrary), failures);
  if (!library)
    return makeError(ErrorCode::NotFound,
                     where + " needs NCCL (" + kLibrary +
                         "), which could not be loaded (" + failures + "); " +
                         kInstall);
  std::unique_ptr<Nccl> &nccl = loaded[library->path];
  if (nccl)
    return nccl.get();
  auto bound = std::make_unique<Nccl>();
  bound->path = library->path;
  std::string missing;
  if (!bindNccl(library->handle, *bound, missing))
    return makeError(ErrorCode::Incompatible,
                     where + " needs symbol '" + missing + "' of " +
                         library->path +
                         ", which the loaded library does not define (it is "
                         "not NCCL 2); " + kInstall);
  nccl = std::move(bound);
  return nccl.get();
}

Result<GroupPlace> groupPlaceFromEnvironment() {
  GroupPlace place;
  Result<int> worldSize = intFromEnvironment("WORLD_SIZE", std::nullopt, 1, 1 << 16);
  if (!worldSize)
    return worldSize.error();
  Result<int> rank = intFromEnvironment("RANK", std::nullopt, 0, *worldSize);
  if (!rank)
    return rank.error();
  Result<int> localRank = intFromEnvironment("LOCAL_RANK", *rank, 0, 1 << 16);
  if (!localRank)
    return localRank.error();
  const char *idFile = std::getenv("STRIDE_NCCL_ID_FILE");
  if (*worldSize > 1 && (!idFile || !*idFile))
    return makeError(ErrorCode::InvalidArgument,
                     "STRIDE_NCCL_ID_FILE is not set: name a file every rank "
                     "of the host sees, through which rank 0 hands the others "
                     "NCCL's unique id");
  place.worldSize = *worldSize;
  place.rank = *rank;
  place.localRank = *localRank;
  place.idFile = idFile ? idFile : "";
  return place;
}

void keepNvlinkMulticastOff() {
  const char *nvls = std::getenv("NCCL_NVLS_ENABLE");
  if (!nvls || std::string(nvls) != "0")
    setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/1);
}

Result<ncclUniqueId> exchangeUniqueId(const Nccl &nccl, const GroupPlace &place,
                                      std::chrono::milliseconds timeout) {
  ncclUniqueId id{};
  if (place.rank == 0) {
    if (ncclResult_t r = nccl.ncclGetUniqueId(&id); r != ncclSuccess)
      return makeError(ErrorCode::DeviceFault, nccl.failure("ncclGetUniqueId", r));
    std::string temporary = place.idFile + ".tmp";
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out.write(id.internal, sizeof(id.internal));
      if (!out)
        return makeError(ErrorCode::InvalidArgument,
                         temporary + ": cannot write NCCL's unique id");
    }
    if (std::rename(temporary.c_str(), place.idFile.c_str()) != 0)
      return makeError(ErrorCode::InvalidArgument,
                       place.idFile + ": cannot write NCCL's unique id");
    return id;
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    std::ifstream in(place.idFile, std::ios::binary);
    if (in && in.read(id.internal, sizeof(id.internal)))
      return id;
    if (std::chrono::steady_clock::now() >= deadline)
      return makeError(ErrorCode::Unavailable,
                       "rank " + std::to_string(place.rank) + " waited " +
                           std::to_string(timeout.count()) +
                           " ms for rank 0's NCCL unique id in " +
                           place.idFile + " (did rank 0 start?)");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

Status waitForGroup(const Nccl &nccl, ncclComm_t comm, int rank,
                    const std::string &what,
                    const std::function<bool()> &finished,
                    std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string prefix = "rank " + std::to_string(rank) + ": " + what;
  while (!finished()) {
    ncclResult_t async = ncclSuccess;
    ncclResult_t r = nccl.ncclCommGetAsyncError(comm, &async);
    if (r != ncclSuccess || (async != ncclSuccess && async != ncclInProgress)) {
      nccl.ncclCommAbort(comm);
      return makeError(ErrorCode::DeviceFault,
                       prefix + " failed: " +
                           nccl.failure("ncclCommGetAsyncError",
                                        r != ncclSuccess ? r : async) +
                           " (the communicator was aborted)");
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      nccl.ncclCommAbort(comm);
      return makeError(ErrorCode::Unavailable,
                       prefix + " did not finish within " +
                           std::to_string(timeout.count()) +
                           " ms (another rank failed or stopped?); the "
                           "communicator was aborted");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return Status::ok();
}

} // namespace stride
