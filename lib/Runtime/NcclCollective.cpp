//===- NcclCollective.cpp - The plan's collective steps through NCCL ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// See NcclCollective.h. The descriptor (python-free-docs/distributed.md,
// "The plan's collective step"): buffers input, output; dtype, count,
// input_offset (bytes), world_size, and reduction but for an all_gather.
// Tested through the fake libnccl.so.2 (test/Runtime/FakeNcclTest.cpp,
// test/Runtime/collectives.test).
//
//===----------------------------------------------------------------------===//

#include "NcclCollective.h"

#include "DescriptorReader.h"
#include "RuntimeImpl.h"

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace stride {

namespace {

struct NcclDType {
  const char *name; // as the module's descriptor names it
  ncclDataType_t type;
  int64_t bytes;
};
constexpr NcclDType kDTypes[] = {
    {"f16", ncclFloat16, 2}, {"bf16", ncclBfloat16, 2}, {"f32", ncclFloat32, 4},
    {"f64", ncclFloat64, 8}, {"i8", ncclInt8, 1},       {"ui8", ncclUint8, 1},
    {"i1", ncclUint8, 1},    {"i32", ncclInt32, 4},     {"ui32", ncclUint32, 4},
    {"i64", ncclInt64, 8},   {"ui64", ncclUint64, 8}};

struct NcclReduction {
  const char *name;
  ncclRedOp_t op;
};
constexpr NcclReduction kReductions[] = {
    {"sum", ncclSum}, {"avg", ncclAvg}, {"max", ncclMax}, {"min", ncclMin}};

enum class Kind { AllReduce, AllGather, ReduceScatter };

struct CollectiveProblem {
  Kind kind = Kind::AllReduce;
  const NcclDType *dtype = nullptr;
  ncclRedOp_t reduction = ncclSum;
  int64_t count = 0, inputOffset = 0, worldSize = 1;

  int64_t inputElements() const {
    return kind == Kind::ReduceScatter ? count * worldSize : count;
  }
  int64_t outputElements() const {
    return kind == Kind::AllGather ? count * worldSize : count;
  }
};

Kind kindOf(const std::string &routine) {
  if (routine == "nccl.all_gather")
    return Kind::AllGather;
  if (routine == "nccl.reduce_scatter")
    return Kind::ReduceScatter;
  return Kind::AllReduce;
}

Result<CollectiveProblem> readProblem(const LibraryCallContext &context) {
  CollectiveProblem p;
  p.kind = kindOf(context.call.routine);
  bool reduces = p.kind != Kind::AllGather;
  std::vector<std::string> fields{"dtype", "count", "input_offset",
                                  "world_size"};
  if (reduces)
    fields.push_back("reduction");
  DescriptorReader r(context, fields);
  r.refuseUnknownFields();
  p.dtype = r.choice("dtype", kDTypes);
  p.count = r.integer("count");
  p.inputOffset = r.integer("input_offset");
  p.worldSize = r.integer("world_size");
  if (reduces)
    if (const NcclReduction *reduction = r.choice("reduction", kReductions))
      p.reduction = reduction->op;
  if (p.count < 1 || p.count > (int64_t(1) << 40))
    r.fail("field 'count' is " + str(p.count) + "; it must be in [1, 2^40]");
  if (p.worldSize < 1 || p.worldSize > (1 << 16))
    r.fail("field 'world_size' is " + str(p.worldSize) +
           "; it must be in [1, 65536]");
  if (p.inputOffset < 0)
    r.fail("field 'input_offset' is " + str(p.inputOffset) +
           "; it must be at least 0");
  if (context.call.buffers.size() != 2)
    r.fail("names " + str(int64_t(context.call.buffers.size())) +
           " buffers; a collective takes 2 (input, output)");
  if (r.firstError())
    return *r.firstError();
  auto fits = [&](size_t buffer, int64_t offset, int64_t elements) {
    return context.bufferBytes[buffer] >= offset + elements * p.dtype->bytes;
  };
  if (!fits(0, p.inputOffset, p.inputElements()) ||
      !fits(1, 0, p.outputElements()))
    return makeError(ErrorCode::InvalidModule,
                     context.where + ": its buffers (" +
                         str(int64_t(context.bufferBytes[0])) + " and " +
                         str(int64_t(context.bufferBytes[1])) +
                         " bytes) are smaller than its elements");
  return p;
}

/// The environment's place in the group; a module of world size 1 needs no
/// environment.
Result<GroupPlace> placeFor(int64_t worldSize) {
  const char *size = std::getenv("WORLD_SIZE");
  if (worldSize == 1 && (!size || !*size))
    return GroupPlace{};
  return groupPlaceFromEnvironment();
}

/// ncclCommInitRank waits for every rank: it runs on a thread of its own
/// (with the caller's CUDA context current, so NCCL takes the runtime's
/// device), and a rank that does not join within the timeout fails this one
/// (the thread is left to the process's exit).
Result<ncclComm_t> joinGroup(const CudaDriver &cu, const Nccl &nccl,
                             const GroupPlace &place, const ncclUniqueId &id,
                             std::chrono::milliseconds timeout) {
  CUcontext context = nullptr;
  if (CUresult r = cu.cuCtxGetCurrent(&context); r != CUDA_SUCCESS)
    return makeError(cudaErrorCode(r),
                     "cuCtxGetCurrent failed: " + cu.errorText(r));
  struct Join {
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
    ncclComm_t comm = nullptr;
    ncclResult_t result = ncclSuccess;
  };
  auto join = std::make_shared<Join>();
  std::thread([join, &cu, &nccl, context, place, id] {
    cu.cuCtxSetCurrent(context);
    ncclComm_t comm = nullptr;
    ncclResult_t r =
        nccl.ncclCommInitRank(&comm, place.worldSize, id, place.rank);
    std::lock_guard<std::mutex> lock(join->mutex);
    join->comm = comm;
    join->result = r;
    join->finished = true;
    join->done.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(join->mutex);
  if (!join->done.wait_for(lock, timeout, [&] { return join->finished; }))
    return makeError(ErrorCode::Unavailable,
                     "rank " + str(place.rank) + " waited " +
                         str(timeout.count()) + " ms for the " +
                         str(place.worldSize) +
                         " ranks to join the group (ncclCommInitRank; did "
                         "every rank start?)");
  if (join->result != ncclSuccess)
    return makeError(ErrorCode::Unavailable,
                     "rank " + str(place.rank) + ": " +
                         nccl.failure("ncclCommInitRank", join->result));
  return join->comm;
}

Result<std::shared_ptr<CollectiveGroup>>
createGroup(const LibraryCallContext &context, int64_t worldSize) {
  Result<const Nccl *> nccl = loadNccl(context.where);
  if (!nccl)
    return nccl.error();
  Result<GroupPlace> place = placeFor(worldSize);
  if (!place)
    return prefixError(context.where + ": ", place.error());
  if (place->worldSize != worldSize)
    return makeError(ErrorCode::Incompatible,
                     context.where +
                         ": the module was compiled for a group "
                         "of " +
                         str(worldSize) + " ranks, but this process is rank " +
                         str(place->rank) + " of a group of " +
                         str(place->worldSize) +
                         " (WORLD_SIZE); compile one module per rank for " +
                         str(place->worldSize) + " ranks");
  keepNvlinkMulticastOff();
  std::chrono::milliseconds timeout = collectiveTimeout();
  ncclUniqueId id{};
  if (place->worldSize == 1) {
    if (ncclResult_t r = (*nccl)->ncclGetUniqueId(&id); r != ncclSuccess)
      return makeError(ErrorCode::Unavailable,
                       context.where + ": " +
                           (*nccl)->failure("ncclGetUniqueId", r));
  } else {
    Result<ncclUniqueId> exchanged = exchangeUniqueId(**nccl, *place, timeout);
    if (!exchanged)
      return prefixError(context.where + ": ", exchanged.error());
    id = *exchanged;
  }
  Result<ncclComm_t> comm = joinGroup(context.cu, **nccl, *place, id, timeout);
  if (!comm)
    return prefixError(context.where + ": ", comm.error());
  return std::make_shared<CollectiveGroup>(**nccl, *place, *comm, timeout);
}

/// The key of the group in an executable's load sessions.
const char kGroupKey = 0;

/// A collective step; it keeps no state of its own in an invocation, so
/// every invocation shares this object.
class PreparedCollective final : public PreparedLibraryCall,
                                 public LibraryCallInstance {
public:
  PreparedCollective(CollectiveProblem p,
                     std::shared_ptr<CollectiveGroup> group)
      : p(p), group(std::move(group)) {}

  Result<std::unique_ptr<LibraryCallInstance>>
  instantiate(LibrarySessions &) const override {
    return std::unique_ptr<LibraryCallInstance>(new PreparedCollective(*this));
  }

  Status enqueue(const uint64_t *buffers, CUstream stream) override {
    ncclComm_t comm = group->communicator();
    if (!comm)
      return makeError(ErrorCode::Unavailable,
                       "the group's communicator was aborted by an earlier "
                       "failure; load the module again");
    const Nccl &nccl = group->library();
    const void *input =
        reinterpret_cast<const void *>(buffers[0] + p.inputOffset);
    void *output = reinterpret_cast<void *>(buffers[1]);
    auto *s = reinterpret_cast<ncclStream_t>(stream);
    size_t count = size_t(p.count);
    ncclResult_t r = ncclSuccess;
    const char *function = "ncclAllReduce";
    switch (p.kind) {
    case Kind::AllReduce:
      r = nccl.ncclAllReduce(input, output, count, p.dtype->type, p.reduction,
                             comm, s);
      break;
    case Kind::AllGather:
      function = "ncclAllGather";
      r = nccl.ncclAllGather(input, output, count, p.dtype->type, comm, s);
      break;
    case Kind::ReduceScatter:
      function = "ncclReduceScatter";
      r = nccl.ncclReduceScatter(input, output, count, p.dtype->type,
                                 p.reduction, comm, s);
      break;
    }
    if (r == ncclSuccess)
      return Status::ok();
    return makeError(ErrorCode::DeviceFault,
                     "rank " + str(group->groupPlace().rank) + ": " +
                         nccl.failure(function, r));
  }

private:
  CollectiveProblem p;
  std::shared_ptr<CollectiveGroup> group;
};

} // namespace

CollectiveGroup::~CollectiveGroup() {
  if (comm)
    nccl.ncclCommDestroy(comm);
}

Status CollectiveGroup::wait(const std::string &what,
                             const std::function<bool()> &finished) {
  if (!comm)
    return makeError(ErrorCode::Unavailable,
                     what + ": the group's communicator was aborted by an "
                            "earlier failure; load the module again");
  Status s = waitForGroup(nccl, comm, place.rank, what, finished, timeout);
  if (!s)
    comm = nullptr; // waitForGroup aborted it
  return s;
}

std::chrono::milliseconds collectiveTimeout() {
  const char *text = std::getenv("STRIDE_NCCL_TIMEOUT_MS");
  if (text && *text) {
    char *end = nullptr;
    long long ms = std::strtoll(text, &end, 10);
    if (!*end && ms > 0)
      return std::chrono::milliseconds(ms);
  }
  return std::chrono::minutes(10);
}

Result<std::unique_ptr<PreparedLibraryCall>>
prepareNcclCollective(const LibraryCallContext &context,
                      LibrarySessions &loadSessions) {
  Result<CollectiveProblem> problem = readProblem(context);
  if (!problem)
    return problem.error();
  auto group =
      std::static_pointer_cast<CollectiveGroup>(loadSessions.find(&kGroupKey));
  if (!group) {
    Result<std::shared_ptr<CollectiveGroup>> created =
        createGroup(context, problem->worldSize);
    if (!created)
      return created.error();
    group = *created;
    loadSessions.add(&kGroupKey, group);
  } else if (group->groupPlace().worldSize != problem->worldSize) {
    return makeError(
        ErrorCode::InvalidModule,
        context.where + ": its world size " + str(problem->worldSize) +
            " differs from the group's, " + str(group->groupPlace().worldSize) +
            ", that an earlier step joined");
  }
  return std::unique_ptr<PreparedLibraryCall>(
      new PreparedCollective(*problem, group));
}

std::shared_ptr<CollectiveGroup>
collectiveGroupOf(const LibrarySessions &loadSessions) {
  return std::static_pointer_cast<CollectiveGroup>(
      loadSessions.find(&kGroupKey));
}

} // namespace stride
