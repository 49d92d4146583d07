//===- FakeCudaTest.cpp - Each runtime error code, without a GPU ----------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Linked with a run path to the CUDA driver test double (FakeCuda.cpp), so
// the runtime dlopens it instead of libcuda.so.1 and runs its real code
// paths on any machine. Each test steers the double through its environment
// variables and checks the ErrorCode and message of one kind of failure.
// Where the double is not what got loaded (a GPU machine whose
// LD_LIBRARY_PATH names the real driver), the tests are skipped.
//
//===----------------------------------------------------------------------===//

#include "Benchmark.h"
#include "FakeRuntime.h"

#include <cuda.h>
#include <dlfcn.h>

#include <cstring>
#include <tuple>

using namespace stride;
using namespace stride::test;

namespace {

/// A module for sm_90 of one kernel over two inputs, an output and a
/// temporary; the double runs no code, so the image is only an ELF header.
ModuleDesc fakeModule(const std::string &arch = "sm_90") {
  ModuleDesc d;
  d.producer = "FakeCudaTest";
  d.target = {Backend::Cuda, arch};
  ExecutableDesc executable;
  executable.image = {CodeKind::Cubin, {0x7f, 'E', 'L', 'F'}};
  executable.kernels = {{"add_kernel", "z = x + y"}};
  d.executables.push_back(std::move(executable));
  d.signature.entryName = "add";
  d.signature.inputs = {{"x", DType::F32, {8}, {1}, 0},
                        {"y", DType::F32, {8}, {1}, 0}};
  d.signature.outputs = {{"z", DType::F32, {8}, {1}, 0}};
  d.buffers = {{BufferKind::Input, 0, 32},
               {BufferKind::Input, 1, 32},
               {BufferKind::Output, 0, 32},
               {BufferKind::Temp, -1, 64}};
  DispatchStep l;
  l.kernel = 0;
  l.grid = {1, 1, 1};
  l.block = {8, 1, 1};
  l.args = {KernelArg::buffer(0), KernelArg::buffer(1), KernelArg::buffer(2),
            KernelArg::buffer(3)};
  d.steps = {l};
  return d;
}

HostArray floats8(float start) {
  HostArray a{DType::F32, {8}, {}};
  a.data.resize(32);
  for (int i = 0; i < 8; ++i) {
    float v = start + float(i);
    std::memcpy(a.data.data() + 4 * i, &v, 4);
  }
  return a;
}

class FakeCudaTest : public FakeRuntimeTest {
protected:
  std::shared_ptr<const Executable> load(ModuleDesc d = fakeModule()) {
    Result<std::shared_ptr<const Executable>> exe =
        Executable::load(*rt, std::move(d), "fake.stridemod");
    EXPECT_TRUE(exe) << exe.error().message;
    return exe ? *exe : nullptr;
  }

  /// Loads `d` and expects it refused with `code` and a message that
  /// contains `text`.
  void expectLoadRefused(ModuleDesc d, ErrorCode code,
                         const std::string &text) {
    Result<std::shared_ptr<const Executable>> exe =
        Executable::load(*rt, std::move(d), "fake.stridemod");
    ASSERT_FALSE(exe);
    EXPECT_EQ(exe.error().code, code);
    EXPECT_TRUE(contains(exe.error().message, text)) << exe.error().message;
  }

  /// One run of the fake module on host arrays.
  Result<std::vector<HostArray>> runOnce(InvocationOptions options = {}) {
    Result<std::unique_ptr<Invocation>> inv =
        Invocation::create(load(), options);
    if (!inv)
      return inv.error();
    return (*inv)->run({floats8(0), floats8(10)});
  }
};

TEST_F(FakeCudaTest, RunsAndReusesOneExecutable) {
  std::shared_ptr<const Executable> exe = load();
  ASSERT_TRUE(exe);
  for (bool graph : {false, true}) {
    InvocationOptions options;
    options.useCudaGraph = graph;
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(exe, options);
    ASSERT_TRUE(inv) << inv.error().message;
    for (int i = 0; i < 3; ++i) {
      Result<std::vector<HostArray>> out =
          (*inv)->run({floats8(0), floats8(1)});
      ASSERT_TRUE(out) << out.error().message;
      EXPECT_EQ((*out)[0].data.size(), 32u);
    }
  }
  // Every buffer went back to the allocator with its invocation.
  EXPECT_EQ(rt->defaultAllocator()->bytesInUse(), 0u);
}

TEST_F(FakeCudaTest, InvalidArgument) {
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(load());
  ASSERT_TRUE(inv);
  Result<std::vector<HostArray>> out = (*inv)->run({floats8(0)});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::InvalidArgument);
  EXPECT_EQ(out.error().message,
            "fake.stridemod: 'add' takes 2 inputs (x, y), but 1 was given");
  Status s = (*inv)->runOnDevice({1}, {2}, nullptr);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::InvalidArgument);
  EXPECT_EQ(s.error().message,
            "fake.stridemod: runOnDevice got 1 input and 1 output pointers, "
            "but 'add' has 2 inputs and 1 outputs");
}

TEST_F(FakeCudaTest, InvalidModule) {
  std::vector<uint8_t> junk(64, 0xAB);
  Result<std::shared_ptr<const Executable>> exe =
      Executable::loadBytes(*rt, junk.data(), junk.size(), "junk.stridemod");
  ASSERT_FALSE(exe);
  EXPECT_EQ(exe.error().code, ErrorCode::InvalidModule);
  EXPECT_TRUE(
      contains(exe.error().message, "junk.stridemod: not a Stride module"))
      << exe.error().message;
}

TEST_F(FakeCudaTest, NotFound) {
  Result<std::unique_ptr<Runtime>> other = Runtime::create(3);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code, ErrorCode::NotFound);
  EXPECT_EQ(other.error().message,
            "CUDA device 3 does not exist: this machine has 1 device (0)");

  Result<std::shared_ptr<const Executable>> missing =
      Executable::loadFile(*rt, "/nonexistent/m.stridemod");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::NotFound);

  FakeSetting noKernel("STRIDE_FAKE_CUDA_FUNCTION", "500");
  Result<std::shared_ptr<const Executable>> exe =
      Executable::load(*rt, fakeModule(), "fake.stridemod");
  ASSERT_FALSE(exe);
  EXPECT_EQ(exe.error().code, ErrorCode::NotFound);
  EXPECT_EQ(exe.error().message,
            "fake.stridemod: kernel 'add_kernel' is not in executable 0 "
            "(kernels must be declared extern \"C\" __global__)");
}

TEST_F(FakeCudaTest, LibraryCallIsRefusedWhenLoading) {
  ModuleDesc d = fakeModule();
  d.steps.push_back(LibraryCallStep{"cublaslt.conv", {3}, {}});
  Result<std::shared_ptr<const Executable>> exe =
      Executable::load(*rt, d, "fake.stridemod");
  ASSERT_FALSE(exe);
  EXPECT_EQ(exe.error().code, ErrorCode::NotFound);
  EXPECT_EQ(exe.error().message,
            "fake.stridemod: step 2 of 2 (library call 'cublaslt.conv') "
            "calls 'cublaslt.conv', which this runtime does not provide");
}

/// The fake module, then: fill the temporary with 1s, the test routine
/// writing output z = temporary + 2 (byte by byte), fill the temporary with
/// 9s. z is all 3s only if the routine ran between the fills, on the right
/// buffers, with its descriptor.
ModuleDesc libraryCallModule(const std::string &routine) {
  ModuleDesc d = fakeModule();
  d.steps.push_back(FillStep{3, 1});
  d.steps.push_back(
      LibraryCallStep{routine, {3, 2}, {{"bytes", {32}, ""}, {"add", {2}, ""}}});
  d.steps.push_back(FillStep{3, 9});
  return d;
}

Result<std::shared_ptr<const Executable>>
loadWithLibraryPath(Runtime &rt, const char *folder, ModuleDesc d) {
  FakeSetting path("STRIDE_LIBRARY_PATH", folder);
  return Executable::load(rt, std::move(d), "fake.stridemod");
}

TEST_F(FakeCudaTest, LibraryCallNeedsItsLibrary) {
  Result<std::shared_ptr<const Executable>> exe = loadWithLibraryPath(
      *rt, "/nonexistent", libraryCallModule("test.record"));
  ASSERT_FALSE(exe);
  EXPECT_EQ(exe.error().code, ErrorCode::NotFound);
  EXPECT_TRUE(contains(
      exe.error().message,
      "fake.stridemod: step 3 of 4 (library call 'test.record') needs "
      "libstride-test-routines.so.1, which could not be loaded ("))
      << exe.error().message;
  EXPECT_TRUE(contains(exe.error().message,
                       "); install Stride's test routine library, built in "
                       "test/Runtime (set STRIDE_LIBRARY_PATH to its folder)"))
      << exe.error().message;
}

TEST_F(FakeCudaTest, LibraryCallNeedsItsSymbol) {
  Result<std::shared_ptr<const Executable>> exe = loadWithLibraryPath(
      *rt, STRIDE_TEST_ROUTINES_DIR, libraryCallModule("test.absent"));
  ASSERT_FALSE(exe);
  EXPECT_EQ(exe.error().code, ErrorCode::Incompatible);
  EXPECT_EQ(exe.error().message,
            "fake.stridemod: step 3 of 4 (library call 'test.absent') needs "
            "symbol 'stride_test_absent' of libstride-test-routines.so.1, "
            "which the loaded library does not define (it is not the version "
            "Stride needs); install Stride's test routine library, built in "
            "test/Runtime (set STRIDE_LIBRARY_PATH to its folder)");
}

TEST_F(FakeCudaTest, LibraryCallRunsInPlanOrder) {
  Result<std::shared_ptr<const Executable>> exe = loadWithLibraryPath(
      *rt, STRIDE_TEST_ROUTINES_DIR, libraryCallModule("test.record"));
  ASSERT_TRUE(exe) << exe.error().message;
  void *library =
      dlopen(STRIDE_TEST_ROUTINES_DIR "/libstride-test-routines.so.1",
             RTLD_NOW | RTLD_NOLOAD);
  ASSERT_TRUE(library);
  auto calls = reinterpret_cast<int (*)()>(
      dlsym(library, "stride_test_record_calls"));
  auto last = reinterpret_cast<const char *(*)()>(
      dlsym(library, "stride_test_record_last"));
  ASSERT_TRUE(calls && last);
  int before = calls();
  InvocationOptions options;
  options.useCudaGraph = false;
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe, options);
  ASSERT_TRUE(inv) << inv.error().message;
  Result<std::vector<HostArray>> out = (*inv)->run({floats8(0), floats8(1)});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ((*out)[0].data, std::vector<uint8_t>(32, 3));
  EXPECT_EQ(calls(), before + 1);
  EXPECT_EQ(std::string(last()), "buffers=2 bytes=32 add=2");
  dlclose(library);
}

/// The library-call module with a copy of input x into the temporary last:
/// a kernel, a fill, a library call, a fill and a copy.
ModuleDesc everyKindModule() {
  ModuleDesc d = libraryCallModule("test.record");
  d.steps.push_back(CopyStep{0, 3, 32});
  return d;
}

TEST_F(FakeCudaTest, LaunchStepRunsOneStepOfThePlan) {
  Result<std::shared_ptr<const Executable>> exe = loadWithLibraryPath(
      *rt, STRIDE_TEST_ROUTINES_DIR, everyKindModule());
  ASSERT_TRUE(exe) << exe.error().message;
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
  ASSERT_TRUE(inv) << inv.error().message;
  Invocation &invocation = **inv;
  ASSERT_TRUE(invocation.upload({floats8(0), floats8(1)}));
  // Fill the temporary with 1s, then z = temporary + 2; the last fill (9s)
  // is not run, so z is all 3s.
  for (size_t step : {1, 2})
    ASSERT_TRUE(invocation.launchStep(step));
  ASSERT_TRUE(invocation.synchronize());
  Result<std::vector<HostArray>> out = invocation.download();
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ((*out)[0].data, std::vector<uint8_t>(32, 3));
  Status past = invocation.launchStep(5);
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error().code, ErrorCode::InvalidArgument);
  EXPECT_EQ(past.error().message,
            "fake.stridemod: launchStep(5) past the plan's 5 steps");
}

TEST_F(FakeCudaTest, ProfileTimesEveryStepWithItsKindAndName) {
  Result<std::shared_ptr<const Executable>> exe = loadWithLibraryPath(
      *rt, STRIDE_TEST_ROUTINES_DIR, everyKindModule());
  ASSERT_TRUE(exe) << exe.error().message;
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
  ASSERT_TRUE(inv) << inv.error().message;
  Result<ProfileResult> profile =
      profileInvocation(**inv, {floats8(0), floats8(1)}, 2, 3);
  ASSERT_TRUE(profile) << profile.error().message;
  EXPECT_EQ(profile->iterations, 3);
  // The double's events are always 1 ms apart.
  EXPECT_EQ(profile->stepMedianMs, std::vector<double>(5, 1.0));
  const ModuleDesc &desc = (*exe)->desc();
  std::vector<std::pair<StepKind, std::string>> steps;
  for (size_t i = 0; i < desc.steps.size(); ++i) {
    StepSummary s = summarizeStep(desc, i);
    steps.push_back({s.kind, s.name});
  }
  std::vector<std::pair<StepKind, std::string>> expected = {
      {StepKind::Kernel, "add_kernel"},
      {StepKind::Fill, "64 bytes"},
      {StepKind::LibraryCall, "test.record"},
      {StepKind::Fill, "64 bytes"},
      {StepKind::Copy, "32 bytes"}};
  EXPECT_EQ(steps, expected);
  // The last step run copied x into the temporary; the plan ran whole.
  Result<std::vector<HostArray>> out = (*inv)->download();
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ((*out)[0].data, std::vector<uint8_t>(32, 3));
}

TEST_F(FakeCudaTest, PeakDeviceBytesCountsConstantsAndBuffers) {
  ModuleDesc d = fakeModule();
  d.constants.push_back({DType::F32, {8}, {1}, std::vector<uint8_t>(32, 1)});
  d.buffers.push_back({BufferKind::Constant, 0, 32, false});
  std::get<DispatchStep>(d.steps[0]).args.push_back(KernelArg::buffer(4));
  MemorySummary memory = summarizeMemory(d);
  EXPECT_EQ(memory.constantBytes, 32);
  EXPECT_EQ(memory.temporaryBytes, 64);
  EXPECT_EQ(memory.inputBytes, 64);
  EXPECT_EQ(memory.outputBytes, 32);
  uint64_t before = rt->deviceBytesInUse();
  rt->resetPeakDeviceBytes();
  {
    Result<std::shared_ptr<const Executable>> exe =
        Executable::load(*rt, d, "fake.stridemod");
    ASSERT_TRUE(exe) << exe.error().message;
    EXPECT_EQ(rt->deviceBytesInUse(), before + 32);
    // A second allocator (stride-run's, with a limit) counts too.
    InvocationOptions options;
    options.allocator = Allocator::create(*rt, {1 << 20, false});
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe, options);
    ASSERT_TRUE(inv) << inv.error().message;
    ASSERT_TRUE((*inv)->run({floats8(0), floats8(1)}));
    EXPECT_EQ(rt->peakDeviceBytes(), before + uint64_t(memory.total()));
  }
  EXPECT_EQ(rt->deviceBytesInUse(), before);
  EXPECT_EQ(rt->peakDeviceBytes(), before + uint64_t(memory.total()));
  rt->resetPeakDeviceBytes();
  EXPECT_EQ(rt->peakDeviceBytes(), before);
}

TEST_F(FakeCudaTest, ConstantsAreUploadedOnceAndFreed) {
  ModuleDesc d = fakeModule();
  d.constants.push_back({DType::F32, {8}, {1}, std::vector<uint8_t>(32, 1)});
  d.buffers.push_back({BufferKind::Constant, 0, 32, false});
  std::get<DispatchStep>(d.steps[0]).args.push_back(KernelArg::buffer(4));
  std::shared_ptr<Allocator> allocator = rt->defaultAllocator();
  uint64_t before = allocator->bytesInUse();
  {
    Result<std::shared_ptr<const Executable>> exe =
        Executable::load(*rt, d, "fake.stridemod");
    ASSERT_TRUE(exe) << exe.error().message;
    EXPECT_EQ(allocator->bytesInUse(), before + 32);
    for (int i = 0; i < 2; ++i) {
      Result<std::unique_ptr<Invocation>> inv = Invocation::create(*exe);
      ASSERT_TRUE(inv) << inv.error().message;
      Result<std::vector<HostArray>> out =
          (*inv)->run({floats8(0), floats8(1)});
      ASSERT_TRUE(out) << out.error().message;
    }
  }
  EXPECT_EQ(allocator->bytesInUse(), before);
}

TEST_F(FakeCudaTest, ResourceExhaustedByTheAllocatorsLimit) {
  InvocationOptions options;
  options.allocator = Allocator::create(*rt, {/*limitBytes=*/100});
  Result<std::vector<HostArray>> out = runOnce(options);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::ResourceExhausted);
  EXPECT_EQ(out.error().message,
            "out of GPU memory: allocating 64 bytes for buffer 3 (temporary) "
            "of fake.stridemod would bring the allocator's use of device 0 "
            "(Stride fake GPU) to 160 bytes, over its limit of 100 bytes "
            "(AllocatorOptions::limitBytes, stride-run's --gpu-memory-limit)");
  EXPECT_EQ(options.allocator->bytesInUse(), 0u);
}

TEST_F(FakeCudaTest, ResourceExhaustedOnTheDevice) {
  FakeSetting small("STRIDE_FAKE_CUDA_MEMORY", "40");
  Result<std::vector<HostArray>> out = runOnce();
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::ResourceExhausted);
  EXPECT_EQ(out.error().message,
            "out of GPU memory: allocating 32 bytes for buffer 1 (input 'y') "
            "of fake.stridemod failed: device 0 (Stride fake GPU) has 8 of "
            "its 40 bytes free");
}

TEST_F(FakeCudaTest, IncompatibleArch) {
  expectLoadRefused(fakeModule("sm_100"), ErrorCode::Incompatible,
                    "fake.stridemod: compiled to a CUBIN for sm_100, but "
                    "device 0 (Stride fake GPU) has compute capability 9.0");
}

/// fakeModule with a second launch of its kernel that may overlap the
/// first (DispatchStep::dependentLaunch).
static ModuleDesc dependentLaunchModule(const std::string &arch = "sm_90") {
  ModuleDesc d = fakeModule(arch);
  DispatchStep second = std::get<DispatchStep>(d.steps[0]);
  second.dependentLaunch = true;
  d.steps.push_back(second);
  return d;
}

/// The double's count of launches with programmatic stream serialization.
static int dependentLaunchesSeen() {
  return fakeCount("stride_fake_cuda_dependent_launches");
}

TEST_F(FakeCudaTest, DependentLaunchAllowsProgrammaticSerialization) {
  std::shared_ptr<const Executable> exe = load(dependentLaunchModule());
  ASSERT_TRUE(exe);
  // Launched one by one, captured into a graph, and with the overlap
  // turned off: only the second dispatch carries the attribute, and only
  // while InvocationOptions::dependentLaunch is on.
  for (auto [graph, dependent, expected] :
       {std::tuple{false, true, 1}, {true, true, 1}, {false, false, 0}}) {
    InvocationOptions options;
    options.useCudaGraph = graph;
    options.dependentLaunch = dependent;
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(exe, options);
    ASSERT_TRUE(inv) << inv.error().message;
    int before = dependentLaunchesSeen();
    Result<std::vector<HostArray>> out = (*inv)->run({floats8(0), floats8(1)});
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(dependentLaunchesSeen() - before, expected)
        << "graph " << graph << ", dependentLaunch " << dependent;
  }
}

/// fakeModule whose dispatch also reads a 4 KiB constant and keeps its
/// first `bytes` in L2 (DispatchStep::l2ResidentBytes).
static ModuleDesc l2WindowModule(uint64_t bytes) {
  ModuleDesc d = fakeModule();
  d.constants.push_back({DType::F32, {1024}, {1}, SharedBytes(std::vector<uint8_t>(4096, 0))});
  d.buffers.push_back({BufferKind::Constant, 0, 4096});
  DispatchStep &step = std::get<DispatchStep>(d.steps[0]);
  step.args.push_back(KernelArg::buffer(4));
  step.l2ResidentBuffer = 4;
  step.l2ResidentBytes = bytes;
  return d;
}

/// The double's persisting-L2 limit set back to 0, as a new context has it.
static void resetPersistingL2Limit() {
  if (auto reset = fakeFunction<void()>("stride_fake_cuda_reset_persisting_l2_limit"))
    reset();
}

static CUaccessPolicyWindow lastL2Window() {
  auto last = fakeFunction<CUaccessPolicyWindow()>("stride_fake_cuda_last_l2_window");
  return last ? last() : CUaccessPolicyWindow{};
}

static size_t persistingL2Limit() {
  auto limit = fakeFunction<size_t()>("stride_fake_cuda_persisting_l2_limit");
  return limit ? limit() : 0;
}

/// `d` loaded on a device that sets up to `setAside` bytes of L2 aside
/// (STRIDE_FAKE_CUDA_L2_SET_ASIDE), from a context whose persisting-L2
/// limit is 0 unless `keepLimit`.
static std::shared_ptr<const Executable>
loadWithSetAside(Runtime &rt, const char *setAside, ModuleDesc d,
                 bool keepLimit = false) {
  FakeSetting device("STRIDE_FAKE_CUDA_L2_SET_ASIDE", setAside);
  if (!keepLimit)
    resetPersistingL2Limit();
  Result<std::shared_ptr<const Executable>> exe =
      Executable::load(rt, std::move(d), "l2.stridemod");
  EXPECT_TRUE(exe) << exe.error().message;
  return exe ? *exe : nullptr;
}

TEST_F(FakeCudaTest, AnL2WindowSetsL2AsideAndRidesEachLaunch) {
  // The device sets up to 1 MiB aside: the window's 2 KiB persist, all of
  // them (hit ratio 1), at the constant's address, one by one and in a
  // captured graph.
  std::shared_ptr<const Executable> exe = loadWithSetAside(*rt, "1048576", l2WindowModule(2048));
  ASSERT_TRUE(exe);
  EXPECT_EQ(persistingL2Limit(), 2048u);
  EXPECT_EQ(exe->l2Windows().launches, 1);
  EXPECT_EQ(exe->l2Windows().bytes, 2048u);
  EXPECT_EQ(exe->l2Windows().hitRatio, 1.0f);
  for (bool graph : {false, true}) {
    InvocationOptions options;
    options.useCudaGraph = graph;
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(exe, options);
    ASSERT_TRUE(inv) << inv.error().message;
    int before = fakeCount("stride_fake_cuda_l2_window_launches");
    Result<std::vector<HostArray>> out = (*inv)->run({floats8(0), floats8(1)});
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(fakeCount("stride_fake_cuda_l2_window_launches") - before, 1)
        << "graph " << graph;
    CUaccessPolicyWindow window = lastL2Window();
    EXPECT_EQ(window.num_bytes, 2048u);
    EXPECT_EQ(window.hitRatio, 1.0f);
    EXPECT_EQ(window.hitProp, CU_ACCESS_PROPERTY_PERSISTING);
    EXPECT_EQ(window.missProp, CU_ACCESS_PROPERTY_STREAMING);
    EXPECT_NE(window.base_ptr, nullptr);
  }
}

TEST_F(FakeCudaTest, AnL2WindowLargerThanTheSetAsideHitsInProportion) {
  // 1 KiB set aside for a 4 KiB window: the limit at the device's largest,
  // a quarter of the window's lines persisting; a limit already higher
  // (another module's) is kept.
  std::shared_ptr<const Executable> exe = loadWithSetAside(*rt, "1024", l2WindowModule(4096));
  ASSERT_TRUE(exe);
  EXPECT_EQ(persistingL2Limit(), 1024u);
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(exe);
  ASSERT_TRUE(inv) << inv.error().message;
  ASSERT_TRUE((*inv)->run({floats8(0), floats8(1)}));
  EXPECT_EQ(lastL2Window().num_bytes, 4096u);
  EXPECT_EQ(lastL2Window().hitRatio, 0.25f);
  // Two launches over the one constant (a product in slices) count its
  // bytes once.
  ModuleDesc twice = l2WindowModule(4096);
  twice.steps.push_back(twice.steps[0]);
  std::shared_ptr<const Executable> sliced =
      loadWithSetAside(*rt, "1024", std::move(twice));
  ASSERT_TRUE(sliced);
  EXPECT_EQ(sliced->l2Windows().launches, 2);
  EXPECT_EQ(sliced->l2Windows().bytes, 4096u);
  inv = Invocation::create(sliced);
  ASSERT_TRUE(inv) << inv.error().message;
  ASSERT_TRUE((*inv)->run({floats8(0), floats8(1)}));
  EXPECT_EQ(lastL2Window().hitRatio, 0.25f);
  // A module of 512 bytes of window after it leaves the limit at 1 KiB,
  // and its window all persisting.
  std::shared_ptr<const Executable> small =
      loadWithSetAside(*rt, "1024", l2WindowModule(512), /*keepLimit=*/true);
  ASSERT_TRUE(small);
  EXPECT_EQ(persistingL2Limit(), 1024u);
  inv = Invocation::create(small);
  ASSERT_TRUE(inv) << inv.error().message;
  ASSERT_TRUE((*inv)->run({floats8(0), floats8(1)}));
  EXPECT_EQ(lastL2Window().hitRatio, 1.0f);
}

TEST_F(FakeCudaTest, AContextWithoutThePersistingLimitLaunchesWithoutWindows) {
  // A context that cannot set L2 aside (MPS: CUDA_ERROR_UNSUPPORTED_LIMIT)
  // runs the plan without its windows; any other failure of the call
  // fails the load and names it.
  {
    FakeSetting unsupported("STRIDE_FAKE_CUDA_SET_LIMIT", "215");
    std::shared_ptr<const Executable> exe = loadWithSetAside(*rt, "1048576", l2WindowModule(2048));
    ASSERT_TRUE(exe);
    Result<std::unique_ptr<Invocation>> inv = Invocation::create(exe);
    ASSERT_TRUE(inv) << inv.error().message;
    int before = fakeCount("stride_fake_cuda_l2_window_launches");
    ASSERT_TRUE((*inv)->run({floats8(0), floats8(1)}));
    EXPECT_EQ(fakeCount("stride_fake_cuda_l2_window_launches"), before);
  }
  FakeSetting failing("STRIDE_FAKE_CUDA_SET_LIMIT", "1");
  FakeSetting device("STRIDE_FAKE_CUDA_L2_SET_ASIDE", "1048576");
  resetPersistingL2Limit();
  expectLoadRefused(l2WindowModule(2048), ErrorCode::Internal,
                    "fake.stridemod: cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, "
                    "2048) failed: CUDA_ERROR_INVALID_VALUE");
}

TEST_F(FakeCudaTest, OnlyAModuleWithWindowsAsksTheDriverAboutL2) {
  // A driver that cannot say its largest set-aside: a module without
  // windows loads as before; one with windows is refused, naming the call.
  FakeSetting noAttributes("STRIDE_FAKE_CUDA_L2_ATTRIBUTES", "1");
  EXPECT_TRUE(load(fakeModule()));
  expectLoadRefused(l2WindowModule(2048), ErrorCode::Internal,
                    "fake.stridemod: cuDeviceGetAttribute(MAX_PERSISTING_L2_CACHE_SIZE) "
                    "failed: CUDA_ERROR_INVALID_VALUE");
}

TEST_F(FakeCudaTest, ADeviceWithoutPersistingL2LaunchesWithoutWindows) {
  // No L2 set aside (the double's default, as before sm_80): the plan runs
  // as it would without the hint, launched plainly.
  std::shared_ptr<const Executable> exe = loadWithSetAside(*rt, "0", l2WindowModule(2048));
  ASSERT_TRUE(exe);
  EXPECT_EQ(persistingL2Limit(), 0u);
  EXPECT_EQ(exe->l2Windows().launches, 0);
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(exe);
  ASSERT_TRUE(inv) << inv.error().message;
  int before = fakeCount("stride_fake_cuda_l2_window_launches");
  ASSERT_TRUE((*inv)->run({floats8(0), floats8(1)}));
  EXPECT_EQ(fakeCount("stride_fake_cuda_l2_window_launches"), before);
}

TEST_F(FakeCudaTest, NewAddressesUpdateTheCapturedGraph) {
  // A caller that keeps its outputs hands new addresses to every run: the
  // graph is captured again and updated in place, instantiated only once;
  // the same addresses replay it as it is.
  InvocationOptions options;
  options.useCudaGraph = true;
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(load(), options);
  ASSERT_TRUE(inv) << inv.error().message;
  int instantiated = fakeCount("stride_fake_cuda_graph_instantiations");
  int updated = fakeCount("stride_fake_cuda_graph_updates");
  for (uint64_t out : {3, 4, 4, 5}) {
    Status s = (*inv)->runOnDevice({1, 2}, {out}, nullptr);
    ASSERT_TRUE(s) << s.error().message;
  }
  EXPECT_EQ(fakeCount("stride_fake_cuda_graph_instantiations") - instantiated,
            1);
  EXPECT_EQ(fakeCount("stride_fake_cuda_graph_updates") - updated, 2);
}

TEST_F(FakeCudaTest, ARefusedGraphUpdateInstantiatesAnew) {
  FakeSetting refuse("STRIDE_FAKE_CUDA_GRAPH_UPDATE", "1");
  InvocationOptions options;
  options.useCudaGraph = true;
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(load(), options);
  ASSERT_TRUE(inv) << inv.error().message;
  int instantiated = fakeCount("stride_fake_cuda_graph_instantiations");
  for (uint64_t out : {3, 4}) {
    Status s = (*inv)->runOnDevice({1, 2}, {out}, nullptr);
    ASSERT_TRUE(s) << s.error().message;
  }
  EXPECT_EQ(fakeCount("stride_fake_cuda_graph_instantiations") - instantiated,
            2);
}

TEST_F(FakeCudaTest, DependentLaunchIsRefusedBelowSm90) {
  expectLoadRefused(dependentLaunchModule("sm_80"), ErrorCode::InvalidModule,
                    "step 2 of 2 (kernel 'add_kernel') is a dependent launch, "
                    "which needs sm_90 or later, but the module's target is "
                    "sm_80");
  // The same plan compiled for sm_80 without the field (as PTX, which the
  // fake sm_90 device takes) runs, every launch plain.
  int before = dependentLaunchesSeen();
  ModuleDesc plain = dependentLaunchModule("sm_80");
  std::get<DispatchStep>(plain.steps[1]).dependentLaunch = false;
  plain.executables[0].image = {CodeKind::Ptx, {'/', '/', ' ', 'P', 'T', 'X'}};
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(load(plain));
  ASSERT_TRUE(inv) << inv.error().message;
  ASSERT_TRUE((*inv)->run({floats8(0), floats8(1)}));
  EXPECT_EQ(dependentLaunchesSeen(), before);
}

TEST_F(FakeCudaTest, IncompatiblePtxVersion) {
  FakeSetting newPtx("STRIDE_FAKE_CUDA_LOAD", "222");
  Result<std::shared_ptr<const Executable>> exe =
      Executable::load(*rt, fakeModule(), "fake.stridemod");
  ASSERT_FALSE(exe);
  EXPECT_EQ(exe.error().code, ErrorCode::Incompatible);
  EXPECT_TRUE(contains(exe.error().message,
                       "fake.stridemod: loading executable 0 (CUBIN for sm_90) "
                       "on device 0 (Stride fake GPU) failed: "
                       "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"))
      << exe.error().message;
}

TEST_F(FakeCudaTest, InternalForABlockTheKernelCannotRun) {
  FakeSetting fewThreads("STRIDE_FAKE_CUDA_KERNEL_THREADS", "4");
  Result<std::shared_ptr<const Executable>> exe =
      Executable::load(*rt, fakeModule(), "fake.stridemod");
  ASSERT_FALSE(exe);
  EXPECT_EQ(exe.error().code, ErrorCode::Internal);
  EXPECT_TRUE(contains(exe.error().message,
                       "fake.stridemod: step 1 of 1 (kernel 'add_kernel') "
                       "uses 8 threads per block, but on device 0 (Stride "
                       "fake GPU) the kernel can run at most 4"))
      << exe.error().message;
}

TEST_F(FakeCudaTest, DeviceFaultNamesTheKernel) {
  FakeSetting fault("STRIDE_FAKE_CUDA_LAUNCH", "700");
  Result<std::vector<HostArray>> out = runOnce();
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::DeviceFault);
  EXPECT_EQ(out.error().message,
            "fake.stridemod: step 1 of 1 (kernel 'add_kernel') failed: "
            "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was "
            "encountered (the fault is inside the generated kernel, a Stride "
            "code generation bug; the CUDA context is now unusable)");
}

TEST_F(FakeCudaTest, DeviceFaultInACudaGraph) {
  FakeSetting assertion("STRIDE_FAKE_CUDA_LAUNCH", "710");
  InvocationOptions options;
  options.useCudaGraph = true;
  Result<std::vector<HostArray>> out = runOnce(options);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::DeviceFault);
  EXPECT_EQ(out.error().message,
            "fake.stridemod: one of steps 1 to 1 (kernels 'add_kernel') "
            "failed: CUDA_ERROR_ASSERT: device-side assert "
            "triggered; run with per-launch synchronization to find which");
}

TEST_F(FakeCudaTest, PoisoningAllocatorFillsNewOutputs) {
  InvocationOptions options;
  options.allocator =
      Allocator::create(*rt, {/*limitBytes=*/0, /*poison=*/true});
  // The double runs no kernel, so the output keeps what the allocator wrote.
  Result<std::vector<HostArray>> out = runOnce(options);
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ((*out)[0].data, std::vector<uint8_t>(32, 0xFF));
  Result<std::vector<HostArray>> plain = runOnce();
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(options.allocator->bytesInUse(), 0u);
}

/// fakeModule with two states: `cache` (initially zeros) bound to a buffer
/// the kernel writes, and `init` (initially 0, 1, ..., 7).
ModuleDesc stateModule() {
  ModuleDesc d = fakeModule();
  d.states = {{{"cache", DType::F32, {8}, {1}, 0}, {}},
              {{"init", DType::F32, {8}, {1}, 0}, floats8(0).data}};
  d.buffers.push_back({BufferKind::State, 0, 32});
  d.buffers.push_back({BufferKind::State, 1, 32});
  std::get<DispatchStep>(d.steps[0]).args.push_back(KernelArg::buffer(4));
  std::get<DispatchStep>(d.steps[0]).args.push_back(KernelArg::buffer(5));
  return d;
}

TEST_F(FakeCudaTest, StatesAreReadWrittenAndResetPerInvocation) {
  std::shared_ptr<const Executable> exe = load(stateModule());
  ASSERT_TRUE(exe);
  auto first = Invocation::create(exe);
  auto second = Invocation::create(exe);
  ASSERT_TRUE(first && second);
  Invocation &a = **first, &b = **second;
  // Before any run: the initial values.
  Result<HostArray> cache = a.readState("cache");
  ASSERT_TRUE(cache) << cache.error().message;
  EXPECT_EQ(cache->data, std::vector<uint8_t>(32, 0));
  EXPECT_EQ(a.readState("init")->data, floats8(0).data);
  // A write is the invocation's own, and survives runs.
  ASSERT_TRUE(a.writeStates({{"cache", floats8(5)}}));
  ASSERT_TRUE(a.run({floats8(0), floats8(1)}));
  EXPECT_EQ(a.readState("cache")->data, floats8(5).data);
  EXPECT_EQ(b.readState("cache")->data, std::vector<uint8_t>(32, 0));
  // All or nothing: a bad array leaves every state as it was.
  HostArray shorter{DType::F32, {4}, std::vector<uint8_t>(16, 0)};
  Status bad = a.writeStates({{"init", floats8(9)}, {"cache", shorter}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::InvalidArgument);
  EXPECT_EQ(bad.error().message,
            "fake.stridemod: state 'cache' expects f32 of shape [8], but was "
            "given f32 of shape [4]");
  EXPECT_EQ(a.readState("init")->data, floats8(0).data);
  EXPECT_EQ(a.readState("cache")->data, floats8(5).data);
  EXPECT_EQ(a.readState("kv").error().message,
            "the module has no state named 'kv' (its states: 'cache', 'init')");
  // Reset: the initial values again.
  ASSERT_TRUE(a.writeStates({{"init", floats8(9)}}));
  ASSERT_TRUE(a.resetStates());
  EXPECT_EQ(a.readState("cache")->data, std::vector<uint8_t>(32, 0));
  EXPECT_EQ(a.readState("init")->data, floats8(0).data);
}

/// stateModule with its states declared in the other order (buffer 4 is
/// state 1, `cache`, and buffer 5 state 0, `init`).
ModuleDesc reorderedStateModule() {
  ModuleDesc d = stateModule();
  std::swap(d.states[0], d.states[1]);
  return d;
}

class SharedStatesTest : public FakeCudaTest {
protected:
  std::shared_ptr<const Executable> loadAs(ModuleDesc d,
                                           const std::string &name) {
    Result<std::shared_ptr<const Executable>> exe =
        Executable::load(*rt, std::move(d), name);
    EXPECT_TRUE(exe) << exe.error().message;
    return exe ? *exe : nullptr;
  }

  /// An invocation of `decode` created to share the states of `prefill`'s.
  Result<std::unique_ptr<Invocation>> sharing(ModuleDesc decode,
                                              Invocation &prefill) {
    InvocationOptions options;
    options.shareStatesWith = &prefill;
    return Invocation::create(loadAs(std::move(decode), "decode.stridemod"),
                              options);
  }

  /// The message of the error that creating an invocation of `decode`
  /// sharing the states of an invocation of stateModule() gives.
  std::string refusal(ModuleDesc decode) {
    auto prefill = Invocation::create(loadAs(stateModule(), "prefill.stridemod"));
    EXPECT_TRUE(prefill) << prefill.error().message;
    if (!prefill)
      return "";
    Result<std::unique_ptr<Invocation>> refused =
        sharing(std::move(decode), **prefill);
    if (refused)
      return "(shared)";
    EXPECT_EQ(refused.error().code, ErrorCode::InvalidArgument);
    return refused.error().message;
  }
};

TEST_F(SharedStatesTest, TwoModulesReadAndWriteOneStorage) {
  auto prefill = Invocation::create(loadAs(stateModule(), "prefill.stridemod"));
  ASSERT_TRUE(prefill) << prefill.error().message;
  ASSERT_TRUE((*prefill)->run({floats8(0), floats8(1)}));
  uint64_t prefillBytes = rt->defaultAllocator()->bytesInUse();
  // The states in the other order: matched by name.
  auto decode = sharing(reorderedStateModule(), **prefill);
  ASSERT_TRUE(decode) << decode.error().message;
  ASSERT_TRUE((*decode)->run({floats8(0), floats8(1)}));
  // The decode invocation allocated its inputs, output and temporary
  // (160 bytes), no states.
  EXPECT_EQ(rt->defaultAllocator()->bytesInUse(), prefillBytes + 160);
  // What one writes the other reads, both ways.
  ASSERT_TRUE((*prefill)->writeStates({{"cache", floats8(5)}}));
  EXPECT_EQ((*decode)->readState("cache")->data, floats8(5).data);
  ASSERT_TRUE((*decode)->writeStates({{"init", floats8(9)}}));
  EXPECT_EQ((*prefill)->readState("init")->data, floats8(9).data);
  // The storage outlives the invocation that made it.
  prefill->reset();
  EXPECT_EQ((*decode)->readState("cache")->data, floats8(5).data);
  decode->reset();
  EXPECT_EQ(rt->defaultAllocator()->bytesInUse(), 0u);
}

TEST_F(SharedStatesTest, TheInvocationThatSharesMayAllocateThem) {
  // Nothing ran in the first invocation: the second allocates the states
  // with their initial values, and the first then sees them.
  auto prefill = Invocation::create(loadAs(stateModule(), "prefill.stridemod"));
  ASSERT_TRUE(prefill) << prefill.error().message;
  auto decode = sharing(stateModule(), **prefill);
  ASSERT_TRUE(decode) << decode.error().message;
  ASSERT_TRUE((*decode)->writeStates({{"cache", floats8(3)}}));
  EXPECT_EQ((*prefill)->readState("cache")->data, floats8(3).data);
  EXPECT_EQ((*prefill)->readState("init")->data, floats8(0).data);
}

TEST_F(SharedStatesTest, ResetResetsTheSharedStorage) {
  auto prefill = Invocation::create(loadAs(stateModule(), "prefill.stridemod"));
  ASSERT_TRUE(prefill) << prefill.error().message;
  auto decode = sharing(reorderedStateModule(), **prefill);
  ASSERT_TRUE(decode) << decode.error().message;
  ASSERT_TRUE((*prefill)->writeStates({{"cache", floats8(5)}, {"init", floats8(7)}}));
  ASSERT_TRUE((*decode)->resetStates());
  EXPECT_EQ((*prefill)->readState("cache")->data, std::vector<uint8_t>(32, 0));
  EXPECT_EQ((*prefill)->readState("init")->data, floats8(0).data);
}

TEST_F(SharedStatesTest, ACudaGraphReplaysOverTheSharedStates) {
  auto prefill = Invocation::create(loadAs(stateModule(), "prefill.stridemod"));
  ASSERT_TRUE(prefill) << prefill.error().message;
  InvocationOptions options;
  options.useCudaGraph = true;
  options.shareStatesWith = &**prefill;
  auto decode = Invocation::create(loadAs(stateModule(), "decode.stridemod"), options);
  ASSERT_TRUE(decode) << decode.error().message;
  for (int step = 0; step < 3; ++step) {
    ASSERT_TRUE((*prefill)->run({floats8(0), floats8(1)}));
    ASSERT_TRUE((*decode)->run({floats8(0), floats8(1)}));
  }
  ASSERT_TRUE((*prefill)->writeStates({{"cache", floats8(2)}}));
  EXPECT_EQ((*decode)->readState("cache")->data, floats8(2).data);
}

TEST_F(SharedStatesTest, DifferentStatesAreRefusedNamingTheFirst) {
  ModuleDesc f16 = stateModule();
  f16.states[0].tensor.dtype = DType::F16;
  EXPECT_EQ(refusal(f16),
            "decode.stridemod cannot share the states of prefill.stridemod: "
            "state 'cache' is f16 [8] strides [1] offset 0 in decode.stridemod "
            "but f32 [8] strides [1] offset 0 in prefill.stridemod; "
            "invocations share states only when their modules declare the "
            "same states (names, dtypes, shapes and layouts), as the prefill "
            "and decode modules of one model exported together do");
  ModuleDesc shape = stateModule();
  shape.states[0].tensor.shape = {4};
  EXPECT_TRUE(contains(refusal(shape),
                       ": state 'cache' is f32 [4] strides [1] offset 0 in "
                       "decode.stridemod but f32 [8] strides [1] offset 0 in "
                       "prefill.stridemod;"));
  ModuleDesc offset = stateModule();
  offset.states[0].tensor.storageOffset = 1;
  offset.buffers[4].sizeBytes = 36;
  EXPECT_TRUE(contains(refusal(offset), "offset 1 in decode.stridemod"));
  ModuleDesc bigger = stateModule();
  bigger.buffers[5].sizeBytes = 64;
  EXPECT_TRUE(contains(refusal(bigger),
                       ": state 'init' is a buffer of 64 bytes in "
                       "decode.stridemod but of 32 bytes in prefill.stridemod;"));
  ModuleDesc renamed = stateModule();
  renamed.states[1].tensor.name = "value_cache";
  EXPECT_TRUE(contains(refusal(renamed),
                       ": state 'value_cache' of decode.stridemod is not a "
                       "state of prefill.stridemod;"));
  ModuleDesc fewer = stateModule();
  fewer.states.pop_back();
  fewer.buffers.pop_back();
  std::get<DispatchStep>(fewer.steps[0]).args.pop_back();
  EXPECT_TRUE(contains(refusal(fewer),
                       ": state 'init' of prefill.stridemod is not a state "
                       "of decode.stridemod;"));
  ModuleDesc none = fakeModule();
  EXPECT_TRUE(contains(refusal(none), ": state 'cache' of prefill.stridemod "
                                      "is not a state of decode.stridemod;"));
}

TEST_F(SharedStatesTest, TheStrideOfADimOfSizeOneIsNotCompared) {
  ModuleDesc column = stateModule();
  column.states[0].tensor.shape = {8, 1};
  column.states[0].tensor.strides = {1, 1};
  ModuleDesc other = column;
  other.states[0].tensor.strides = {1, 8};
  auto prefill = Invocation::create(loadAs(column, "prefill.stridemod"));
  ASSERT_TRUE(prefill) << prefill.error().message;
  auto decode = sharing(other, **prefill);
  EXPECT_TRUE(decode) << decode.error().message;
}

TEST_F(FakeCudaTest, AliasedOutputsAreReadFromTheirInput) {
  // y returned as it is, and its odd elements (a view: offset 1, stride
  // 2): no buffers of their own, so run() reads them from y's buffer and
  // runOnDevice takes no pointer for them.
  ModuleDesc d = fakeModule();
  d.signature.outputs.push_back({"y_again", DType::F32, {8}, {1}, 0});
  d.signature.outputs.push_back({"y_odd", DType::F32, {4}, {2}, 1});
  d.signature.outputs[1].aliasOfInput = 1;
  d.signature.outputs[2].aliasOfInput = 1;
  Result<std::unique_ptr<Invocation>> inv = Invocation::create(load(d));
  ASSERT_TRUE(inv) << inv.error().message;
  Result<std::vector<HostArray>> out = (*inv)->run({floats8(0), floats8(10)});
  ASSERT_TRUE(out) << out.error().message;
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ((*out)[1].data, floats8(10).data);
  std::vector<float> odd(4);
  ASSERT_EQ((*out)[2].data.size(), 16u);
  std::memcpy(odd.data(), (*out)[2].data.data(), 16);
  EXPECT_EQ(odd, (std::vector<float>{11, 13, 15, 17}));
  Status s = (*inv)->runOnDevice({1, 2}, {3, 0, 0}, nullptr);
  EXPECT_TRUE(s) << s.error().message;
  s = (*inv)->runOnDevice({1, 2}, {0, 0, 0}, nullptr);
  ASSERT_FALSE(s);
  EXPECT_TRUE(contains(s.error().message, "null pointer for output 'z'"))
      << s.error().message;
}

TEST_F(FakeCudaTest, RuntimeCopiesBetweenHostAndDevice) {
  std::shared_ptr<Allocator> allocator = rt->defaultAllocator();
  Result<uint64_t> a = allocator->allocate(32, "a");
  Result<uint64_t> b = allocator->allocate(32, "b");
  ASSERT_TRUE(a && b);
  HostArray in = floats8(4);
  std::vector<uint8_t> out(32);
  ASSERT_TRUE(rt->copyToDevice(*a, in.data.data(), 32, nullptr));
  ASSERT_TRUE(rt->copyOnDevice(*b, *a, 32, nullptr));
  ASSERT_TRUE(rt->copyToHost(out.data(), *b, 32, nullptr));
  ASSERT_TRUE(rt->synchronize(nullptr));
  EXPECT_EQ(out, in.data);
  allocator->release(*a, 32);
  allocator->release(*b, 32);
}

TEST(FakeCudaUnavailableTest, NoDevice) {
  FakeSetting noDevice("STRIDE_FAKE_CUDA_INIT", "100");
  Result<std::unique_ptr<Runtime>> rt = Runtime::create(0);
  if (rt || rt.error().code != ErrorCode::Unavailable ||
      contains(rt.error().message, "no CUDA driver found"))
    GTEST_SKIP() << "the test double was not loaded";
  EXPECT_EQ(rt.error().code, ErrorCode::Unavailable);
  EXPECT_EQ(rt.error().message,
            "no CUDA device found (cuInit: CUDA_ERROR_NO_DEVICE: no "
            "CUDA-capable device is detected); running a Stride module needs "
            "an NVIDIA GPU");
}

} // namespace
