//===- NcclCollective.h - Collective steps through NCCL --------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Runtime: the routines `nccl.all_reduce`, `nccl.all_gather`
// and `nccl.reduce_scatter` that a module's collective steps call
// (python-free-docs/distributed.md, "The runtime"). The first one an
// executable's load prepares joins the group: the place from the
// environment (Nccl.h), the module's world size checked against it, NVLink
// multicast off, the unique id's rendezvous and ncclCommInitRank, each
// bounded by the collective timeout. The communicator belongs to the
// executable; its invocations run the plan's collectives one run at a time,
// in the same order on every rank.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_RUNTIME_NCCLCOLLECTIVE_H
#define STRIDE_LIB_RUNTIME_NCCLCOLLECTIVE_H

#include "LibraryRegistry.h"
#include "Nccl.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace stride {

/// This process's communicator of the group, shared by an executable's
/// collective steps.
class CollectiveGroup {
public:
  CollectiveGroup(const Nccl &nccl, GroupPlace place, ncclComm_t comm,
                  std::chrono::milliseconds timeout)
      : nccl(nccl), place(std::move(place)), comm(comm), timeout(timeout) {}
  ~CollectiveGroup();
  CollectiveGroup(const CollectiveGroup &) = delete;
  CollectiveGroup &operator=(const CollectiveGroup &) = delete;

  const Nccl &library() const { return nccl; }
  const GroupPlace &groupPlace() const { return place; }
  /// Null once a failure aborted it.
  ncclComm_t communicator() const { return comm; }

  /// Waits until `finished()` (the stream that ran the collectives is
  /// idle), bounded by the timeout (waitForGroup): an error of another
  /// rank or the timeout aborts the communicator and fails every later
  /// step. `what` names the wait in messages.
  Status wait(const std::string &what, const std::function<bool()> &finished);

private:
  const Nccl &nccl;
  GroupPlace place;
  ncclComm_t comm;
  std::chrono::milliseconds timeout;
};

/// STRIDE_NCCL_TIMEOUT_MS, else 10 minutes: how long joining the group and
/// each wait for the plan's collectives may take.
std::chrono::milliseconds collectiveTimeout();

/// Prepares a step of `nccl.all_reduce`, `nccl.all_gather` or
/// `nccl.reduce_scatter`; the first joins the group (kept in
/// `loadSessions`).
Result<std::unique_ptr<PreparedLibraryCall>>
prepareNcclCollective(const LibraryCallContext &context,
                      LibrarySessions &loadSessions);

/// The group an executable's load joined, or null when it has no
/// collective step.
std::shared_ptr<CollectiveGroup>
collectiveGroupOf(const LibrarySessions &loadSessions);

} // namespace stride

#endif // STRIDE_LIB_RUNTIME_NCCLCOLLECTIVE_H
