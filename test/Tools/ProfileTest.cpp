//===- ProfileTest.cpp - stride-run's profile and memory report -----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Profile.h"

#include <gtest/gtest.h>

using namespace stride;

namespace {

ProfileReport report() {
  ProfileReport p;
  p.module = "m.stridemod";
  p.device = "device 0 (GPU \"X\", sm_90)";
  p.warmup = 2;
  p.iterations = 5;
  p.steps = {{{StepKind::Kernel, "fused_0"}, 0.25},
             {{StepKind::LibraryCall, "cublaslt.matmul f32 m=8 n=4 k=2 batch=1"},
              0.5},
             {{StepKind::Fill, "64 bytes"}, 0.125},
             {{StepKind::Kernel, "fused_1"}, 0.125}};
  p.memory.buffers = {1 << 20, 4096, 2048, 64, 32};
  p.memory.peakBytes = (1 << 20) + 2144;
  return p;
}

TEST(Profile, TextListsEveryStepAndEachKind) {
  EXPECT_EQ(
      formatProfileText(report()),
      "profile of m.stridemod on device 0 (GPU \"X\", sm_90): 5 runs step by "
      "step after 2 warm-up runs; median per step\n"
      " step  kind                  ms   share  name\n"
      "    1  kernel            0.2500   25.0%  fused_0\n"
      "    2  library call      0.5000   50.0%  cublaslt.matmul f32 m=8 n=4 k=2 batch=1\n"
      "    3  fill              0.1250   12.5%  64 bytes\n"
      "    4  kernel            0.1250   12.5%  fused_1\n"
      "       total             1.0000  100.0%  4 steps\n"
      "       kernel            0.3750   37.5%  2 steps\n"
      "       library call      0.5000   50.0%  1 steps\n"
      "       copy              0.0000    0.0%  0 steps\n"
      "       fill              0.1250   12.5%  1 steps\n"
      "device memory: constants 1.0 MiB (1048576 bytes), arena of "
      "temporaries and outputs 0.0 MiB (4096 bytes), other temporaries 0.0 "
      "MiB (2048 bytes), inputs 0.0 MiB (64 bytes), other outputs 0.0 MiB "
      "(32 bytes); peak allocated by the runtime 1.0 MiB (1050720 bytes)\n");
}

TEST(Profile, JsonHasTheSameFigures) {
  EXPECT_EQ(formatProfileJson(report()),
            "{\n"
            "  \"module\": \"m.stridemod\",\n"
            "  \"device\": \"device 0 (GPU \\\"X\\\", sm_90)\",\n"
            "  \"warmup\": 2,\n"
            "  \"iterations\": 5,\n"
            "  \"steps\": [\n"
            "    {\"index\": 1, \"kind\": \"kernel\", \"name\": \"fused_0\", "
            "\"median_ms\": 0.25, \"share\": 0.25},\n"
            "    {\"index\": 2, \"kind\": \"library call\", \"name\": "
            "\"cublaslt.matmul f32 m=8 n=4 k=2 batch=1\", \"median_ms\": 0.5, "
            "\"share\": 0.5},\n"
            "    {\"index\": 3, \"kind\": \"fill\", \"name\": \"64 bytes\", "
            "\"median_ms\": 0.125, \"share\": 0.125},\n"
            "    {\"index\": 4, \"kind\": \"kernel\", \"name\": \"fused_1\", "
            "\"median_ms\": 0.125, \"share\": 0.125}\n"
            "  ],\n"
            "  \"total_ms\": 1,\n"
            "  \"kinds\": {\n"
            "    \"kernel\": {\"steps\": 2, \"ms\": 0.375, \"share\": 0.375},\n"
            "    \"library call\": {\"steps\": 1, \"ms\": 0.5, \"share\": 0.5},\n"
            "    \"copy\": {\"steps\": 0, \"ms\": 0, \"share\": 0},\n"
            "    \"fill\": {\"steps\": 1, \"ms\": 0.125, \"share\": 0.125}\n"
            "  },\n"
            "  \"memory\": {\"constant_bytes\": 1048576, \"arena_bytes\": "
            "4096, \"temporary_bytes\": 2048, \"input_bytes\": 64, "
            "\"output_bytes\": 32, \"peak_bytes\": 1050720}\n"
            "}\n");
}

} // namespace
