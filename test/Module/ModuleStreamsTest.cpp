//===- ModuleStreamsTest.cpp - The collective stream in module files ------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Format version 6's streams and events (python-free-docs/module-format.md,
// "Streams and events"): they survive the file, every malformed value is
// refused when the file loads with a message that names the step, and a
// version 5 file (one stream) still loads.
//
//===----------------------------------------------------------------------===//

#include "ModuleTestUtil.h"

#include <gtest/gtest.h>

using namespace stride;
using namespace stride::test;

namespace {

EventStep &event(ModuleDesc &d, size_t step) {
  return std::get<EventStep>(d.steps[step]);
}

std::string roundTripError(const ModuleDesc &d) {
  std::vector<uint8_t> bytes = serializeModule(d);
  Result<ModuleDesc> r = parseModule(bytes.data(), bytes.size(), "m.stridemod");
  return r ? std::string("(parsed)") : r.error().message;
}

const std::string kInconsistent = "m.stridemod: inconsistent module: ";

TEST(ModuleStreamsTest, StreamsAndEventsSurviveTheFile) {
  ModuleDesc d = streamedModule();
  ASSERT_TRUE(verifyModule(d, "m"));
  std::vector<uint8_t> bytes = serializeModule(d);
  Result<ModuleDesc> parsed =
      parseModule(bytes.data(), bytes.size(), "m.stridemod");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, d);
  EXPECT_NE(describeModule(*parsed).find(
                "step 3 of 6: wait for event 0 on the collective stream"),
            std::string::npos);
  EXPECT_NE(describeModule(*parsed).find("on the collective stream\n  step 5"),
            std::string::npos);
}

TEST(ModuleStreamsTest, MalformedStreamIsRefused) {
  ModuleDesc d = streamedModule();
  event(d, 2).stream = static_cast<StreamId>(2);
  EXPECT_EQ(roundTripError(d),
            kInconsistent + "step 3 of 6 runs on stream 2; a module has "
                            "streams 0 (the invocation's) and 1 (the "
                            "collective stream)");
  d = streamedModule();
  std::get<LibraryCallStep>(d.steps[3]).stream = static_cast<StreamId>(7);
  EXPECT_EQ(roundTripError(d),
            kInconsistent + "step 4 of 6 runs on stream 7; a module has "
                            "streams 0 (the invocation's) and 1 (the "
                            "collective stream)");
}

TEST(ModuleStreamsTest, OnlyNcclRunsOnTheCollectiveStream) {
  ModuleDesc d = streamedModule();
  std::get<LibraryCallStep>(d.steps[3]).routine = "cublaslt.matmul";
  EXPECT_EQ(roundTripError(d),
            kInconsistent + "step 4 of 6 (library call 'cublaslt.matmul') "
                            "runs on the collective stream, which runs "
                            "NCCL's routines (nccl.*) only");
}

TEST(ModuleStreamsTest, MalformedEventIsRefused) {
  ModuleDesc d = streamedModule();
  event(d, 2).event = 5;
  EXPECT_EQ(roundTripError(d),
            kInconsistent + "step 3 of 6 names event 5, but the module has 2 "
                            "events");
  d = streamedModule();
  event(d, 2).action = static_cast<EventStep::Action>(3);
  EXPECT_EQ(roundTripError(d),
            kInconsistent + "step 3 of 6 has the event action 3; 0 records, "
                            "1 waits");
  d = streamedModule();
  event(d, 5).event = 1;
  event(d, 4).event = 0;
  EXPECT_EQ(roundTripError(d),
            kInconsistent + "event 0 is recorded by step 2 of 6 and by step 5 "
                            "of 6; each event is recorded once");
  d = streamedModule();
  d.events = 3;
  EXPECT_EQ(roundTripError(d),
            kInconsistent + "event 2 of 3 is never recorded");
  // A count no module could record is refused before anything is sized by
  // it (stride-module-fuzzer found 2^29 events allocating 8 GiB).
  d = streamedModule();
  d.events = 1u << 29;
  EXPECT_EQ(roundTripError(d),
            kInconsistent + "the module declares 536870912 events but has 6 "
                            "steps; each event is recorded by a step of its "
                            "own");
  d = streamedModule();
  std::swap(d.steps[1], d.steps[2]);
  EXPECT_EQ(roundTripError(d),
            kInconsistent +
                "step 2 of 6 waits for event 0 before any step records it");
}

TEST(ModuleStreamsTest, TheCollectiveStreamForksAndJoins) {
  ModuleDesc d = streamedModule();
  d.steps.erase(d.steps.begin() + 1, d.steps.begin() + 3);
  for (size_t step : {2, 3})
    --event(d, step).event;
  d.events = 1;
  EXPECT_EQ(roundTripError(d),
            kInconsistent + "step 2 of 4 is the collective stream's first "
                            "step, but not a wait for an event of the "
                            "invocation's stream (the collective stream "
                            "forks from it)");
  d = streamedModule();
  d.steps.pop_back();
  EXPECT_EQ(roundTripError(d),
            kInconsistent + "the collective stream's last step (step 5 of 5) "
                            "is not joined: the invocation's stream must wait "
                            "for an event recorded after it");
}

TEST(ModuleStreamsTest, VersionFiveRunsOnOneStream) {
  ModuleDesc d = streamedModule();
  d.formatVersion = 5;
  EXPECT_EQ(roundTripError(d),
            kInconsistent + "format version 5 has no events, but the module "
                            "declares 2");
  d.events = 0;
  EXPECT_EQ(roundTripError(d),
            kInconsistent + "step 2 of 6 uses streams or events, which "
                            "format version 5 does not have");
  // What stridec wrote before the collective stream: still loads.
  d.steps.erase(d.steps.begin() + 4, d.steps.end());
  d.steps.erase(d.steps.begin() + 1, d.steps.begin() + 3);
  std::get<LibraryCallStep>(d.steps[1]).stream = StreamId::Main;
  EXPECT_EQ(roundTripError(d), "(parsed)");
}

} // namespace
