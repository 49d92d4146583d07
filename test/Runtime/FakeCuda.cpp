//===- FakeCuda.cpp - A libcuda.so.1 test double for the runtime's errors -===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// For tests only: a CUDA driver library with no GPU behind it, built as
// `libcuda.so.1` into its own folder (lit's %fake_cuda). A test puts that
// folder first in LD_LIBRARY_PATH, and the runtime, which dlopens
// libcuda.so.1, runs its real code paths against it: device discovery, the
// architecture check, allocation (with and without --gpu-memory-limit),
// copies and launch error reporting. "Device memory" is host memory, images
// are accepted unread and kernels do nothing, so outputs are meaningless;
// the tests check only the runtime's errors. The environment steers it:
//
//   STRIDE_FAKE_CUDA_INIT=N      cuInit returns CUresult N (100: no device)
//   STRIDE_FAKE_CUDA_DEVICES=N   N devices, alike (default 1)
//   STRIDE_FAKE_CUDA_CC=XY       compute capability X.Y (default 90)
//   STRIDE_FAKE_CUDA_MEMORY=B    the device has B bytes (default 80 GiB);
//                                cuMemAlloc beyond them fails with
//                                CUDA_ERROR_OUT_OF_MEMORY
//   STRIDE_FAKE_CUDA_LAUNCH=N    a launch's error, reported by the next
//                                synchronization as a GPU would (710: a
//                                device-side assertion, 700: a fault)
//   STRIDE_FAKE_CUDA_LOAD=N      cuModuleLoadDataEx returns N (222: PTX
//                                newer than the driver)
//   STRIDE_FAKE_CUDA_FUNCTION=N  cuModuleGetFunction returns N (500: no
//                                such kernel)
//   STRIDE_FAKE_CUDA_STREAM_BUSY=1  cuStreamQuery always answers
//                                CUDA_ERROR_NOT_READY (a collective waiting
//                                for a rank that stopped)
//   STRIDE_FAKE_CUDA_KERNEL_THREADS=N  each kernel runs at most N threads per
//                                block (default 1024; fewer: a kernel that
//                                needs too many registers)
//   STRIDE_FAKE_CUDA_L2_SET_ASIDE=B  the most bytes of L2 the context may set
//                                aside for persisting lines (default 0: none,
//                                as before sm_80); the largest access-policy
//                                window is 128 MiB
//   STRIDE_FAKE_CUDA_L2_ATTRIBUTES=N  asking the largest set-aside or window
//                                returns N (1: a driver without them)
//   STRIDE_FAKE_CUDA_SET_LIMIT=N  cuCtxSetLimit returns N (215: a limit
//                                this context does not support, as
//                                under MPS)
//   STRIDE_FAKE_CUDA_GRAPH_UPDATE=N  cuGraphExecUpdate returns N (a graph
//                                whose topology changed)
//   STRIDE_FAKE_CUDA_STREAM_LOG=FILE  appends a line per stream and event
//                                call, capture and kernel launch to FILE,
//                                streams and events numbered from 1 in the
//                                order they were created ("cuEventRecord
//                                event 1 on stream 1", "cuStreamWaitEvent
//                                stream 2 waits for event 1"); FAKE_NCCL_LOG
//                                may name the same file, so that a test sees
//                                the collectives between them
//
// Two events are 1 ms apart, plus the time that the fake libraries said
// the work between them took (stride_fake_cuda_spend).
//
// A failed launch leaves the context broken, as a fault does on a GPU, until
// the last reference to the primary context is released. CUDA graphs record
// nothing: replaying one is a launch.
//
// Every entry point the runtime binds (lib/Runtime/CudaDriver.h) is defined
// under its <cuda.h> name, so the macros give them their versioned symbols.
//
//===----------------------------------------------------------------------===//

#include "FakeLog.h"

#include <cuda.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

namespace {

CUresult envResult(const char *name) {
  const char *value = std::getenv(name);
  return value ? static_cast<CUresult>(std::atoi(value)) : CUDA_SUCCESS;
}

int deviceCount() {
  const char *value = std::getenv("STRIDE_FAKE_CUDA_DEVICES");
  return value ? std::atoi(value) : 1;
}

int computeCapability() {
  const char *value = std::getenv("STRIDE_FAKE_CUDA_CC");
  return value ? std::atoi(value) : 90;
}

uint64_t largestL2SetAside() {
  const char *value = std::getenv("STRIDE_FAKE_CUDA_L2_SET_ASIDE");
  return value ? std::strtoull(value, nullptr, 10) : 0;
}

/// The context's persisting-L2 limit (cuCtxSetLimit), and the launches
/// that carried an access-policy window, with the last one's window.
size_t persistingL2Limit = 0;
int l2WindowLaunches = 0;
CUaccessPolicyWindow lastL2Window = {};

uint64_t totalMemory() {
  const char *value = std::getenv("STRIDE_FAKE_CUDA_MEMORY");
  return value ? std::strtoull(value, nullptr, 10) : uint64_t(80) << 30;
}

uint64_t usedMemory = 0;
int contextReferences = 0;
/// The error of the last launch, until a synchronization reports it; then
/// sticky, as a fault inside a kernel is.
CUresult pendingError = CUDA_SUCCESS;
bool contextBroken = false;

int dummy; // the address of every opaque handle

template <typename T> T handle() { return reinterpret_cast<T>(&dummy); }

/// Streams and events are numbered handles (1, 2, ... as pointers), so the
/// stream log can tell them apart; nothing dereferences them.
uintptr_t streamsCreated = 0, eventsCreated = 0;

/// The milliseconds the fake libraries' work took in all
/// (stride_fake_cuda_spend), and its value at each event's last record.
double spentMs = 0;
std::map<uintptr_t, double> recordedAt;

template <typename T> T numberedHandle(uintptr_t &created) {
  return reinterpret_cast<T>(++created);
}

/// The number of a stream or event handle (0: the legacy default stream, or
/// a handle of another kind).
uintptr_t numberOf(const void *handle) {
  return handle == &dummy ? 0 : reinterpret_cast<uintptr_t>(handle);
}

/// STRIDE_FAKE_CUDA_STREAM_LOG: one line per call, appended (the fake
/// NCCL's log may share the file).
void logStreamCall(const std::string &line) {
  stride::fake::appendLogLine("STRIDE_FAKE_CUDA_STREAM_LOG", line);
}

std::string streamText(CUstream stream) {
  return "stream " + std::to_string(numberOf(stream));
}
std::string eventText(CUevent event) {
  return "event " + std::to_string(numberOf(event));
}

CUresult synchronize() {
  if (pendingError != CUDA_SUCCESS) {
    contextBroken = true;
    return pendingError;
  }
  return CUDA_SUCCESS;
}

/// Between cuStreamBeginCapture and cuStreamEndCapture: launches are
/// recorded, not run.
bool capturing = false;

/// The calling thread's current context.
thread_local CUcontext current = nullptr;

/// Launches (captured ones too) that allowed programmatic stream
/// serialization.
int dependentLaunches = 0;

/// Graphs instantiated, and instantiated graphs updated in place.
int graphInstantiations = 0;
int graphUpdates = 0;

/// A launch, or the replay of a graph: its error shows at the next
/// synchronization.
CUresult launch() {
  if (contextBroken)
    return pendingError;
  pendingError = envResult("STRIDE_FAKE_CUDA_LAUNCH");
  return CUDA_SUCCESS;
}

struct ErrorText {
  CUresult code;
  const char *name, *text;
};

// The driver's own names and texts for the codes the tests use.
constexpr ErrorText kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
     "no CUDA-capable device is detected"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED",
     "operation not supported"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain."},
};

const ErrorText *findError(CUresult r) {
  for (const ErrorText &e : kErrors)
    if (e.code == r)
      return &e;
  return nullptr;
}

} // namespace

extern "C" {

CUresult cuGetErrorName(CUresult r, const char **name) {
  const ErrorText *e = findError(r);
  if (!e)
    return CUDA_ERROR_INVALID_VALUE;
  *name = e->name;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult r, const char **text) {
  const ErrorText *e = findError(r);
  if (!e)
    return CUDA_ERROR_INVALID_VALUE;
  *text = e->text;
  return CUDA_SUCCESS;
}

CUresult cuInit(unsigned) { return envResult("STRIDE_FAKE_CUDA_INIT"); }

CUresult cuDriverGetVersion(int *version) {
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  *count = deviceCount();
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= deviceCount())
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attr, CUdevice) {
  switch (attr) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = computeCapability() / 10;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = computeCapability() % 10;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *value = 227 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 132;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE:
    *value = static_cast<int>(largestL2SetAside());
    return envResult("STRIDE_FAKE_CUDA_L2_ATTRIBUTES");
  case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE:
    *value = 128 << 20;
    return envResult("STRIDE_FAKE_CUDA_L2_ATTRIBUTES");
  default:
    *value = 0;
  }
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int length, CUdevice) {
  std::strncpy(name, "Stride fake GPU", static_cast<size_t>(length));
  name[length - 1] = '\0';
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  *context = handle<CUcontext>();
  ++contextReferences;
  return CUDA_SUCCESS;
}

// The last release destroys the context, and its sticky error with it.
CUresult cuDevicePrimaryCtxRelease(CUdevice) {
  if (--contextReferences == 0) {
    pendingError = CUDA_SUCCESS;
    contextBroken = false;
  }
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext context) {
  current = context;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext *context) {
  *context = current;
  return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize() { return synchronize(); }

CUresult cuCtxGetLimit(size_t *value, CUlimit limit) {
  if (limit != CU_LIMIT_PERSISTING_L2_CACHE_SIZE)
    return CUDA_ERROR_NOT_SUPPORTED;
  *value = persistingL2Limit;
  return CUDA_SUCCESS;
}

/// Only the persisting-L2 limit, refused above the device's largest
/// set-aside (the runtime caps what it asks for).
CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
  if (limit != CU_LIMIT_PERSISTING_L2_CACHE_SIZE)
    return CUDA_ERROR_NOT_SUPPORTED;
  if (CUresult r = envResult("STRIDE_FAKE_CUDA_SET_LIMIT"))
    return r;
  if (value > largestL2SetAside())
    return CUDA_ERROR_INVALID_VALUE;
  persistingL2Limit = value;
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *, unsigned,
                            CUjit_option *, void **) {
  *module = handle<CUmodule>();
  return envResult("STRIDE_FAKE_CUDA_LOAD");
}

CUresult cuModuleUnload(CUmodule) { return CUDA_SUCCESS; }

CUresult cuModuleGetFunction(CUfunction *function, CUmodule, const char *) {
  *function = handle<CUfunction>();
  return envResult("STRIDE_FAKE_CUDA_FUNCTION");
}

CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attr,
                            CUfunction) {
  const char *threads = std::getenv("STRIDE_FAKE_CUDA_KERNEL_THREADS");
  int maxThreads = threads ? std::atoi(threads) : 1024;
  *value = attr == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? maxThreads : 0;
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) {
  return CUDA_SUCCESS;
}

// Each allocation is 256-byte aligned, as the driver's are, and preceded by
// 256 bytes that hold its size, for cuMemFree's accounting.
constexpr size_t kAllocationAlignment = 256;

CUresult cuMemAlloc(CUdeviceptr *ptr, size_t bytes) {
  if (usedMemory + bytes > totalMemory())
    return CUDA_ERROR_OUT_OF_MEMORY;
  size_t rounded = (bytes + kAllocationAlignment - 1) / kAllocationAlignment *
                   kAllocationAlignment;
  auto *block = static_cast<uint64_t *>(
      std::aligned_alloc(kAllocationAlignment, kAllocationAlignment + rounded));
  if (!block)
    return CUDA_ERROR_OUT_OF_MEMORY;
  block[0] = bytes;
  usedMemory += bytes;
  *ptr = reinterpret_cast<CUdeviceptr>(block) + kAllocationAlignment;
  return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr ptr) {
  if (!ptr)
    return CUDA_SUCCESS;
  auto *block = reinterpret_cast<uint64_t *>(ptr - kAllocationAlignment);
  usedMemory -= block[0];
  std::free(block);
  return CUDA_SUCCESS;
}

CUresult cuMemGetInfo(size_t *freeBytes, size_t *totalBytes) {
  *totalBytes = totalMemory();
  *freeBytes = totalMemory() - usedMemory;
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes,
                           CUstream) {
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes,
                           CUstream) {
  if (contextBroken)
    return pendingError;
  std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                           CUstream) {
  std::memmove(reinterpret_cast<void *>(dst),
               reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t bytes,
                         CUstream) {
  std::memset(reinterpret_cast<void *>(dst), value, bytes);
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned,
                        unsigned, unsigned, unsigned, CUstream stream,
                        void **, void **) {
  logStreamCall("cuLaunchKernel on " + streamText(stream));
  return capturing ? CUDA_SUCCESS : launch();
}

/// A launch with attributes: one that allows programmatic stream
/// serialization is counted (stride_fake_cuda_dependent_launches) and, as
/// on a GPU without griddepcontrol, refused below compute capability 9.0.
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction, void **,
                          void **) {
  std::string window;
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW) {
      lastL2Window = config->attrs[i].value.accessPolicyWindow;
      ++l2WindowLaunches;
      window = " with an L2 window of " + std::to_string(lastL2Window.num_bytes) +
               " bytes, hit ratio " + std::to_string(lastL2Window.hitRatio);
    }
  logStreamCall("cuLaunchKernelEx on " + streamText(config->hStream) + window);
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute &a = config->attrs[i];
    if (a.id != CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION ||
        !a.value.programmaticStreamSerializationAllowed)
      continue;
    if (computeCapability() < 90)
      return CUDA_ERROR_NOT_SUPPORTED;
    ++dependentLaunches;
  }
  return capturing ? CUDA_SUCCESS : launch();
}

CUresult cuStreamCreate(CUstream *stream, unsigned) {
  *stream = numberedHandle<CUstream>(streamsCreated);
  logStreamCall("cuStreamCreate " + streamText(*stream));
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy(CUstream stream) {
  logStreamCall("cuStreamDestroy " + streamText(stream));
  return CUDA_SUCCESS;
}

/// Work runs at once, so a wait has nothing to wait for; it is logged.
CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned) {
  logStreamCall("cuStreamWaitEvent " + streamText(stream) + " waits for " +
                eventText(event));
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream) { return synchronize(); }
/// A stream is idle (its pending error, if any, comes with the
/// synchronization), unless STRIDE_FAKE_CUDA_STREAM_BUSY is set: then it
/// never finishes, as when a collective waits for a rank that stopped.
CUresult cuStreamQuery(CUstream) {
  return std::getenv("STRIDE_FAKE_CUDA_STREAM_BUSY") ? CUDA_ERROR_NOT_READY
                                                     : CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *event, unsigned flags) {
  *event = numberedHandle<CUevent>(eventsCreated);
  logStreamCall("cuEventCreate " + eventText(*event) +
                (flags & CU_EVENT_DISABLE_TIMING ? " without timing" : ""));
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent event, CUstream stream) {
  logStreamCall("cuEventRecord " + eventText(event) + " on " +
                streamText(stream));
  recordedAt[numberOf(event)] = spentMs;
  return CUDA_SUCCESS;
}
CUresult cuEventSynchronize(CUevent) { return synchronize(); }

/// 1 ms, plus what the fake libraries said their work between the two
/// records took (stride_fake_cuda_spend).
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  *ms = 1.0f + float(recordedAt[numberOf(end)] - recordedAt[numberOf(start)]);
  return CUDA_SUCCESS;
}

CUresult cuStreamBeginCapture(CUstream stream, CUstreamCaptureMode) {
  logStreamCall("cuStreamBeginCapture " + streamText(stream));
  capturing = true;
  return CUDA_SUCCESS;
}
CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  logStreamCall("cuStreamEndCapture " + streamText(stream));
  capturing = false;
  *graph = handle<CUgraph>();
  return CUDA_SUCCESS;
}
CUresult cuGraphInstantiate(CUgraphExec *exec, CUgraph, unsigned long long) {
  *exec = handle<CUgraphExec>();
  ++graphInstantiations;
  return CUDA_SUCCESS;
}
// STRIDE_FAKE_CUDA_GRAPH_UPDATE=<code> refuses updates, as the driver does
// when a graph's topology changed.
CUresult cuGraphExecUpdate(CUgraphExec, CUgraph,
                           CUgraphExecUpdateResultInfo *info) {
  CUresult r = envResult("STRIDE_FAKE_CUDA_GRAPH_UPDATE");
  info->result = r == CUDA_SUCCESS ? CU_GRAPH_EXEC_UPDATE_SUCCESS
                                   : CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
  if (r == CUDA_SUCCESS)
    ++graphUpdates;
  return r;
}
CUresult cuGraphLaunch(CUgraphExec, CUstream) { return launch(); }
CUresult cuGraphExecDestroy(CUgraphExec) { return CUDA_SUCCESS; }
CUresult cuGraphDestroy(CUgraph) { return CUDA_SUCCESS; }

} // extern "C"

/// For the tests (FakeCudaTest.cpp finds it with dlsym): how many launches
/// allowed programmatic stream serialization so far.
extern "C" size_t stride_fake_cuda_persisting_l2_limit() { return persistingL2Limit; }
/// The limit of a new context (0), whatever STRIDE_FAKE_CUDA_SET_LIMIT says.
extern "C" void stride_fake_cuda_reset_persisting_l2_limit() { persistingL2Limit = 0; }
extern "C" int stride_fake_cuda_l2_window_launches() { return l2WindowLaunches; }
extern "C" CUaccessPolicyWindow stride_fake_cuda_last_l2_window() { return lastL2Window; }

extern "C" int stride_fake_cuda_dependent_launches() {
  return dependentLaunches;
}

/// For the tests: how many graphs were instantiated, and how many updated
/// in place, so far.
extern "C" int stride_fake_cuda_graph_instantiations() {
  return graphInstantiations;
}
extern "C" int stride_fake_cuda_graph_updates() { return graphUpdates; }

/// For the fake libraries: work they just enqueued takes `ms` milliseconds,
/// which the events recorded before and after it measure (the fake cuDNN's
/// STRIDE_FAKE_CUDNN_ENGINE_MS).
extern "C" void stride_fake_cuda_spend(double ms) { spentMs += ms; }
