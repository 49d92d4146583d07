//===- FakeNcclTest.cpp - NCCL through the fake libnccl.so.2 --------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// lib/Runtime/Nccl.h without GPUs: the missing library and symbol, the
// group's place from torchrun's environment, NVLink multicast kept off,
// the unique id's rendezvous through a file, and a failing or silent rank
// ending the wait with a message and an aborted communicator.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Runtime/Nccl.h"
#include "FakeRuntime.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

using namespace stride;
using namespace stride::test;
using std::chrono::milliseconds;

namespace {

const std::string kFake = STRIDE_FAKE_NCCL_DIR "/libnccl.so.2";

int abortsOf(const Nccl &nccl) {
  void *handle = dlopen(nccl.path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  auto count = reinterpret_cast<int (*)()>(dlsym(handle, "fakeNcclAborts"));
  return count ? count() : -1;
}

const Nccl &fakeNccl() {
  FakeSetting library("STRIDE_NCCL", kFake.c_str());
  Result<const Nccl *> nccl = loadNccl("test");
  EXPECT_TRUE(bool(nccl)) << (nccl ? "" : nccl.error().message);
  return **nccl;
}

TEST(FakeNccl, MissingLibraryNamesWhatToInstall) {
  FakeSetting missing("STRIDE_NCCL", "/nonexistent/libnccl.so.2");
  Result<const Nccl *> nccl = loadNccl("step 3 (all_reduce)");
  ASSERT_FALSE(bool(nccl));
  EXPECT_EQ(nccl.error().code, ErrorCode::NotFound);
  EXPECT_TRUE(contains(nccl.error().message,
                       "step 3 (all_reduce) needs NCCL (libnccl.so.2), which "
                       "could not be loaded (/nonexistent/"))
      << nccl.error().message;
  EXPECT_TRUE(contains(nccl.error().message,
                       "install NCCL: the pip package nvidia-nccl-cu13 "
                       "(PyTorch's site-packages/nvidia/nccl/lib holds "
                       "libnccl.so.2), or set STRIDE_NCCL"))
      << nccl.error().message;
}

TEST(FakeNccl, MissingSymbol) {
  FakeSetting other("STRIDE_NCCL", STRIDE_FAKE_NCCL_WITHOUT_ABORT_DIR
                    "/libnccl.so.2");
  Result<const Nccl *> nccl = loadNccl("test");
  ASSERT_FALSE(bool(nccl));
  EXPECT_EQ(nccl.error().code, ErrorCode::Incompatible);
  EXPECT_TRUE(contains(nccl.error().message, "needs symbol 'ncclCommAbort'"))
      << nccl.error().message;
}

TEST(FakeNccl, GroupPlaceFromTorchrunsEnvironment) {
  FakeSetting rank("RANK", "1"), size("WORLD_SIZE", "2"),
      file("STRIDE_NCCL_ID_FILE", "/tmp/id");
  Result<GroupPlace> place = groupPlaceFromEnvironment();
  ASSERT_TRUE(bool(place)) << place.error().message;
  EXPECT_EQ(place->rank, 1);
  EXPECT_EQ(place->worldSize, 2);
  EXPECT_EQ(place->localRank, 1); // LOCAL_RANK unset: the rank
  {
    FakeSetting local("LOCAL_RANK", "0");
    EXPECT_EQ(groupPlaceFromEnvironment()->localRank, 0);
  }
  FakeSetting bad("RANK", "2");
  Result<GroupPlace> outside = groupPlaceFromEnvironment();
  ASSERT_FALSE(bool(outside));
  EXPECT_EQ(outside.error().message, "RANK=2 is not an integer in [0, 2)");
}

TEST(FakeNccl, GroupPlaceNeedsTheEnvironment) {
  Result<GroupPlace> none = groupPlaceFromEnvironment();
  ASSERT_FALSE(bool(none));
  EXPECT_TRUE(contains(none.error().message,
                       "WORLD_SIZE is not set: run one process per GPU under "
                       "torchrun"))
      << none.error().message;
  FakeSetting rank("RANK", "0"), size("WORLD_SIZE", "2");
  EXPECT_TRUE(contains(groupPlaceFromEnvironment().error().message,
                       "STRIDE_NCCL_ID_FILE is not set"));
}

TEST(FakeNccl, NvlinkMulticastStaysOff) {
  {
    FakeSetting on("NCCL_NVLS_ENABLE", "1");
    keepNvlinkMulticastOff();
    EXPECT_STREQ(std::getenv("NCCL_NVLS_ENABLE"), "0");
  }
  keepNvlinkMulticastOff();
  EXPECT_STREQ(std::getenv("NCCL_NVLS_ENABLE"), "0");
  unsetenv("NCCL_NVLS_ENABLE");
}

TEST(FakeNccl, UniqueIdThroughAFile) {
  const Nccl &nccl = fakeNccl();
  std::string file = "/tmp/stride-nccl-id-" + std::to_string(getpid());
  std::remove(file.c_str());
  GroupPlace rank0{0, 2, 0, file}, rank1{1, 2, 1, file};
  Result<ncclUniqueId> waiting = exchangeUniqueId(nccl, rank1, milliseconds(20));
  ASSERT_FALSE(bool(waiting));
  EXPECT_EQ(waiting.error().message,
            "rank 1 waited 20 ms for rank 0's NCCL unique id in " + file +
                " (did rank 0 start?)");
  Result<ncclUniqueId> received = makeError(ErrorCode::Internal, "not run");
  std::thread other(
      [&] { received = exchangeUniqueId(nccl, rank1, milliseconds(5000)); });
  Result<ncclUniqueId> made = exchangeUniqueId(nccl, rank0, milliseconds(5000));
  other.join();
  ASSERT_TRUE(bool(made) && bool(received));
  EXPECT_STREQ(received->internal, "fake-nccl-unique-id");
  std::remove(file.c_str());
}

TEST(FakeNccl, FailingRankEndsTheWaitAndAborts) {
  const Nccl &nccl = fakeNccl();
  ncclComm_t comm = nullptr;
  ncclUniqueId id{};
  ASSERT_EQ(nccl.ncclCommInitRank(&comm, 2, id, 0), ncclSuccess);
  int before = abortsOf(nccl);
  FakeSetting remote("FAKE_NCCL_ASYNC_ERROR", "6");
  Status s = waitForGroup(nccl, comm, 0, "step 4 (all_reduce 'o')",
                          [] { return false; }, milliseconds(5000));
  ASSERT_FALSE(bool(s));
  EXPECT_EQ(s.error().code, ErrorCode::DeviceFault);
  EXPECT_EQ(s.error().message,
            "rank 0: step 4 (all_reduce 'o') failed: ncclCommGetAsyncError "
            "returned 'remote process exited or there was a network error' "
            "(6) (the communicator was aborted)");
  EXPECT_EQ(abortsOf(nccl), before + 1);
}

TEST(FakeNccl, SilentRankTimesOutAndAborts) {
  const Nccl &nccl = fakeNccl();
  ncclComm_t comm = nullptr;
  ncclUniqueId id{};
  ASSERT_EQ(nccl.ncclCommInitRank(&comm, 2, id, 1), ncclSuccess);
  int before = abortsOf(nccl);
  Status s = waitForGroup(nccl, comm, 1, "step 4 (all_reduce 'o')",
                          [] { return false; }, milliseconds(30));
  ASSERT_FALSE(bool(s));
  EXPECT_EQ(s.error().code, ErrorCode::Unavailable);
  EXPECT_EQ(s.error().message,
            "rank 1: step 4 (all_reduce 'o') did not finish within 30 ms "
            "(another rank failed or stopped?); the communicator was aborted");
  EXPECT_EQ(abortsOf(nccl), before + 1);
  ASSERT_EQ(nccl.ncclCommInitRank(&comm, 2, id, 1), ncclSuccess);
  EXPECT_TRUE(bool(waitForGroup(nccl, comm, 1, "done", [] { return true; },
                                milliseconds(30))));
  nccl.ncclCommDestroy(comm);
}

} // namespace
