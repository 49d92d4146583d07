//===- FakeNccl.cpp - A libnccl.so.2 without GPUs, for tests --------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The NCCL entry points lib/Runtime/Nccl.h binds, for FakeNcclTest.cpp and
// the collective steps' tests (test/Runtime/collectives.test): a
// communicator is its rank and size; FAKE_NCCL_ASYNC_ERROR=N makes
// ncclCommGetAsyncError report error N (a failed rank's remote error), and
// fakeNcclAborts() says how often ncclCommAbort was called. Built a second
// time without ncclCommAbort (STRIDE_FAKE_NCCL_WITHOUT_ABORT).
//
// The collectives run at once on the fake CUDA driver's "device memory"
// (host memory), as if every rank of the group had contributed this rank's
// input: an all_reduce sum is world_size times the input, avg, max and min
// the input itself, an all_gather world_size copies, a reduce_scatter this
// rank's block (times world_size for a sum). FAKE_NCCL_LOG=FILE appends one
// line per ncclCommInitRank and collective call to FILE;
// FAKE_NCCL_FAIL_RANK=R makes rank R's collective calls fail with
// ncclSystemError; FAKE_NCCL_INIT_HANG makes ncclCommInitRank never return
// (a rank that never joins the group).
//
//===----------------------------------------------------------------------===//

#include "../../lib/Runtime/Nccl.h"
#include "FakeLog.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {
int aborts = 0;
struct ncclCommState {
  int rank, ranks;
};

ncclCommState &state(ncclComm_t comm) {
  return *reinterpret_cast<ncclCommState *>(comm);
}

void log(const std::string &line) {
  stride::fake::appendLogLine("FAKE_NCCL_LOG", line);
}

/// Logs a collective call; false when this rank is to fail.
bool call(const char *function, size_t count, ncclDataType_t type, int op,
          ncclComm_t comm) {
  const ncclCommState &c = state(comm);
  log("rank " + std::to_string(c.rank) + " of " + std::to_string(c.ranks) +
      ": " + function + " count " + std::to_string(count) + " type " +
      std::to_string(int(type)) +
      (op < 0 ? std::string() : " op " + std::to_string(op)));
  const char *failing = std::getenv("FAKE_NCCL_FAIL_RANK");
  return !failing || std::atoi(failing) != c.rank;
}

size_t bytesOf(ncclDataType_t type) {
  switch (type) {
  case ncclInt8: case ncclUint8: return 1;
  case ncclFloat16: case ncclBfloat16: return 2;
  case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
  default: return 8;
  }
}

template <typename T> void scale(T *data, size_t count, int factor) {
  for (size_t i = 0; i < count; ++i)
    data[i] = T(data[i] * factor);
}

/// Multiplies `count` elements by `factor` in place, as a sum of `factor`
/// equal contributions (bf16 through float; f16 is left as is).
void multiply(void *data, size_t count, ncclDataType_t type, int factor) {
  switch (type) {
  case ncclInt8: return scale(static_cast<int8_t *>(data), count, factor);
  case ncclUint8: return scale(static_cast<uint8_t *>(data), count, factor);
  case ncclInt32: return scale(static_cast<int32_t *>(data), count, factor);
  case ncclUint32: return scale(static_cast<uint32_t *>(data), count, factor);
  case ncclInt64: return scale(static_cast<int64_t *>(data), count, factor);
  case ncclUint64: return scale(static_cast<uint64_t *>(data), count, factor);
  case ncclFloat32: return scale(static_cast<float *>(data), count, factor);
  case ncclFloat64: return scale(static_cast<double *>(data), count, factor);
  case ncclBfloat16: {
    auto *bits = static_cast<uint16_t *>(data);
    for (size_t i = 0; i < count; ++i) {
      uint32_t wide = uint32_t(bits[i]) << 16;
      float value;
      std::memcpy(&value, &wide, 4);
      value *= float(factor);
      std::memcpy(&wide, &value, 4);
      bits[i] = uint16_t(wide >> 16); // truncation: exact for small factors
    }
    return;
  }
  default: return;
  }
}
} // namespace

extern "C" {

int fakeNcclAborts() { return aborts; }

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  std::memset(id->internal, 0, sizeof(id->internal));
  std::strcpy(id->internal, "fake-nccl-unique-id");
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId,
                              int rank) {
  // A rank that never joins: the others wait forever.
  while (std::getenv("FAKE_NCCL_INIT_HANG"))
    std::this_thread::sleep_for(std::chrono::seconds(1));
  *comm = reinterpret_cast<ncclComm_t>(new ncclCommState{rank, nranks});
  const char *nvls = std::getenv("NCCL_NVLS_ENABLE");
  log("rank " + std::to_string(rank) + " of " + std::to_string(nranks) +
      ": ncclCommInitRank NCCL_NVLS_ENABLE=" + (nvls ? nvls : "(unset)"));
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  delete reinterpret_cast<ncclCommState *>(comm);
  return ncclSuccess;
}

#ifndef STRIDE_FAKE_NCCL_WITHOUT_ABORT
ncclResult_t ncclCommAbort(ncclComm_t comm) {
  ++aborts;
  delete reinterpret_cast<ncclCommState *>(comm);
  return ncclSuccess;
}
#endif

ncclResult_t ncclCommGetAsyncError(ncclComm_t, ncclResult_t *asyncError) {
  const char *error = std::getenv("FAKE_NCCL_ASYNC_ERROR");
  *asyncError = error ? ncclResult_t(std::atoi(error)) : ncclSuccess;
  return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t result) {
  return result == ncclRemoteError ? "remote process exited or there was a "
                                     "network error"
                                   : "unhandled system error";
}

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count,
                           ncclDataType_t type, ncclRedOp_t op,
                           ncclComm_t comm, ncclStream_t) {
  if (!call("ncclAllReduce", count, type, op, comm))
    return ncclSystemError;
  std::memmove(recv, send, count * bytesOf(type));
  if (op == ncclSum)
    multiply(recv, count, type, state(comm).ranks);
  return ncclSuccess;
}

ncclResult_t ncclAllGather(const void *send, void *recv, size_t count,
                           ncclDataType_t type, ncclComm_t comm,
                           ncclStream_t) {
  if (!call("ncclAllGather", count, type, -1, comm))
    return ncclSystemError;
  size_t bytes = count * bytesOf(type);
  for (int r = 0; r < state(comm).ranks; ++r)
    std::memmove(static_cast<char *>(recv) + r * bytes, send, bytes);
  return ncclSuccess;
}

ncclResult_t ncclReduceScatter(const void *send, void *recv, size_t count,
                               ncclDataType_t type, ncclRedOp_t op,
                               ncclComm_t comm, ncclStream_t) {
  if (!call("ncclReduceScatter", count, type, op, comm))
    return ncclSystemError;
  size_t bytes = count * bytesOf(type);
  std::memmove(recv, static_cast<const char *>(send) + state(comm).rank * bytes,
               bytes);
  if (op == ncclSum)
    multiply(recv, count, type, state(comm).ranks);
  return ncclSuccess;
}
}
