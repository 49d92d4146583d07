//===- Nccl.h - NCCL through dlopen, one process per GPU --------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The runtime's side of collectives (python-free-docs/distributed.md): NCCL's
// C API bound through dlopen as cuBLASLt's is (its entry points declared
// here with NCCL's stable ABI, so the build needs no nccl.h), the group's
// rank and size from the environment torchrun sets, the unique id's
// rendezvous through a file, NVLink multicast kept off, and every wait on
// the group bounded by a timeout that aborts the communicator. The plan's
// collective steps (nccl.all_reduce, nccl.all_gather, nccl.reduce_scatter)
// run on it through NcclCollective.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_RUNTIME_NCCL_H
#define STRIDE_LIB_RUNTIME_NCCL_H

#include "stride/Support/Result.h"

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

extern "C" {
/// NCCL's C ABI (nccl.h, NCCL 2.x), the part Stride calls.
typedef struct ncclComm *ncclComm_t;
typedef struct {
  char internal[128];
} ncclUniqueId;
typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7
} ncclResult_t;
typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 } ncclRedOp_t;
typedef enum {
  ncclInt8 = 0, ncclUint8 = 1, ncclInt32 = 2, ncclUint32 = 3, ncclInt64 = 4,
  ncclUint64 = 5, ncclFloat16 = 6, ncclFloat32 = 7, ncclFloat64 = 8,
  ncclBfloat16 = 9
} ncclDataType_t;
typedef struct CUstream_st *ncclStream_t;
ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId);
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId,
                              int rank);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
ncclResult_t ncclCommAbort(ncclComm_t comm);
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError);
const char *ncclGetErrorString(ncclResult_t result);
ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, ncclStream_t stream);
ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff,
                           size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, ncclStream_t stream);
ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff,
                               size_t recvcount, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm,
                               ncclStream_t stream);
}

namespace stride {

#define STRIDE_NCCL_FUNCTIONS(X)                                               \
  X(ncclGetUniqueId) X(ncclCommInitRank) X(ncclCommDestroy) X(ncclCommAbort)   \
  X(ncclCommGetAsyncError) X(ncclGetErrorString) X(ncclAllReduce)              \
  X(ncclAllGather) X(ncclReduceScatter)

struct Nccl {
#define STRIDE_DECLARE_NCCL_FN(fn) decltype(&::fn) fn = nullptr;
  STRIDE_NCCL_FUNCTIONS(STRIDE_DECLARE_NCCL_FN)
#undef STRIDE_DECLARE_NCCL_FN

  /// The file it was loaded from.
  std::string path;

  /// "ncclCommInitRank returned 'unhandled system error' (2)".
  std::string failure(const char *function, ncclResult_t result) const;
};

/// libnccl.so.2 (or the file STRIDE_NCCL names), bound once per file; an
/// error says what to install. `where` names the caller in messages.
Result<const Nccl *> loadNccl(const std::string &where);

/// This process's place in the group, from the environment torchrun sets:
/// RANK, WORLD_SIZE, LOCAL_RANK (the GPU; RANK when unset), and
/// STRIDE_NCCL_ID_FILE, the file through which rank 0 hands the others
/// NCCL's unique id (a path every rank of the host sees).
struct GroupPlace {
  int rank = 0, worldSize = 1, localRank = 0;
  std::string idFile;
};
Result<GroupPlace> groupPlaceFromEnvironment();

/// Sets NCCL_NVLS_ENABLE=0 in this process's environment unless it is
/// already 0: NVLink multicast (NVLS) stays off on every communicator
/// (on the lent machines it can take a host's GPUs out of service).
/// Called before every ncclCommInitRank.
void keepNvlinkMulticastOff();

/// Rank 0 makes NCCL's unique id and writes it to place.idFile (atomically:
/// a temporary file renamed); the other ranks wait for the file, at most
/// `timeout`.
Result<ncclUniqueId> exchangeUniqueId(const Nccl &nccl, const GroupPlace &place,
                                      std::chrono::milliseconds timeout);

/// Waits until `finished()` (e.g. a CUDA event of the collective's stream
/// has completed), polling the communicator's asynchronous error: an error
/// or the timeout aborts the communicator (ncclCommAbort, so no rank hangs
/// on it) and returns an error naming the rank and `what`.
Status waitForGroup(const Nccl &nccl, ncclComm_t comm, int rank,
                    const std::string &what,
                    const std::function<bool()> &finished,
                    std::chrono::milliseconds timeout);

} // namespace stride

#endif // STRIDE_LIB_RUNTIME_NCCL_H
