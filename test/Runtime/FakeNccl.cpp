//===- FakeNccl.cpp - A libnccl.so.2 without GPUs, for tests --------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The NCCL entry points lib/Runtime/Nccl.h binds, for FakeNcclTest.cpp: a
// communicator is a counter of aborts; FAKE_NCCL_ASYNC_ERROR=N makes
// ncclCommGetAsyncError report error N (a failed rank's remote error), and
// fakeNcclAborts() says how often ncclCommAbort was called. Built a second
// time without ncclCommAbort (STRIDE_FAKE_NCCL_WITHOUT_ABORT).
//
//===----------------------------------------------------------------------===//

#include "../../lib/Runtime/Nccl.h"

#include <cstdlib>
#include <cstring>

namespace {
int aborts = 0;
struct ncclCommState {
  int rank, ranks;
};
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
  *comm = reinterpret_cast<ncclComm_t>(new ncclCommState{rank, nranks});
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

ncclResult_t ncclAllReduce(const void *, void *, size_t, ncclDataType_t,
                           ncclRedOp_t, ncclComm_t, ncclStream_t) {
  return ncclSuccess;
}

ncclResult_t ncclAllGather(const void *, void *, size_t, ncclDataType_t,
                           ncclComm_t, ncclStream_t) {
  return ncclSuccess;
}

ncclResult_t ncclReduceScatter(const void *, void *, size_t, ncclDataType_t,
                               ncclRedOp_t, ncclComm_t, ncclStream_t) {
  return ncclSuccess;
}
}
