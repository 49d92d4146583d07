//===- ModuleTest.cpp - The .stridemod format: round trip and refusals ----===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "stride/Module/Module.h"

#include "StrideModule_generated.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <variant>
#include <string>
#include <unistd.h>

using namespace stride;

namespace {

/// What stridec would write for `y = slice_scatter(x, s, dim=1).sum(dim=1)`
/// plus a temporary, a zeroed temporary and a constant, with every kind of
/// step and argument.
ModuleDesc realisticModule() {
  ModuleDesc d;
  d.producer = "stridec 0.1";
  d.target = {Backend::Cuda, "sm_90"};
  ExecutableDesc executable;
  executable.image = {CodeKind::Cubin, {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0}};
  executable.kernels = {{"fused_slice_scatter_sum_0",
                         "slice_scatter + sum (graph.mlir:7:5, graph.mlir:8:5)"},
                        {"fill_1", "full (graph.mlir:3:3)"}};
  d.executables.push_back(std::move(executable));
  std::vector<uint8_t> data;
  for (int i = 0; i < 24; ++i)
    data.push_back(uint8_t(i));
  d.constants.push_back({DType::F32, {2, 3}, {3, 1}, std::move(data)});
  d.signature.entryName = "forward";
  d.signature.inputs.push_back({"x", DType::F32, {4, 13, 33}, {429, 33, 1}, 0});
  // A broadcast input: stride 0 on dim 0.
  d.signature.inputs.push_back({"src", DType::F16, {4, 1, 33}, {0, 33, 1}, 5});
  d.signature.outputs.push_back({"y", DType::F32, {4, 33}, {33, 1}, 0});
  d.buffers.push_back({BufferKind::Input, 0, 4 * 13 * 33 * 4, false});
  d.buffers.push_back({BufferKind::Input, 1, (5 + 33) * 2, false});
  // The output and the first temporary share the arena.
  d.buffers.push_back({BufferKind::Output, 0, 4 * 33 * 4, false, 1024});
  d.buffers.push_back({BufferKind::Temp, -1, 1024, false, 0});
  d.buffers.push_back({BufferKind::Temp, -1, 64, true});
  d.buffers.push_back({BufferKind::Constant, 0, 32, false});
  DispatchStep fill;
  fill.kernel = 1;
  fill.grid = {1, 1, 1};
  fill.block = {256, 1, 1};
  fill.args = {KernelArg::buffer(3), KernelArg::f32(-1.5f), KernelArg::i32(-7)};
  DispatchStep fused;
  fused.kernel = 0;
  fused.grid = {132, 2, 1};
  fused.block = {128, 2, 1};
  fused.dynamicSharedBytes = 4096;
  fused.args = {KernelArg::buffer(0), KernelArg::buffer(1), KernelArg::buffer(2),
                KernelArg::buffer(3), KernelArg::buffer(5),
                KernelArg::i64(int64_t(1) << 40), KernelArg::f64(0.1)};
  fused.dependentLaunch = true;
  LibraryCallStep call{"cublaslt.matmul",
                       {5, 3, 4},
                       {{"m", {2}, ""}, {"dims", {2, 3, 4}, ""},
                        {"epilogue", {}, "bias"}}};
  d.steps = {fill, fused, FillStep{4, 0}, call, CopyStep{3, 2, 128}, fill};
  return d;
}

/// realisticModule with three more outputs that alias input 0 'x' (f32
/// [4, 13, 33]): x as it is, its rows 1 and 2 along dim 1 (a slice, offset
/// 33) and x broadcast along a new dim (stride 0: an aliased output may
/// overlap, since the plan writes none).
ModuleDesc aliasingModule() {
  ModuleDesc d = realisticModule();
  TensorSignature same = d.signature.inputs[0];
  same.name = "x_again";
  TensorSignature rows{"x_rows", DType::F32, {4, 2, 33}, {429, 33, 1}, 33};
  TensorSignature wide{"x_wide", DType::F32, {4, 13, 2, 33}, {429, 33, 0, 1}, 0};
  for (TensorSignature *t : {&same, &rows, &wide}) {
    t->aliasOfInput = 0;
    d.signature.outputs.push_back(*t);
  }
  return d;
}

Result<ModuleDesc> roundTrip(const ModuleDesc &d) {
  std::vector<uint8_t> bytes = serializeModule(d);
  return parseModule(bytes.data(), bytes.size(), "model.stridemod");
}

std::string parseError(const std::vector<uint8_t> &bytes) {
  Result<ModuleDesc> r = parseModule(bytes.data(), bytes.size(), "model.stridemod");
  return r ? std::string("(parsed)") : r.error().message;
}

std::string roundTripError(const ModuleDesc &d) {
  return parseError(serializeModule(d));
}

TEST(ModuleTest, RealisticModuleIsConsistent) {
  Status s = verifyModule(realisticModule(), "m");
  EXPECT_TRUE(s) << s.error().message;
}

TEST(ModuleTest, RoundTripKeepsEveryField) {
  ModuleDesc d = realisticModule();
  Result<ModuleDesc> parsed = roundTrip(d);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->producer, "stridec 0.1");
  EXPECT_EQ(parsed->target, d.target);
  EXPECT_EQ(parsed->executables, d.executables);
  EXPECT_EQ(parsed->constants, d.constants);
  EXPECT_EQ(parsed->buffers, d.buffers);
  EXPECT_EQ(parsed->steps, d.steps);
  EXPECT_EQ(parsed->signature, d.signature);
  EXPECT_TRUE(*parsed == d);
  const auto &fill = std::get<DispatchStep>(parsed->steps[0]);
  EXPECT_EQ(fill.args[1].floatValue, -1.5);
  EXPECT_EQ(fill.args[2].intValue, -7);
}

TEST(ModuleTest, RoundTripOfPtxAndEmptyTensors) {
  ModuleDesc d = realisticModule();
  d.executables[0].image = {CodeKind::Ptx,
                            {'.', 'v', 'e', 'r', 's', 'i', 'o', 'n'}};
  d.signature.inputs[0].shape = {0, 13, 33}; // no elements: needs no bytes
  d.buffers[0].sizeBytes = 0;
  Result<ModuleDesc> parsed = roundTrip(d);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_TRUE(*parsed == d);
}

TEST(ModuleTest, FileRoundTrip) {
  std::string path = ::testing::TempDir() + "/roundtrip_" +
                     std::to_string(getpid()) + ".stridemod";
  ModuleDesc d = realisticModule();
  Status w = writeModuleFile(path, d);
  ASSERT_TRUE(w) << w.error().message;
  Result<ModuleDesc> r = readModuleFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(*r == d);
}

TEST(ModuleTest, ReadMissingFile) {
  Result<ModuleDesc> r = readModuleFile("/nonexistent/dir/m.stridemod");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "/nonexistent/dir/m.stridemod: cannot open the "
                               "module file: No such file or directory");
}

TEST(ModuleTest, ConstantDataIsInTheAlignedDataSection) {
  ModuleDesc d = realisticModule();
  std::vector<uint8_t> bytes = serializeModule(d);
  ModuleFileLayout layout = moduleFileLayout(d);
  EXPECT_EQ(layout.fileBytes(), bytes.size());
  EXPECT_EQ(layout.dataSectionOffset % kModuleDataAlignment, 0u);
  EXPECT_GE(layout.dataSectionOffset, layout.flatBufferBytes);
  EXPECT_EQ(layout.dataSectionBytes, 24u);
  const fb::Module *m = fb::GetSizePrefixedModule(bytes.data());
  EXPECT_EQ(m->data_section_bytes(), 24u);
  EXPECT_EQ(m->constants()->Get(0)->data()->offset(), 0u);
  EXPECT_EQ(m->constants()->Get(0)->data()->size(), 24u);
  const uint8_t *at = bytes.data() + layout.dataSectionOffset;
  EXPECT_TRUE(std::equal(at, at + 24, d.constants[0].data.begin()));
}

TEST(ModuleTest, WriteRefusesInconsistentModule) {
  ModuleDesc d = realisticModule();
  std::get<DispatchStep>(d.steps[1]).kernel = 9;
  Status w = writeModuleFile(::testing::TempDir() + "/never.stridemod", d);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message.rfind("refusing to write an inconsistent module", 0),
            0u)
      << w.error().message;
}

TEST(ModuleTest, DescribeShowsEverySection) {
  std::string text = describeModule(realisticModule());
  for (const char *line : {
           "Stride module, format version 10, produced by stridec 0.1\n",
           "target: CUDA sm_90\n",
           "entry: forward (2 inputs, 1 output)\n",
           "  input 0 'x': f32 [4, 13, 33] strides [429, 33, 1] offset 0\n",
           "  input 1 'src': f16 [4, 1, 33] strides [0, 33, 1] offset 5\n",
           "  output 0 'y': f32 [4, 33] strides [33, 1] offset 0\n",
           "executables: 1\n",
           "  executable 0: CUBIN, 10 bytes, 2 kernels\n",
           "    kernel 0 'fused_slice_scatter_sum_0': slice_scatter + sum "
           "(graph.mlir:7:5, graph.mlir:8:5)\n",
           "constants: 1 (24 bytes)\n",
           "  constant 0: f32 [2, 3] strides [3, 1] offset 0, 24 bytes at data "
           "offset 0\n",
           "  buffer 0: input 0 'x', 6864 bytes\n",
           "  buffer 2: output 0 'y', 528 bytes at arena 1024\n",
           "  buffer 3: temporary, 1024 bytes at arena 0\n",
           "  buffer 4: temporary, zeroed, 64 bytes\n",
           "  buffer 5: constant 0, 32 bytes\n",
           "temporaries: 2 buffers, 1088 bytes\n",
           "arena: 1552 bytes for 1 temporary and 1 output of 1552 bytes (0 "
           "bytes saved)\n",
           "steps: 6\n",
           "  step 1 of 6: dispatch kernel 1 'fill_1' of executable 0 grid (1, 1, "
           "1) block (256, 1, 1) shared 0 args (buffer 3, f32 -1.5, i32 -7)\n",
           "  step 2 of 6: dispatch kernel 0 'fused_slice_scatter_sum_0' of "
           "executable 0 grid (132, 2, 1) block (128, 2, 1) shared 4096 args "
           "(buffer 0, buffer 1, buffer 2, buffer 3, buffer 5, i64 "
           "1099511627776, f64 0.10000000000000001) dependent\n",
           "  step 3 of 6: fill buffer 4 with byte 0\n",
           "  step 4 of 6: library call 'cublaslt.matmul' buffers (5, 3, 4) "
           "descriptor {m = [2], dims = [2, 3, 4], epilogue = \"bias\"}\n",
           "  step 5 of 6: copy 128 bytes from buffer 3 to buffer 2\n",
       })
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line
                                                  << "in:\n" << text;
}

//===----------------------------------------------------------------------===//
// Refusals of foreign and damaged files
//===----------------------------------------------------------------------===//

TEST(ModuleTest, EmptyFile) {
  EXPECT_EQ(parseError({}), "model.stridemod: not a Stride module: the file is empty");
}

TEST(ModuleTest, TinyFile) {
  EXPECT_EQ(parseError({1, 2, 3}),
            "model.stridemod: not a Stride module: the file has only 3 bytes, "
            "fewer than the 12-byte header");
}

TEST(ModuleTest, ForeignFileIsRefusedWithItsIdentifier) {
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                              0, 0, 0, 13, 'I', 'H', 'D', 'R'};
  EXPECT_EQ(parseError(png),
            "model.stridemod: not a Stride module: bytes 8-11 hold "
            "\"\\x00\\x00\\x00\\x0d\" instead of the identifier \"STRD\" (a "
            "module file is what `stridec --emit=module` writes)");
  std::vector<uint8_t> elf = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0};
  EXPECT_NE(parseError(elf).find("bytes 8-11 hold \"\\x00\\x00\\x00\\x00\""),
            std::string::npos);
}

TEST(ModuleTest, WrongVersion) {
  // 11: a later release's; 4: before aliased outputs, refused as such, not
  // read as a module whose outputs all have buffers (version 5, without
  // streams, is read: ModuleStreamsTest.cpp).
  for (uint32_t version : {11u, 4u}) {
    ModuleDesc d = realisticModule();
    d.formatVersion = version;
    EXPECT_EQ(roundTripError(d),
              "model.stridemod: module format version " +
                  std::to_string(version) +
                   " is not supported by this runtime (it reads versions 5 to 10); "
                  "recompile the graph with this release's stridec");
  }
}

TEST(ModuleTest, OtherVersionWithOtherFieldsIsStillNamed) {
  // Another release may lay out every other field differently; only
  // format_version (field 0) is promised.
  ModuleDesc d;
  d.formatVersion = 11;
  EXPECT_NE(roundTripError(d).find("module format version 11 is not supported"),
            std::string::npos);
}

/// A version-1 file (what releases before the plan as IR wrote): its root
/// table's field 0 is 1, the rest is laid out as version 1 did.
TEST(ModuleTest, VersionOneFileIsRefusedNamingBothVersions) {
  flatbuffers::FlatBufferBuilder b;
  flatbuffers::uoffset_t start = b.StartTable();
  b.AddElement<uint32_t>(fb::Module::VT_FORMAT_VERSION, 1, 0);
  b.AddOffset(6, b.CreateString("stridec 0.1")); // v1: producer
  flatbuffers::Offset<fb::Module> root(b.EndTable(start));
  fb::FinishSizePrefixedModuleBuffer(b, root);
  std::vector<uint8_t> bytes(b.GetBufferPointer(),
                             b.GetBufferPointer() + b.GetSize());
  EXPECT_EQ(parseError(bytes),
            "model.stridemod: module format version 1 is not supported by "
            "this runtime (it reads versions 5 to 10); recompile the graph with "
            "this release's stridec");
}

TEST(ModuleTest, EveryTruncationIsRefused) {
  std::vector<uint8_t> bytes = serializeModule(realisticModule());
  for (size_t len = 0; len < bytes.size(); ++len) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + len);
    Result<ModuleDesc> r = parseModule(cut.data(), cut.size(), "model.stridemod");
    EXPECT_FALSE(r) << "truncated to " << len << " of " << bytes.size()
                    << " bytes but parsed";
  }
}

TEST(ModuleTest, TruncationMessage) {
  ModuleFileLayout layout = moduleFileLayout(realisticModule());
  std::vector<uint8_t> bytes = serializeModule(realisticModule());
  std::string fullSize = std::to_string(bytes.size());
  std::string section = "a data section of 24 bytes from file offset " +
                        std::to_string(layout.dataSectionOffset);
  // Cut inside the FlatBuffer.
  bytes.resize(layout.flatBufferBytes / 2);
  EXPECT_EQ(parseError(bytes),
            "model.stridemod: truncated Stride module: the file has " +
                std::to_string(bytes.size()) +
                " bytes, but its header says its FlatBuffer alone has " +
                std::to_string(layout.flatBufferBytes));
  // Cut inside the data section.
  bytes = serializeModule(realisticModule());
  bytes.pop_back();
  EXPECT_EQ(parseError(bytes),
            "model.stridemod: truncated Stride module: the file has " +
                std::to_string(bytes.size()) + " bytes, but it declares " +
                section);
  bytes = serializeModule(realisticModule());
  bytes.push_back(0);
  EXPECT_EQ(parseError(bytes),
            "model.stridemod: corrupt Stride module: the file has " +
                std::to_string(bytes.size()) + " bytes, but it declares " +
                section + ", which ends at byte " + fullSize +
                " (extra data at the end)");
}

TEST(ModuleTest, DamagedRootOffset) {
  std::vector<uint8_t> bytes = serializeModule(realisticModule());
  bytes[4] = bytes[5] = bytes[6] = 0xff;
  EXPECT_EQ(parseError(bytes),
            "model.stridemod: corrupt Stride module: the header is damaged");
}

/// Flipping any byte must give a refusal or a module that is consistent (and
/// survives another round trip); never a crash. Run under ASan/UBSan to make
/// "never a crash" mean "never an invalid read".
TEST(ModuleTest, EveryFlippedByteIsRefusedOrConsistent) {
  for (const ModuleDesc &module : {realisticModule(), aliasingModule()}) {
  std::vector<uint8_t> bytes = serializeModule(module);
  int refused = 0, parsed = 0;
  for (uint8_t mask : {uint8_t(0xff), uint8_t(0x01), uint8_t(0x80)}) {
    for (size_t i = 0; i < bytes.size(); ++i) {
      std::vector<uint8_t> bad = bytes;
      bad[i] ^= mask;
      Result<ModuleDesc> r = parseModule(bad.data(), bad.size(), "m");
      if (!r) {
        ++refused;
        EXPECT_FALSE(r.error().message.empty());
        continue;
      }
      ++parsed;
      EXPECT_TRUE(verifyModule(*r, "m"));
      Result<ModuleDesc> again = roundTrip(*r);
      ASSERT_TRUE(again) << "byte " << i << ": " << again.error().message;
      EXPECT_TRUE(*again == *r) << "byte " << i;
    }
  }
  // Most flips land in data the checks can see.
  EXPECT_GT(refused, 0);
  EXPECT_GT(parsed, 0); // e.g. flips inside description strings
  }
}

/// A module whose first input's shape, an [int64], lies at an address that
/// is 4 but not 8 bytes aligned: the FlatBuffers verifier accepts it (it
/// checks vectors only to 4 bytes), so the loader must not read it through an
/// int64 pointer (UndefinedBehaviorSanitizer aborts the hardened build if it
/// does; the module fuzzer found this).
std::vector<uint8_t> moduleWithShapeAtOffset(int padWords) {
  flatbuffers::FlatBufferBuilder b;
  const int64_t shape[] = {4, 13, 33};
  // Built back to front as 4-byte words, so only 4-byte alignment applies.
  b.StartVector(2 * 3, sizeof(int32_t));
  for (int i = 2; i >= 0; --i) {
    b.PushElement<int32_t>(static_cast<int32_t>(shape[i] >> 32));
    b.PushElement<int32_t>(static_cast<int32_t>(shape[i]));
  }
  auto shapeVector = flatbuffers::Offset<flatbuffers::Vector<int64_t>>(
      b.EndVector(3));
  // What is built after the vector lies before it in the buffer: a longer
  // name moves the vector by padWords words from the buffer's start.
  auto name = b.CreateString(std::string(1 + 4 * padWords, 'x'));
  auto input = fb::CreateTensorSignature(b, name,
                                         fb::ElementType::F32, shapeVector);
  auto signature = fb::CreateSignature(b, b.CreateString("forward"),
                                       b.CreateVector(&input, 1));
  auto root = fb::CreateModule(b, kModuleFormatVersion, 0, 0, 0, 0, 0, 0, 0,
                               signature);
  fb::FinishSizePrefixedModuleBuffer(b, root);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

bool shapeIsMisaligned(const std::vector<uint8_t> &bytes) {
  const fb::Module *m = fb::GetSizePrefixedModule(bytes.data());
  const int64_t *data = m->signature()->inputs()->Get(0)->shape()->data();
  return reinterpret_cast<uintptr_t>(data) % 8 != 0;
}

TEST(ModuleTest, MisalignedInt64VectorIsReadSafely) {
  std::vector<uint8_t> bytes = moduleWithShapeAtOffset(0);
  if (!shapeIsMisaligned(bytes))
    bytes = moduleWithShapeAtOffset(1);
  ASSERT_TRUE(shapeIsMisaligned(bytes));
  Result<ModuleDesc> r = parseModule(bytes.data(), bytes.size(), "m");
  // The FlatBuffers layer accepts it; the semantic checks refuse the module
  // (it has no kernels), which shows the shape was converted.
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message.find("FlatBuffers verifier"), std::string::npos)
      << r.error().message;
}

TEST(ModuleTest, BufferAtAnUnalignedAddressParses) {
  std::vector<uint8_t> bytes = serializeModule(realisticModule());
  std::vector<uint8_t> shifted(bytes.size() + 3);
  std::copy(bytes.begin(), bytes.end(), shifted.begin() + 3);
  Result<ModuleDesc> r = parseModule(shifted.data() + 3, bytes.size(), "m");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(*r == realisticModule());
}

//===----------------------------------------------------------------------===//
// Semantic checks
//===----------------------------------------------------------------------===//

TEST(ModuleTest, RoundTripKeepsAbsentOutputs) {
  ModuleDesc d = realisticModule();
  d.signature.absentOutputs = {0, 2};
  Result<ModuleDesc> parsed = roundTrip(d);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->signature.absentOutputs, (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(parsed->signature.numProgramOutputs(),
            d.signature.outputs.size() + 2);
  EXPECT_NE(describeModule(*parsed).find(
                "  absent (None): program outputs 0, 2 of " +
                std::to_string(d.signature.outputs.size() + 2) +
                "; the outputs above are the others, in order\n"),
            std::string::npos)
      << describeModule(*parsed);
}

TEST(ModuleTest, AbsentOutputsAreIncreasingPositions) {
  ModuleDesc d = realisticModule();
  size_t outputs = d.signature.outputs.size();
  std::string bound = std::to_string(outputs + 2);
  for (std::vector<uint32_t> bad :
       {std::vector<uint32_t>{2, 0}, std::vector<uint32_t>{1, 1},
        std::vector<uint32_t>{0, uint32_t(outputs + 2)}}) {
    d.signature.absentOutputs = bad;
    EXPECT_NE(roundTripError(d).find(
                  "are not increasing positions below " + bound + " (" +
                  std::to_string(outputs) + " outputs and 2 absent ones)"),
              std::string::npos)
        << roundTripError(d);
  }
}

DispatchStep &dispatch(ModuleDesc &d, size_t step) {
  return std::get<DispatchStep>(d.steps[step]);
}

TEST(ModuleTest, OutOfRangeKernelIndex) {
  ModuleDesc d = realisticModule();
  dispatch(d, 1).kernel = 5;
  EXPECT_EQ(roundTripError(d),
            "model.stridemod: inconsistent module: step 2 of 6 dispatches "
            "kernel 5 of executable 0, which has 2 kernels");
  d = realisticModule();
  dispatch(d, 1).executable = 1;
  EXPECT_EQ(roundTripError(d),
            "model.stridemod: inconsistent module: step 2 of 6 dispatches "
            "from executable 1, but the module has 1 executables");
}

TEST(ModuleTest, RoundTripKeepsDependentLaunchPerDispatch) {
  ModuleDesc d = realisticModule();
  Result<ModuleDesc> parsed = roundTrip(d);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_FALSE(std::get<DispatchStep>(parsed->steps[0]).dependentLaunch);
  EXPECT_TRUE(std::get<DispatchStep>(parsed->steps[1]).dependentLaunch);
  std::get<DispatchStep>(d.steps[1]).dependentLaunch = false;
  parsed = roundTrip(d);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_FALSE(std::get<DispatchStep>(parsed->steps[1]).dependentLaunch);
}

TEST(ModuleTest, RoundTripKeepsTheL2Window) {
  ModuleDesc d = realisticModule();
  dispatch(d, 1).l2ResidentBuffer = 5;
  dispatch(d, 1).l2ResidentBytes = 16;
  Result<ModuleDesc> parsed = roundTrip(d);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(std::get<DispatchStep>(parsed->steps[1]).l2ResidentBuffer, 5u);
  EXPECT_EQ(std::get<DispatchStep>(parsed->steps[1]).l2ResidentBytes, 16u);
  EXPECT_EQ(std::get<DispatchStep>(parsed->steps[0]).l2ResidentBytes, 0u);
}

TEST(ModuleTest, AnL2WindowCoversBytesOfAConstantTheDispatchPasses) {
  const std::string step = "model.stridemod: inconsistent module: step 2 of 6 "
                           "(kernel 'fused_slice_scatter_sum_0') keeps ";
  ModuleDesc d = realisticModule();
  dispatch(d, 1).l2ResidentBuffer = 3;
  dispatch(d, 1).l2ResidentBytes = 16;
  EXPECT_EQ(roundTripError(d), step + "16 bytes of buffer 3 in L2, which is no constant");
  dispatch(d, 1).l2ResidentBuffer = 5;
  dispatch(d, 1).l2ResidentBytes = 33;
  EXPECT_EQ(roundTripError(d), step + "33 bytes of buffer 5 in L2, which has 32 bytes");
  dispatch(d, 1).l2ResidentBuffer = 9;
  EXPECT_EQ(roundTripError(d),
            step + "33 bytes of buffer 9 in L2, but the module has 6 buffers");
  dispatch(d, 1).l2ResidentBuffer = 5;
  dispatch(d, 1).l2ResidentBytes = 32;
  dispatch(d, 1).args[4] = KernelArg::buffer(3);
  EXPECT_EQ(roundTripError(d),
            step + "32 bytes of buffer 5 in L2, which it does not pass to the kernel");
}

TEST(ModuleTest, DependentLaunchNeedsSm90) {
  ModuleDesc d = realisticModule();
  d.target.arch = "sm_89";
  EXPECT_EQ(roundTripError(d),
            "model.stridemod: inconsistent module: step 2 of 6 (kernel "
            "'fused_slice_scatter_sum_0') is a dependent launch, which needs "
            "sm_90 or later, but the module's target is sm_89");
  std::get<DispatchStep>(d.steps[1]).dependentLaunch = false;
  EXPECT_EQ(roundTripError(d), "(parsed)");
}

TEST(ModuleTest, OutOfRangeBufferIndex) {
  ModuleDesc d = realisticModule();
  dispatch(d, 1).args[2] = KernelArg::buffer(6);
  EXPECT_EQ(roundTripError(d),
            "model.stridemod: inconsistent module: step 2 of 6 (kernel "
            "'fused_slice_scatter_sum_0') argument 2 refers to buffer 6, but "
            "the module has 6 buffers");
}

TEST(ModuleTest, StepChecks) {
  ModuleDesc d = realisticModule();
  d.steps[2] = FillStep{5, 0};
  EXPECT_EQ(roundTripError(d),
            "model.stridemod: inconsistent module: step 3 of 6 (fill) writes "
            "buffer 5, which is a constant or an input the graph does not mutate");
  d = realisticModule();
  d.steps[4] = CopyStep{3, 2, 1025};
  EXPECT_EQ(roundTripError(d),
            "model.stridemod: inconsistent module: step 5 of 6 (copy) copies "
            "1025 bytes, outside [0, 528] (the smaller buffer's size)");
  d = realisticModule();
  d.steps[4] = CopyStep{3, 3, 16};
  EXPECT_NE(roundTripError(d).find("copies buffer 3 onto itself"),
            std::string::npos);
  d = realisticModule();
  std::get<LibraryCallStep>(d.steps[3]).routine = "matmul";
  EXPECT_EQ(roundTripError(d),
            "model.stridemod: inconsistent module: step 4 of 6 calls the "
            "routine \"matmul\", which is not of the form library.routine");
  d = realisticModule();
  std::get<LibraryCallStep>(d.steps[3]).buffers[1] = 9;
  EXPECT_NE(roundTripError(d).find("step 4 of 6 buffer 1 refers to buffer 9"),
            std::string::npos);
}

TEST(ModuleTest, ConstantChecks) {
  ModuleDesc d = realisticModule();
  d.constants[0].data = d.constants[0].data.slice(0, 23);
  EXPECT_EQ(roundTripError(d),
            "model.stridemod: inconsistent module: constant 0 (f32 [2, 3] "
            "strides [3, 1] offset 0) has 23 bytes of data, but its layout "
            "needs 24");
  d = realisticModule();
  d.buffers[5].index = 1;
  EXPECT_EQ(roundTripError(d),
            "model.stridemod: inconsistent module: buffer 5 (constant) refers "
            "to constant 1, but the module has 1 constants");
  d = realisticModule();
  d.buffers[5].sizeBytes = 16;
  EXPECT_NE(roundTripError(d).find("buffer 5 (constant) has 16 bytes, but "
                                   "constant 0 has 24"),
            std::string::npos);
  d = realisticModule();
  d.buffers[5].zeroed = true;
  EXPECT_NE(roundTripError(d).find("buffer 5 is marked zeroed but is no "
                                   "temporary"),
            std::string::npos);
}

TEST(ModuleTest, LaunchConfigurationLimits) {
  ModuleDesc d = realisticModule();
  dispatch(d, 0).grid = {0, 1, 1};
  EXPECT_NE(roundTripError(d).find("step 1 of 6 (kernel 'fill_1') grid (0, "
                                   "1, 1) has a zero dimension"),
            std::string::npos);
  d = realisticModule();
  dispatch(d, 0).block = {1024, 2, 1};
  EXPECT_NE(roundTripError(d).find("block has 2048 threads, more than CUDA's "
                                   "limit of 1024"),
            std::string::npos);
  d = realisticModule();
  dispatch(d, 0).grid = {1, 70000, 1};
  EXPECT_NE(roundTripError(d).find("exceeds CUDA's limits (2147483647, 65535, "
                                   "65535)"),
            std::string::npos);
  d = realisticModule();
  dispatch(d, 0).dynamicSharedBytes = 1 << 20;
  EXPECT_NE(roundTripError(d).find("1048576 bytes of dynamic shared memory"),
            std::string::npos);
}

TEST(ModuleTest, SignatureChecks) {
  ModuleDesc d = realisticModule();
  d.signature.inputs[0].strides = {33, 1};
  EXPECT_EQ(roundTripError(d),
            "model.stridemod: inconsistent module: input 0 'x' has shape "
            "[4, 13, 33] of rank 3 but 2 strides [33, 1]");
  d = realisticModule();
  d.signature.outputs[0].strides = {0, 1};
  EXPECT_NE(roundTripError(d).find("output 0 'y' has the overlapping layout "
                                   "[4, 33] strides [0, 1]"),
            std::string::npos);
  d = realisticModule();
  d.signature.inputs[1].name = "x";
  EXPECT_NE(roundTripError(d).find("input name 'x' is used twice"),
            std::string::npos);
  d = realisticModule();
  d.signature.inputs[0].shape[1] = -13;
  EXPECT_NE(roundTripError(d).find("negative size -13 in dim 1"),
            std::string::npos);
}

TEST(ModuleTest, AliasedOutputsRoundTrip) {
  ModuleDesc d = aliasingModule();
  Status s = verifyModule(d, "m");
  ASSERT_TRUE(s) << s.error().message;
  Result<ModuleDesc> parsed = roundTrip(d);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->signature, d.signature);
  EXPECT_EQ(parsed->signature.outputs[2].aliasOfInput, 0);
  EXPECT_EQ(parsed->signature.outputs[0].aliasOfInput, -1);
  // Output 0 is buffer 2's; the aliases read input 0's buffer, buffer 0.
  EXPECT_EQ(outputSourceBuffers(*parsed), (std::vector<uint32_t>{2, 0, 0, 0}));
  EXPECT_NE(describeModule(*parsed).find(
                "  output 2 'x_rows': f32 [4, 2, 33] strides [429, 33, 1] "
                "offset 33, aliases input 0 'x': no buffer, no copy\n"),
            std::string::npos)
      << describeModule(*parsed);
}

/// The message that refuses aliasingModule after `damage`.
std::string aliasError(const std::function<void(ModuleDesc &)> &damage) {
  ModuleDesc d = aliasingModule();
  damage(d);
  return roundTripError(d);
}

TEST(ModuleTest, AliasChecks) {
  const std::string prefix = "model.stridemod: inconsistent module: ";
  EXPECT_EQ(aliasError([](ModuleDesc &d) {
              d.signature.outputs[2].aliasOfInput = 2;
            }),
            prefix + "output 2 'x_rows' aliases input 2, but the signature "
                     "has 2 inputs");
  EXPECT_EQ(aliasError([](ModuleDesc &d) {
              d.signature.outputs[2].aliasOfInput = 1;
            }),
            prefix + "output 2 'x_rows' (f32 [4, 2, 33] strides [429, 33, 1] "
                     "offset 33) aliases input 1 'src' (f16 [4, 1, 33] "
                     "strides [0, 33, 1] offset 5), of another element type");
  // Rows 12 and 13 of dim 1: one row past x's end.
  EXPECT_EQ(aliasError([](ModuleDesc &d) {
              d.signature.outputs[2].storageOffset = 12 * 33;
            }),
            prefix + "output 2 'x_rows' (f32 [4, 2, 33] strides [429, 33, 1] "
                     "offset 396) reaches 6996 bytes of the storage of input "
                     "0 'x' (f32 [4, 13, 33] strides [429, 33, 1] offset 0), "
                     "past its end at 6864 bytes");
  EXPECT_EQ(aliasError([](ModuleDesc &d) { d.signature.inputs[0].mutated = true; }),
            prefix + "output 1 'x_again' aliases input 0 'x' (f32 [4, 13, 33] "
                     "strides [429, 33, 1] offset 0), which the plan mutates; "
                     "an aliased output is the input as the caller passed it");
  EXPECT_EQ(aliasError([](ModuleDesc &d) {
              d.signature.inputs[1].aliasOfInput = 0;
            }),
            prefix + "input 1 'src' is marked as an alias of input 0 (only "
                     "outputs alias inputs)");
  EXPECT_EQ(aliasError([](ModuleDesc &d) {
              d.buffers.push_back({BufferKind::Output, 3, 4 * 13 * 2 * 33 * 4});
            }),
            prefix + "output 3 'x_wide' is bound to 1 buffers (expected "
                     "none: it aliases input 0)");
  // An output with a buffer of its own may not overlap, an aliased one may.
  EXPECT_NE(aliasError([](ModuleDesc &d) {
              d.signature.outputs[3].aliasOfInput = -1;
            }).find("output 3 'x_wide' has the overlapping layout"),
            std::string::npos);
}

TEST(ModuleTest, BufferBindingChecks) {
  ModuleDesc d = realisticModule();
  d.buffers[2].sizeBytes = 100;
  EXPECT_EQ(roundTripError(d),
            "model.stridemod: inconsistent module: buffer 2 (output) has 100 "
            "bytes, but output 'y' (f32 [4, 33] strides [33, 1] offset 0) "
            "needs 528");
  d = realisticModule();
  d.buffers.erase(d.buffers.begin() + 1);
  d.steps.clear();
  EXPECT_EQ(roundTripError(d),
            "model.stridemod: inconsistent module: input 1 'src' is bound to 0 "
            "buffers (expected exactly 1)");
  d = realisticModule();
  d.buffers[3].index = 0;
  EXPECT_NE(roundTripError(d).find("buffer 3 is a temporary but has the "
                                   "index 0"),
            std::string::npos);
  d = realisticModule();
  d.buffers[3].sizeBytes = -1;
  EXPECT_NE(roundTripError(d).find("buffer 3 has the size -1 bytes"),
            std::string::npos);
}

TEST(ModuleTest, ArenaBytesAndSummary) {
  ModuleDesc d = realisticModule();
  EXPECT_EQ(d.arenaBytes(), 1024 + 528);
  MemorySummary m = summarizeMemory(d);
  EXPECT_EQ(m.arenaBytes, 1024 + 528);
  EXPECT_EQ(m.temporaryBytes, 64); // the zeroed one, outside the arena
  EXPECT_EQ(m.outputBytes, 0);
  for (BufferDesc &b : d.buffers)
    b.arenaOffset = -1;
  EXPECT_EQ(d.arenaBytes(), 0);
}

TEST(ModuleTest, ArenaChecks) {
  ModuleDesc d = realisticModule();
  d.buffers[3].arenaOffset = 100;
  EXPECT_EQ(roundTripError(d),
            "model.stridemod: inconsistent module: buffer 3 has the arena "
            "offset 100, which is not -1 (none) or a multiple of 256 that "
            "ends within 2^48 bytes");
  d = realisticModule();
  d.buffers[3].arenaOffset = -256;
  EXPECT_NE(roundTripError(d).find("buffer 3 has the arena offset -256"),
            std::string::npos);
  d = realisticModule();
  d.buffers[3].arenaOffset = kMaxBufferBytes - 512;
  EXPECT_NE(roundTripError(d).find("that ends within 2^48 bytes"),
            std::string::npos);
  for (size_t zeroedOrNoTemporary : {0, 4, 5}) { // input, zeroed, constant
    d = realisticModule();
    d.buffers[zeroedOrNoTemporary].arenaOffset = 2048;
    EXPECT_NE(roundTripError(d).find(
                  "buffer " + std::to_string(zeroedOrNoTemporary) +
                  " is in the arena but is no temporary or output that is "
                  "not zeroed"),
              std::string::npos);
  }
}

TEST(ModuleTest, CodeImageChecks) {
  ModuleDesc d = realisticModule();
  d.executables[0].image.bytes[1] = 'X';
  EXPECT_NE(roundTripError(d).find("executable 0 is marked CUBIN but does not "
                                   "start with the ELF magic"),
            std::string::npos);
  d = realisticModule();
  d.target.arch = "sm_9x";
  EXPECT_NE(roundTripError(d).find("target arch \"sm_9x\" is not of the form "
                                   "sm_NN"),
            std::string::npos);
  d = realisticModule();
  d.executables[0].kernels[0].name = "not an identifier";
  EXPECT_NE(roundTripError(d).find("which is not a C identifier"),
            std::string::npos);
}

TEST(ModuleTest, StorageBytes) {
  EXPECT_EQ(storageBytes({"t", DType::F32, {4, 13, 33}, {429, 33, 1}, 0}),
            4 * 13 * 33 * 4);
  // Broadcast: extent is one row plus the offset.
  EXPECT_EQ(storageBytes({"t", DType::F16, {4, 33}, {0, 1}, 5}), (5 + 33) * 2);
  EXPECT_EQ(storageBytes({"t", DType::F64, {}, {}, 3}), 4 * 8);
  EXPECT_EQ(storageBytes({"t", DType::F32, {0, 7}, {7, 1}, 9}), 0);
  EXPECT_EQ(storageBytes({"t", DType::F32, {2}, {1, 1}, 0}), std::nullopt);
  // Sizes that overflow int64 are refused, never wrapped: the largest address
  // is INT64_MAX (one past it overflowed before), or the dims' product is.
  EXPECT_EQ(storageBytes({"t", DType::F32, {2}, {INT64_MAX}, 0}), std::nullopt);
  EXPECT_EQ(storageBytes({"t", DType::F32, {2}, {INT64_MAX - 1}, 1}),
            std::nullopt);
  EXPECT_EQ(storageBytes({"t", DType::I8, {0, int64_t(1) << 62}, {1, 1}, 0}),
            std::nullopt);
}

TEST(ModuleTest, ParseSmArch) {
  EXPECT_EQ(parseSmArch("sm_90"), 90);
  EXPECT_EQ(parseSmArch("sm_100"), 100);
  EXPECT_EQ(parseSmArch("sm_9x"), std::nullopt);
  EXPECT_EQ(parseSmArch("compute_90"), std::nullopt);
  EXPECT_EQ(parseSmArch("sm_"), std::nullopt);
}

} // namespace
