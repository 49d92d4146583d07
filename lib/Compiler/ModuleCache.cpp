//===- ModuleCache.cpp - Modules cached by what they are made from --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Compiler/ModuleCache.h"

#include "stride/Target/CUDA/NVRTC.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <dlfcn.h>

namespace stride {

namespace {

constexpr llvm::StringLiteral kKeyFormat = "stride-module-cache-v1";

/// "<path> size <bytes> mtime <ns>" of the file `path`, or `path` alone
/// when it cannot be read.
std::string fileIdentity(llvm::StringRef path) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status))
    return path.str();
  return (path + " size " + llvm::Twine(status.getSize()) + " mtime " +
          llvm::Twine(static_cast<int64_t>(
              status.getLastModificationTime().time_since_epoch().count())))
      .str();
}

/// The binary that holds this code (stridec, or the shared library that
/// embeds the compiler): a rebuilt compiler makes other modules.
std::string compilerIdentity() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&moduleCacheKey), &info) ||
      !info.dli_fname)
    return "unknown compiler";
  // For the main executable dladdr gives the name it was started by
  // ("stridec" when found on PATH), which names no file from here: a
  // rebuilt stridec would then reuse the modules of the old one.
  std::string binary = info.dli_fname;
  if (binary.find('/') == std::string::npos)
    binary = llvm::sys::fs::getMainExecutable(
        nullptr, reinterpret_cast<void *>(&moduleCacheKey));
  llvm::SmallString<256> path;
  if (llvm::sys::fs::real_path(binary, path))
    path = binary;
  return fileIdentity(path);
}

/// Hashes fields, each prefixed by its length so that no two lists of
/// fields hash alike.
class KeyHasher {
public:
  void add(llvm::StringRef field) {
    uint64_t size = field.size();
    hasher.update(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(&size), sizeof(size)));
    hasher.update(field);
  }
  void add(bool flag) { add(llvm::StringRef(flag ? "1" : "0")); }
  void add(int64_t number) { add(llvm::StringRef(std::to_string(number))); }
  std::string hex() { return llvm::toHex(hasher.final(), /*LowerCase=*/true); }

private:
  llvm::SHA256 hasher;
};

/// The options that change a module's bytes. An option added to
/// CompileOptions that changes the module must be added here.
void addModuleOptions(KeyHasher &key, const CompileOptions &options) {
  key.add(options.pipeline.repairLayouts);
  key.add(options.pipeline.fuse);
  key.add(options.pipeline.keepValues);
  key.add(llvm::StringRef(options.pipeline.testInjectFault));
  key.add(llvm::StringRef(options.pipeline.attentionLibrary));
  key.add(options.pipeline.recognizeAttention);
  key.add(options.pipeline.foldConstants);
  key.add(options.pipeline.rowMajorPointwise);
  key.add(options.pipeline.mergeSiblingProducts);
  key.add(options.pipeline.splitKvAttention);
  key.add(llvm::StringRef(options.pipeline.decodeAttention));
  key.add(options.pipeline.decodeAttentionStagedKeys);
  key.add(llvm::StringRef(options.pipeline.skinnyProducts));
  key.add(options.pipeline.skinnyPrologue);
  key.add(options.pipeline.skinnyRowPrologue);
  key.add(options.pipeline.skinnyEpilogue);
  key.add(options.pipeline.padOperandRows);
  key.add(options.pipeline.padContraction);
  key.add(llvm::StringRef(options.pipeline.convolutions));
  key.add(options.pipeline.convolutionEpilogues);
  key.add(options.import.weightsAsInputs);
  key.add(options.import.worldSize);
  key.add(static_cast<int64_t>(options.instantiateSymbols.size()));
  for (const std::string &value : options.instantiateSymbols)
    key.add(llvm::StringRef(value));
  key.add(options.pipeline.tensorParallel);
  key.add(options.pipeline.rank);
  key.add(options.pipeline.dataParallel);
  key.add(options.pipeline.dataParallelBucketBytes);
  key.add(options.pipeline.overlapCollectives);
  key.add(options.pipeline.collectiveChunks);
  key.add(llvm::StringRef(options.cuda.arch));
  key.add(static_cast<int64_t>(options.cuda.multiprocessorCount));
  key.add(options.cuda.runtimeChecks);
  key.add(options.cuda.vectorize);
  key.add(options.cuda.allowTf32);
  key.add(options.cuda.deterministic);
  key.add(options.cuda.dependentLaunch);
  key.add(options.cuda.earlyLaunch);
  key.add(options.cuda.launchGroups);
  key.add(options.cuda.triggerSmallSuccessors);
  key.add(static_cast<int64_t>(options.cuda.skinnyColumnsPerWarp));
  key.add(static_cast<int64_t>(options.cuda.skinnyLoadsPerLane));
  key.add(static_cast<int64_t>(options.cuda.skinnyColumnWarps));
  key.add(options.cuda.stagedKvAttention);
  key.add(options.cuda.stagedKvTensorCores);
  key.add(options.cuda.l2ResidentBytes);
  key.add(static_cast<int64_t>(options.unitOps.value_or(-1)));
  key.add(llvm::StringRef(options.producer));
}

/// Removes the least recently used module entries (by modification time,
/// which a hit refreshes) of `dir` while they hold more than `maxBytes`.
void evictModules(llvm::StringRef dir, uint64_t maxBytes) {
  struct Entry {
    std::string path;
    uint64_t bytes;
    llvm::sys::TimePoint<> used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::sys::fs::file_status status;
    if (llvm::sys::path::extension(it->path()) != ".stridemod" ||
        llvm::sys::fs::status(it->path(), status))
      continue;
    entries.push_back(
        {it->path(), status.getSize(), status.getLastModificationTime()});
    total += status.getSize();
  }
  llvm::sort(entries, [](const Entry &a, const Entry &b) {
    return a.used < b.used;
  });
  for (const Entry &e : entries) {
    if (total <= maxBytes)
      break;
    if (!llvm::sys::fs::remove(e.path))
      total -= e.bytes;
  }
}

} // namespace

std::string moduleCacheKey(llvm::ArrayRef<uint8_t> input,
                           llvm::StringRef inputName,
                           const CompileOptions &options) {
  KeyHasher key;
  key.add(kKeyFormat);
  key.add(compilerIdentity());
  key.add(nvrtcLibraryIdentity());
  key.add(defaultCudaIncludeDir());
  addModuleOptions(key, options);
  key.add(inputName);
  llvm::XXH128_hash_t digest = llvm::xxh3_128bits(input);
  key.add(llvm::utohexstr(digest.high64) + llvm::utohexstr(digest.low64));
  return key.hex();
}

std::string moduleCacheEntry(llvm::StringRef dir, llvm::StringRef key) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, key + ".stridemod");
  return std::string(path);
}

bool placeCachedModule(llvm::StringRef entry, llvm::StringRef output) {
  if (!llvm::sys::fs::exists(entry))
    return false;
  // The entry's modification time is its last use, for eviction.
  if (int fd; !llvm::sys::fs::openFileForWrite(entry, fd,
                                              llvm::sys::fs::CD_OpenExisting,
                                              llvm::sys::fs::OF_Append)) {
    (void)llvm::sys::fs::setLastAccessAndModificationTime(
        fd, std::chrono::system_clock::now());
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  }
  // The output already is the entry (a link from an earlier compile).
  if (llvm::sys::fs::equivalent(entry, output))
    return true;
  llvm::SmallString<256> temp;
  if (llvm::sys::fs::createUniqueFile(output + ".tmp-%%%%%%%%", temp))
    return false;
  // createUniqueFile made the name; a link needs it free.
  llvm::sys::fs::remove(temp);
  bool placed = !llvm::sys::fs::create_hard_link(entry, temp) ||
                !llvm::sys::fs::copy_file(entry, temp);
  bool renamed = placed && !llvm::sys::fs::rename(temp, output);
  // A rename onto another link of the same file does nothing (POSIX) and
  // leaves the temporary name behind.
  llvm::sys::fs::remove(temp);
  return renamed;
}

void storeCachedModule(llvm::StringRef entry, const ModuleDesc &module,
                       uint64_t maxBytes) {
  llvm::StringRef dir = llvm::sys::path::parent_path(entry);
  if (llvm::sys::fs::create_directories(dir))
    return;
  // A temporary file renamed into place; a failure leaves no entry.
  llvm::consumeError(llvm::writeToOutput(entry, [&](llvm::raw_ostream &out) {
    streamModule(module, [&](const uint8_t *data, uint64_t size) {
      out.write(reinterpret_cast<const char *>(data), size);
      return true;
    });
    return llvm::Error::success();
  }));
  evictModules(dir, maxBytes);
}

namespace {

/// The cached module of `entry` as a successful compile result, or nothing
/// when there is no entry or it does not parse (then it is compiled again
/// and stored anew).
std::optional<CompileResult> readCachedModule(const std::string &entry,
                                              const CompileOptions &options) {
  // Mapped: the module's constants are views of the entry's pages.
  Result<ModuleDesc> module = readModuleFile(entry);
  if (!module)
    return std::nullopt;
  CompileResult result;
  result.success = true;
  // The entry is what this writer wrote, so its bytes are these again.
  if (options.keepModuleBytes)
    result.moduleBytes = serializeModule(*module);
  result.module = std::move(*module);
  // A hit is a use, for eviction.
  placeCachedModule(entry, entry);
  return result;
}

} // namespace

CompileResult compileFileCached(const std::string &path,
                                const CompileOptions &options) {
  if (options.emit != EmitKind::Module || options.nvrtcCacheDir.empty() ||
      options.configurePassManager || options.timing || path == "-")
    return compileFile(path, options);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> input =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!input)
    return compileFile(path, options);
  llvm::ArrayRef<uint8_t> bytes(
      reinterpret_cast<const uint8_t *>((*input)->getBufferStart()),
      (*input)->getBufferSize());
  std::string entry = moduleCacheEntry(
      options.nvrtcCacheDir, moduleCacheKey(bytes, path, options));
  if (std::optional<CompileResult> hit = readCachedModule(entry, options))
    return std::move(*hit);
  CompileResult result = compileFile(path, options);
  if (result.success && result.diagnostics.empty())
    storeCachedModule(entry, result.module);
  return result;
}

} // namespace stride
