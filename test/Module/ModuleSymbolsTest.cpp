//===- ModuleSymbolsTest.cpp - The symbolic section of modules ------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A module with symbolic sizes (python-free-docs/module-format.md,
// "Symbols"): its symbols, layouts, grids, size arguments, copy sizes and
// library-call descriptor expressions survive the file; every malformed value is refused with its message; the
// runtime's binding of the symbols from the inputs' shapes and the module
// at their values (python-free-docs/symbolic-sizes.md, "At run time").
//
//===----------------------------------------------------------------------===//

#include "ModuleTestUtil.h"

#include "StrideModule_generated.h"
#include "stride/Module/ModuleSymbols.h"

#include <gtest/gtest.h>

using namespace stride;
using namespace stride::test;

namespace {

std::string roundTripError(const ModuleDesc &d) {
  std::vector<uint8_t> bytes = serializeModule(d);
  Result<ModuleDesc> r = parseModule(bytes.data(), bytes.size(), "m.stridemod");
  return r ? std::string("(parsed)") : r.error().message;
}

std::string problem(const ModuleDesc &d) {
  Status s = verifyModule(d, "m.stridemod");
  return s ? std::string("(verified)") : s.error().message;
}

const std::string kInconsistent = "m.stridemod: inconsistent module: ";

/// `d`, which must verify, written and read back.
Result<ModuleDesc> roundTrip(const ModuleDesc &d) {
  EXPECT_EQ(problem(d), "(verified)");
  std::vector<uint8_t> bytes = serializeModule(d);
  return parseModule(bytes.data(), bytes.size(), "m.stridemod");
}

TEST(ModuleSymbolsTest, SymbolicSectionSurvivesTheFile) {
  ModuleDesc d = symbolicModule();
  Result<ModuleDesc> parsed = roundTrip(d);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, d);
}

TEST(ModuleSymbolsTest, StaticModuleHasNoSymbolicSection) {
  ModuleDesc d = streamedModule();
  std::vector<uint8_t> bytes = serializeModule(d);
  const fb::Module *m = fb::GetSizePrefixedModule(bytes.data());
  EXPECT_EQ(m->symbols(), nullptr);
  EXPECT_EQ(m->signature()->inputs()->Get(0)->symbolic_shape(), nullptr);
}

TEST(ModuleSymbolsTest, VersionSixHasNoSymbols) {
  ModuleDesc d = symbolicModule();
  d.formatVersion = 6;
  EXPECT_EQ(roundTripError(d),
            kInconsistent + "format version 6 has symbolic sizes, which "
                            "version 7 added");
}

TEST(ModuleSymbolsTest, MalformedSymbolsAreRefused) {
  auto withSymbol = [](SizeSymbol s) {
    ModuleDesc d = symbolicModule();
    d.symbols.push_back(s);
    // Bound by a second input, so only the symbol itself is wrong.
    TensorSignature w{"w", DType::F32, {s.max}, {1}, 0};
    w.symbolic = SymbolicLayout{{sym("b")}, {num(1)}, num(0)};
    if (s.name == "b") {
      d.signature.inputs.push_back(w);
      d.buffers.push_back({BufferKind::Input, 1, 4096});
    }
    return problem(d);
  };
  EXPECT_EQ(withSymbol({"2x", 1, 4, 1}),
            kInconsistent +
                "symbol 1 has the name '2x', which is not an identifier");
  EXPECT_EQ(withSymbol({"batch", 1, 4, 1}),
            kInconsistent + "symbol 1 'batch' is declared twice (symbols 0 "
                            "and 1)");
  EXPECT_EQ(withSymbol({"b", 5, 4, 1}),
            kInconsistent + "symbol 1 'b' has the range [5, 4]; a range is "
                            "0 <= min <= max <= 2^40");
  EXPECT_EQ(withSymbol({"b", 1, 7, 8}),
            kInconsistent + "symbol 1 'b' takes no value: multiple_of 8 in "
                            "[1, 7]");
}

TEST(ModuleSymbolsTest, UndeclaredOrWrongLayoutsAreRefused) {
  ModuleDesc d = symbolicModule();
  d.signature.outputs[0].symbolic->shape[0] = sym("seq");
  EXPECT_EQ(problem(d), kInconsistent + "output 0 'y''s size or stride names "
                                        "'seq', which is not a symbol of the "
                                        "module");
  d = symbolicModule();
  d.signature.outputs[0].shape[0] = 1000;
  EXPECT_EQ(problem(d).find(kInconsistent), 0u);
  d = symbolicModule();
  d.signature.outputs[0].shape = {1024 * 768};
  d.signature.outputs[0].strides = {1};
  EXPECT_NE(problem(d).find("has a symbolic layout of rank 2 with 2 strides; "
                            "its shape has 1 dims"),
            std::string::npos);
  d = symbolicModule();
  d.signature.inputs[0].symbolic->strides[0] = times(sym("batch"), num(768));
  d.signature.inputs[0].strides[0] = 1024 * 768;
  d.buffers[0].sizeBytes = int64_t(1023 * 1024 * 768 + 768) * 4;
  EXPECT_EQ(problem(d), "(verified)");
  d.signature.inputs[0].strides[0] = 768;
  EXPECT_EQ(problem(d),
            kInconsistent + "input 0 'x' has a symbolic layout that is not "
                            "its layout at the symbols' largest values");
}

TEST(ModuleSymbolsTest, UnboundSymbolIsRefused) {
  ModuleDesc d = symbolicModule();
  d.signature.inputs[0].symbolic->shape[0] = times(sym("batch"), num(1));
  d.signature.inputs[0].symbolic->shape[1] = num(768);
  d.symbols.push_back({"seq", 1, 8, 1});
  EXPECT_EQ(problem(d), kInconsistent + "symbol 'seq' is the size of no input "
                                        "dim and no input's value, so a run "
                                        "cannot bind it");
}

TEST(ModuleSymbolsTest, MalformedStepsAreRefused) {
  ModuleDesc d = symbolicModule();
  std::get<DispatchStep>(d.steps[0]).gridDivisor = 0;
  EXPECT_EQ(problem(d), kInconsistent + "step 1 of 2 has the grid divisor 0; "
                                        "it is at least 1");
  d = symbolicModule();
  std::get<DispatchStep>(d.steps[0]).args[2] = KernelArg::symbol(3);
  EXPECT_EQ(problem(d), kInconsistent + "step 1 of 2 argument 2 is symbol 3 "
                                        "of the module's 1");
  d = symbolicModule();
  std::get<CopyStep>(d.steps[1]).symbolicSizeBytes =
      times(sym("batch"), num(4096));
  EXPECT_EQ(problem(d), kInconsistent + "step 2 of 2's size (batch*4096) is "
                                        "not within [0, 3145728] over the "
                                        "symbols' ranges");
  d = symbolicModule();
  d.states.push_back({d.signature.inputs[0], {}});
  d.states.back().tensor.name = "s";
  d.buffers.push_back({BufferKind::State, 0, 1024 * 768 * 4});
  EXPECT_EQ(problem(d), kInconsistent + "state 0 's' has a symbolic layout; "
                                        "states have static sizes");
}

/// A minimal version-7 FlatBuffer: symbol "batch", one input "x" whose
/// symbolic shape is the polynomials `shape` (strides and offset 0), with
/// the offset left out when `withOffset` is false.
using Polynomial = std::tuple<std::vector<int64_t>, std::vector<uint32_t>,
                              std::vector<uint32_t>>;

std::vector<uint8_t> moduleBytes(const std::vector<Polynomial> &shape,
                                 bool withOffset = true) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::SizePolynomial>> dims, strides;
  for (const auto &[coefficients, degrees, factors] : shape) {
    auto c = b.CreateVector(coefficients);
    auto dg = b.CreateVector(degrees);
    auto f = b.CreateVector(factors);
    dims.push_back(fb::CreateSizePolynomial(b, c, dg, f));
    strides.push_back(fb::CreateSizePolynomial(b));
  }
  auto offset = withOffset ? fb::CreateSizePolynomial(b)
                           : flatbuffers::Offset<fb::SizePolynomial>();
  auto dimVector = b.CreateVector(dims);
  auto strideVector = b.CreateVector(strides);
  auto name = b.CreateString("x");
  auto x = fb::CreateTensorSignature(b, name, fb::ElementType::F32, 0, 0, 0,
                                     false, -1, dimVector, strideVector,
                                     offset);
  std::vector<flatbuffers::Offset<fb::TensorSignature>> inputs = {x};
  auto inputVector = b.CreateVector(inputs);
  auto entry = b.CreateString("forward");
  auto signature = fb::CreateSignature(b, entry, inputVector);
  auto symbolName = b.CreateString("batch");
  std::vector<flatbuffers::Offset<fb::Symbol>> symbols = {
      fb::CreateSymbol(b, symbolName, 1, 8, 1)};
  auto symbolVector = b.CreateVector(symbols);
  fb::ModuleBuilder m(b);
  m.add_format_version(7);
  m.add_signature(signature);
  m.add_symbols(symbolVector);
  fb::FinishSizePrefixedModuleBuffer(b, m.Finish());
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

std::string parseError(const std::vector<uint8_t> &bytes) {
  Result<ModuleDesc> r = parseModule(bytes.data(), bytes.size(), "m.stridemod");
  return r ? std::string("(parsed)") : r.error().message;
}

const std::string kCorrupt = "m.stridemod: corrupt Stride module: ";

TEST(ModuleSymbolsTest, CorruptPolynomialsAreRefusedAtLoad) {
  EXPECT_EQ(parseError(moduleBytes({{{768}, {1}, {5}}})),
            kCorrupt + "input 0 dim 0 names symbol 5 of the module's 1");
  EXPECT_EQ(parseError(moduleBytes({{{768}, {1}, {}}})),
            kCorrupt + "input 0 dim 0 has fewer factors than its degrees "
                       "sum to");
  EXPECT_EQ(parseError(moduleBytes({{{768}, {1}, {0, 0}}})),
            kCorrupt + "input 0 dim 0 has more factors than its degrees "
                       "sum to");
  EXPECT_EQ(parseError(moduleBytes({{{768, 1}, {1}, {0}}})),
            kCorrupt + "input 0 dim 0 has 2 coefficients but 1 degrees");
  EXPECT_EQ(parseError(moduleBytes({{{1}, {1}, {0}}}, /*withOffset=*/false)),
            kCorrupt + "input 0 has part of a symbolic layout (its shape, "
                       "strides and offset come together)");
  // Well formed, it decodes, and only verification stops it (this minimal
  // module has no target).
  EXPECT_EQ(parseError(moduleBytes({{{1}, {1}, {0}}})).find(kCorrupt),
            std::string::npos);
}

std::string bindError(const ModuleDesc &d,
                      std::vector<std::vector<int64_t>> shapes) {
  Result<SymbolValues> r = bindModuleSymbols(d, shapes);
  return r ? std::string("(bound)") : r.error().message;
}

TEST(ModuleSymbolsTest, BindsAndRefusesShapes) {
  ModuleDesc d = symbolicModule();
  Result<SymbolValues> values = bindModuleSymbols(d, {{7, 768}});
  ASSERT_TRUE(values);
  EXPECT_EQ(values->at("batch"), 7);
  EXPECT_EQ(bindError(d, {{2048, 768}}),
            "input 'x' dim 0 is 2048; symbol 'batch' takes 1 to 1024");
  EXPECT_EQ(bindError(d, {{0, 768}}),
            "input 'x' dim 0 is 0; symbol 'batch' takes 1 to 1024");
  EXPECT_EQ(bindError(d, {{7, 769}}),
            "input 'x' dim 1 is 769; its size 768 is 768 at batch = 7");
  EXPECT_EQ(bindError(d, {{7}}),
            "input 'x' has rank 1; the module takes rank 2 [batch, 768]");
  d.symbols[0].multipleOf = 8;
  d.symbols[0].min = 8;
  EXPECT_EQ(bindError(d, {{12, 768}}),
            "input 'x' dim 0 is 12; symbol 'batch' takes 8 to 1024, "
            "multiples of 8");
}

TEST(ModuleSymbolsTest, SymbolBoundTwiceMustAgree) {
  ModuleDesc d = symbolicModule();
  TensorSignature w = d.signature.inputs[0];
  w.name = "w";
  d.signature.inputs.push_back(w);
  d.buffers.push_back({BufferKind::Input, 1, 1024 * 768 * 4});
  ASSERT_EQ(problem(d), "(verified)");
  EXPECT_EQ(bindError(d, {{7, 768}, {7, 768}}), "(bound)");
  EXPECT_EQ(bindError(d, {{7, 768}, {5, 768}}),
            "input 'w' dim 0 is 5 but symbol 'batch' is 7 (input 'x' dim 0)");
}

TEST(ModuleSymbolsTest, InstanceIsTheStaticModuleAtTheValues) {
  ModuleDesc d = symbolicModule();
  ModuleDesc at7 = instantiateModule(d, {{"batch", 7}});
  EXPECT_TRUE(at7.symbols.empty());
  EXPECT_EQ(at7.signature.inputs[0].shape, (std::vector<int64_t>{7, 768}));
  EXPECT_FALSE(at7.signature.outputs[1].symbolic);
  const auto &k = std::get<DispatchStep>(at7.steps[0]);
  EXPECT_EQ(k.grid.x, 21u); // ceil(7 * 768 / 256)
  EXPECT_FALSE(k.gridElements);
  EXPECT_EQ(k.args[2], KernelArg::i64(7));
  EXPECT_EQ(std::get<CopyStep>(at7.steps[1]).sizeBytes, 7 * 768 * 4);
  EXPECT_EQ(at7.buffers, d.buffers);
  EXPECT_EQ(problem(at7), "(verified)");
  // At the largest value the grid is the module's own (528 < 3072 blocks).
  ModuleDesc at1024 = instantiateModule(d, {{"batch", 1024}});
  EXPECT_EQ(std::get<DispatchStep>(at1024.steps[0]).grid.x, 528u);
  // Without the code: the kernels' names stay, the images do not.
  ModuleDesc plan = instantiateModule(d, {{"batch", 7}}, /*withCode=*/false);
  EXPECT_TRUE(plan.executables[0].image.bytes.empty());
  EXPECT_EQ(plan.executables[0].kernels, d.executables[0].kernels);
}

} // namespace

namespace {

TEST(ModuleSymbolsTest, DescribeShowsSymbolsAndRunTimeSizes) {
  std::string text = describeModule(symbolicModule());
  for (const char *line :
       {"symbols (size arguments in this order): batch in [1, 1024]\n",
        "  input 0 'x': f32 [1024, 768] strides [768, 1] offset 0 (at the "
        "largest sizes of [batch, 768] strides [768, 1] offset 0)\n",
        "args (buffer 0, buffer 1, symbol 0) (grid x at run time: "
        "ceil((batch*768) / 256), at most 528)\n",
        "copy 3145728 bytes from buffer 1 to buffer 2 (at run time "
        "batch*3072 bytes)\n"})
    EXPECT_NE(text.find(line), std::string::npos)
        << "missing: " << line << "in:\n" << text;
}

} // namespace

namespace {

TEST(ModuleSymbolsTest, DescriptorExpressionsSurviveTheFile) {
  ModuleDesc d = symbolicCallModule();
  Result<ModuleDesc> parsed = roundTrip(d);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, d);
  const auto &call = std::get<LibraryCallStep>(parsed->steps[2]);
  EXPECT_EQ(call.descriptor[1].symbolicInts,
            (std::vector<SizeExpr>{times(sym("batch"), num(768))}));
  EXPECT_TRUE(call.descriptor[2].symbolicInts.empty());
}

TEST(ModuleSymbolsTest, MalformedDescriptorExpressionsAreRefused) {
  ModuleDesc d = symbolicCallModule();
  d.formatVersion = 7;
  EXPECT_EQ(roundTripError(d),
            kInconsistent + "format version 7 has symbolic library-call "
                            "descriptor fields, which version 8 added");
  d = symbolicCallModule();
  std::get<LibraryCallStep>(d.steps[2]).descriptor[0].ints = {1024, 1};
  EXPECT_EQ(problem(d), kInconsistent + "step 3 of 3 descriptor field 'n' "
                                        "has 1 size expressions for its 2 "
                                        "integers");
  d = symbolicCallModule();
  std::get<LibraryCallStep>(d.steps[2]).descriptor[0].ints = {1000};
  EXPECT_EQ(problem(d), kInconsistent + "step 3 of 3 descriptor field 'n' "
                                        "entry 0 is 1000, but its size "
                                        "expression batch is 1024 at the "
                                        "symbols' largest values");
  d = symbolicCallModule();
  std::get<LibraryCallStep>(d.steps[2]).descriptor[0].symbolicInts = {
      sym("seq")};
  EXPECT_EQ(problem(d), kInconsistent + "step 3 of 3 descriptor field 'n' "
                                        "entry 0 names 'seq', which is not a "
                                        "symbol of the module");
}

TEST(ModuleSymbolsTest, InstanceEvaluatesDescriptorExpressions) {
  ModuleDesc at7 = instantiateModule(symbolicCallModule(), {{"batch", 7}});
  const auto &call = std::get<LibraryCallStep>(at7.steps[2]);
  EXPECT_EQ(call.descriptor[0], (DescriptorField{"n", {7}, "", {}}));
  EXPECT_EQ(call.descriptor[1], (DescriptorField{"stride_d", {7 * 768}, "", {}}));
  EXPECT_EQ(call.descriptor[2], (DescriptorField{"ld", {768}, "", {}}));
  EXPECT_EQ(problem(at7), "(verified)");
  EXPECT_EQ(summarizeStep(at7, 2).name, "cublaslt.matmul n=7");
  std::string text = describeModule(symbolicCallModule());
  EXPECT_NE(text.find("descriptor {n = [1024] (at run time [batch]), "
                      "stride_d = [786432] (at run time [batch*768]), "
                      "ld = [768]}"),
            std::string::npos)
      << text;
}

} // namespace

namespace {

TEST(ModuleSymbolsTest, GuardsSurviveTheFile) {
  ModuleDesc d = guardedModule();
  Result<ModuleDesc> parsed = roundTrip(d);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, d);
  // A step without a guard writes no guard field.
  std::vector<uint8_t> bytes = serializeModule(d);
  const fb::Module *m = fb::GetSizePrefixedModule(bytes.data());
  EXPECT_NE(m->steps()->GetAs<fb::Dispatch>(0)->when(), nullptr);
  EXPECT_EQ(m->steps()->GetAs<fb::Dispatch>(0)->unless(), nullptr);
  EXPECT_EQ(m->steps()->GetAs<fb::LibraryCall>(2)->when(), nullptr);
}

TEST(ModuleSymbolsTest, StepsRunWhereTheirGuardsSay) {
  ModuleDesc d = guardedModule();
  for (int64_t batch : {1, 2, 1024}) {
    SymbolValues values{{"batch", batch}};
    EXPECT_EQ(stepRuns(d.steps[0], d, values), batch == 1);
    EXPECT_TRUE(stepRuns(d.steps[1], d, values)); // a copy runs always
    EXPECT_EQ(stepRuns(d.steps[2], d, values), batch != 1);
  }
  std::string text = describeModule(d);
  EXPECT_NE(text.find(" when batch in [1, 1]\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" unless batch in [1, 1]\n"), std::string::npos) << text;
}

TEST(ModuleSymbolsTest, RankZeroSymbolicLayoutSurvivesTheFile) {
  // Its shape and strides are empty lists, written as empty vectors (a
  // fuzzer's file: written as absent, the layout read back as corrupt).
  ModuleDesc d = symbolicModule();
  TensorSignature scalar{"s", DType::F32, {}, {}, 0};
  scalar.symbolic = SymbolicLayout{{}, {}, num(0)};
  d.signature.outputs.push_back(scalar);
  d.buffers.push_back({BufferKind::Output, 2, 4});
  Result<ModuleDesc> parsed = roundTrip(d);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, d);
}

TEST(ModuleSymbolsTest, ValueBindingsSurviveTheFile) {
  ModuleDesc d = valueGuardedModule();
  Result<ModuleDesc> parsed = roundTrip(d);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->valueBindings, d.valueBindings);
  EXPECT_EQ(*parsed, d);
  std::string text = describeModule(d);
  EXPECT_NE(text.find("pos in [0, 95], the value of input 1 'pos'\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(" when pos in [0, 47]\n"), std::string::npos) << text;
}

/// `d`'s symbols at batch 1 with `pos` holding `position` (nullopt:
/// unknown).
static SymbolValues valuesAt(const ModuleDesc &d,
                             std::optional<int64_t> position) {
  Result<SymbolValues> values = bindModuleSymbols(d, {{1, 768}, {1}});
  EXPECT_TRUE(values) << values.error().message;
  bindValueSymbols(d, {std::nullopt, position}, *values);
  return *values;
}

TEST(ModuleSymbolsTest, AnInputsValueChoosesTheSteps) {
  ModuleDesc d = valueGuardedModule();
  // Unknown (bindModuleSymbols alone), or outside the range: below it,
  // where the call runs.
  Result<SymbolValues> shapesOnly = bindModuleSymbols(d, {{1, 768}, {1}});
  ASSERT_TRUE(shapesOnly) << shapesOnly.error().message;
  EXPECT_EQ(shapesOnly->at("pos"), -1);
  for (std::optional<int64_t> position :
       {std::optional<int64_t>(), std::optional<int64_t>(-5),
        std::optional<int64_t>(96), std::optional<int64_t>(1 << 30)})
    EXPECT_EQ(valuesAt(d, position), *shapesOnly);
  for (int64_t position : {0, 1, 47, 48, 95}) {
    SymbolValues values = valuesAt(d, position);
    bool staged = position <= 47;
    EXPECT_EQ(stepRuns(d.steps[0], d, values), staged) << position;
    EXPECT_TRUE(stepRuns(d.steps[1], d, values));
    EXPECT_EQ(stepRuns(d.steps[2], d, values), !staged) << position;
  }
  EXPECT_FALSE(stepRuns(d.steps[0], d, *shapesOnly));
  EXPECT_TRUE(stepRuns(d.steps[2], d, *shapesOnly));
  // Values that run the same steps bind alike (a CUDA graph per outcome):
  // the smallest of them.
  EXPECT_EQ(valuesAt(d, 3).at("pos"), 0);
  EXPECT_EQ(valuesAt(d, 47).at("pos"), 0);
  EXPECT_EQ(valuesAt(d, 48).at("pos"), 48);
  EXPECT_EQ(valuesAt(d, 95).at("pos"), 48);
}

TEST(ModuleSymbolsTest, MalformedValueBindingsAreRefused) {
  ModuleDesc d = valueGuardedModule();
  d.formatVersion = 9;
  EXPECT_EQ(problem(d), kInconsistent + "format version 9 has symbols bound "
                                        "from an input's value, which "
                                        "version 10 added");
  using Change = void (*)(ModuleDesc &);
  for (auto [change, message] : std::initializer_list<std::pair<Change, const char *>>{
           {[](ModuleDesc &m) { m.valueBindings[0].symbol = 5; },
            "value binding 0 names symbol 5 of the module's 2"},
           {[](ModuleDesc &m) { m.valueBindings.push_back(m.valueBindings[0]); },
            "value binding 1 (symbol 'pos') binds the symbol a second time "
            "(value binding 0 binds it)"},
           {[](ModuleDesc &m) { m.valueBindings[0].input = 7; },
            "value binding 0 (symbol 'pos') reads input 7 of the module's "
            "2"}}) {
    d = valueGuardedModule();
    change(d);
    EXPECT_EQ(problem(d), kInconsistent + message);
  }
  for (auto change : {+[](TensorSignature &t) { t.dtype = DType::F32; },
                      +[](TensorSignature &t) {
                        t.shape = {2};
                        t.strides = {1};
                      },
                      // Sizes whose product overflows (a fuzzer's file):
                      // refused before the signature's own checks.
                      +[](TensorSignature &t) {
                        t.shape = {int64_t(1) << 40, int64_t(1) << 40,
                                   int64_t(1) << 40};
                        t.strides = {0, 0, 0};
                      }}) {
    d = valueGuardedModule();
    change(d.signature.inputs[1]);
    EXPECT_EQ(problem(d), kInconsistent + "value binding 0 (symbol 'pos') "
                                          "reads input 1 'pos'; a symbol is "
                                          "bound from the value of an input "
                                          "of one i32 or i64");
  }
  // No size names a symbol bound from a value.
  d = valueGuardedModule();
  d.valueBindings = {{0, 1}};
  EXPECT_EQ(problem(d), kInconsistent + "input 0 'x''s size or stride names "
                                        "'batch', which is bound from an "
                                        "input's value and is no size");
  d = valueGuardedModule();
  std::get<DispatchStep>(d.steps[0]).args.push_back(KernelArg::symbol(1));
  EXPECT_EQ(problem(d), kInconsistent + "step 1 of 3 argument 3 is symbol "
                                        "'pos', which is bound from an "
                                        "input's value and is no size");
}

TEST(ModuleSymbolsTest, MalformedGuardsAreRefused) {
  ModuleDesc d = guardedModule();
  d.formatVersion = 8;
  EXPECT_EQ(roundTripError(d),
            kInconsistent + "format version 8 has steps that run at some "
                            "values of the symbols only (step guards), which "
                            "version 9 added");
  d = guardedModule();
  std::get<DispatchStep>(d.steps[0]).guard.unless = {{0, 1, 1}};
  EXPECT_EQ(problem(d), kInconsistent + "step 1 of 3 has both a 'when' and "
                                        "an 'unless' guard; a step has one "
                                        "of them");
  d = guardedModule();
  std::get<DispatchStep>(d.steps[0]).guard.when = {{1, 1, 1}};
  EXPECT_EQ(problem(d), kInconsistent + "step 1 of 3's guard bound 0 names "
                                        "symbol 1 of the module's 1");
  d = guardedModule();
  std::get<DispatchStep>(d.steps[0]).guard.when = {{0, 1, 1}, {0, 2, 2}};
  EXPECT_EQ(problem(d), kInconsistent + "step 1 of 3's guard bound 1 names "
                                        "symbol 'batch' a second time");
  d = guardedModule();
  std::get<LibraryCallStep>(d.steps[2]).guard.unless = {{0, 0, 2048}};
  EXPECT_EQ(problem(d), kInconsistent + "step 3 of 3's guard bound 0 is "
                                        "batch in [0, 2048], which is not a "
                                        "range within the symbol's: 1 to "
                                        "1024");
}

} // namespace
