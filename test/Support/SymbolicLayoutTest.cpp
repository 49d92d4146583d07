//===- SymbolicLayoutTest.cpp - Unit tests of layouts over symbols --------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// SizeExpr's canonical form and the symbolic layout rules, each checked
// against the static rules of Layout.h at sampled values of the symbols.
//
//===----------------------------------------------------------------------===//

#include "stride/Support/SymbolicLayout.h"

#include <limits>

#include <gtest/gtest.h>

#include <functional>
#include <random>

using namespace stride;

namespace {

SizeExpr sym(const std::string &name) { return SizeExpr::symbol(name); }
SizeExpr num(int64_t value) { return SizeExpr::constant(value); }

SizeExpr parsed(const std::string &text) {
  std::optional<SizeExpr> expr = parseSizeExprText(text);
  EXPECT_TRUE(expr.has_value()) << text;
  return expr.value_or(SizeExpr());
}

const SymbolRanges kRanges = {{"b", {"b", 1, 8, 1}}, {"s", {"s", 1, 16, 1}}};

TEST(SizeExpr, CanonicalForm) {
  EXPECT_EQ(*sym("b").times(sym("s")), *sym("s").times(sym("b")));
  EXPECT_EQ(parsed("s*b*768 + 2 + 2").str(), "b*s*768 + 4");
  EXPECT_EQ(parsed("2*(s - 1)").str(), "s*2 - 2");
  EXPECT_EQ(*parsed("s - s").getConstant(), 0);
  EXPECT_EQ(parsed("s0**2").str(), "s0*s0");
  EXPECT_TRUE(parsed("12").isConstant());
}

TEST(SizeExpr, PrintsTheSmallestCoefficient) {
  // A module file may hold any int64 coefficient (stride-module-fuzzer
  // found INT64_MIN, whose negation overflowed in str()).
  int64_t smallest = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(SizeExpr::constant(smallest).str(), "-9223372036854775808");
}

TEST(SizeExpr, SympySrepr) {
  EXPECT_EQ(parsed("Symbol('s31', positive=True, integer=True)").str(), "s31");
  EXPECT_EQ(parsed("Mul(Integer(768), Symbol('s31', positive=True, "
                   "integer=True))").str(),
            "s31*768");
  EXPECT_EQ(parsed("Add(Mul(Symbol('s0', integer=True), Symbol('s1', "
                   "integer=True)), Integer(-1))").str(),
            "s0*s1 - 1");
  EXPECT_EQ(parsed("Pow(Symbol('s0'), Integer(2))").str(), "s0*s0");
}

TEST(SizeExpr, TextItCannotRead) {
  for (const char *text :
       {"floor(s0/2)", "Mod(s0, 8)", "s0//2", "1.5", "s0 +", "",
        "FloorDiv(Symbol('s0'), Integer(2))", "Symbol(s0)", "Integer()",
        "Pow(Symbol('s0'), Symbol('s1'))", "Symbol('s0', positive)"})
    EXPECT_FALSE(parseSizeExprText(text).has_value()) << text;
}

TEST(SizeExpr, BoundsAndEvaluation) {
  SizeExpr e = parsed("b*s*4 - s + 3");
  EXPECT_EQ(*e.evaluate({{"b", 2}, {"s", 5}}), 2 * 5 * 4 - 5 + 3);
  std::optional<SizeInterval> range = e.bounds(kRanges);
  ASSERT_TRUE(range);
  // Sound: every value lies inside.
  for (int64_t b = 1; b <= 8; ++b)
    for (int64_t s = 1; s <= 16; ++s) {
      int64_t value = *e.evaluate({{"b", b}, {"s", s}});
      EXPECT_LE(range->lo, value);
      EXPECT_GE(range->hi, value);
    }
  EXPECT_FALSE(sym("x").bounds(kRanges).has_value());
}

TEST(SizeExpr, SubstitutesSomeSymbols) {
  SizeExpr e = parsed("b*s*4 - s + 3");
  EXPECT_EQ(*e.substitute({{"s", 5}}), parsed("20*b - 2"));
  EXPECT_EQ(*e.substitute({{"b", 2}, {"s", 5}}), num(38));
  EXPECT_EQ(*e.substitute({}), e);
  EXPECT_FALSE(parsed("s*s*4611686018427387904").substitute({{"s", 4}}));
}

TEST(SizeExpr, Divides) {
  EXPECT_EQ(*sym("s").dividedInto(parsed("b*s*64")), parsed("b*64"));
  EXPECT_FALSE(parsed("s*3").dividedInto(parsed("b*s*64")).has_value());
  EXPECT_FALSE(parsed("s + 1").dividedInto(parsed("s*s + s")).has_value());
}

TEST(SymbolicRanges, WhereAboveOne) {
  SymbolRanges ranges = {{"b", {"b", 1, 1024, 1}}};
  SizeAboveOne above = whereAboveOne(sym("b"), ranges);
  EXPECT_EQ(above.kind, SizeAboveOne::Kind::Sometimes);
  EXPECT_EQ(above.where, "when b is in [2, 1024]");
  EXPECT_EQ(whereAboveOne(sym("b"), {{"b", {"b", 1, 1, 1}}}).kind,
            SizeAboveOne::Kind::Never);
  EXPECT_EQ(whereAboveOne(sym("b"), {{"b", {"b", 2, 4, 1}}}).kind,
            SizeAboveOne::Kind::Always);
  // Multiples of 8 from 0: above one from 8.
  EXPECT_EQ(whereAboveOne(sym("b"), {{"b", {"b", 0, 64, 8}}}).where,
            "when b is in [8, 64]");
}

/// The symbolic layout of `shape` with row-major strides.
SymbolicLayout rowMajor(const SizeExprs &shape) {
  return SymbolicLayout{shape, *rowMajorStrides(shape), num(0)};
}

TEST(SymbolicViews, ViewSplitsAndMerges) {
  SymbolicLayout merged = rowMajor({parsed("b*s"), num(768)});
  SymbolicViewResult split = inferView(merged, {sym("b"), sym("s"), num(768)});
  ASSERT_TRUE(split) << split.error;
  EXPECT_EQ(formatSizes(split.layout->strides), "[s*768, 768, 1]");
  SymbolicViewResult back = inferView(*split.layout, {parsed("b*s"), num(768)});
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(*back.layout, merged);
  EXPECT_FALSE(inferView(merged, {sym("s"), num(768)}));
}

/// Every assignment of the ranges' symbols (small ranges).
std::vector<SymbolValues> allValues() {
  std::vector<SymbolValues> all;
  for (int64_t b = 1; b <= 8; ++b)
    for (int64_t s = 1; s <= 16; ++s)
      all.push_back({{"b", b}, {"s", s}});
  return all;
}

/// A random layout over b and s: sizes from {1, 3, b, s, b*s}, strides
/// from products of sizes and small constants.
SymbolicLayout randomLayout(std::mt19937 &rng) {
  std::vector<SizeExpr> sizes = {num(1), num(3), sym("b"), sym("s"),
                                 parsed("b*s")};
  std::vector<SizeExpr> strides = {num(0), num(1), num(2), num(3), sym("s"),
                                   parsed("s*3"), parsed("b*s"), parsed("s*2")};
  SymbolicLayout layout;
  int rank = 1 + rng() % 3;
  for (int d = 0; d < rank; ++d) {
    layout.shape.push_back(sizes[rng() % sizes.size()]);
    layout.strides.push_back(strides[rng() % strides.size()]);
  }
  return layout;
}

/// The symbolic overlap check never proves a layout that overlaps at some
/// value, and a witness it reports is a real overlap there.
TEST(SymbolicOverlap, AgreesWithTheStaticCheckAtEveryValue) {
  std::mt19937 rng(44);
  for (int trial = 0; trial < 2000; ++trial) {
    SymbolicLayout layout = randomLayout(rng);
    SymbolicOverlapVerdict verdict = checkNonOverlapping(layout, kRanges);
    bool overlapsSomewhere = false;
    for (const SymbolValues &values : allValues()) {
      Layout at = *layout.evaluate(values);
      OverlapVerdict check = checkNonOverlapping(at.shape, at.strides);
      overlapsSomewhere |= check.kind == OverlapVerdict::Kind::Overlapping ||
                           check.kind == OverlapVerdict::Kind::ZeroStride;
    }
    if (verdict.ok())
      EXPECT_FALSE(overlapsSomewhere)
          << formatSizes(layout.shape) << " " << formatSizes(layout.strides);
    if (verdict.kind == SymbolicOverlapVerdict::Kind::Overlapping ||
        verdict.kind == SymbolicOverlapVerdict::Kind::ZeroStride)
      EXPECT_TRUE(overlapsSomewhere)
          << formatSizes(layout.shape) << " " << formatSizes(layout.strides);
  }
}

/// Row-major scores [b, s, s]: s*s >= s holds for every s >= 1 although
/// the bounds of s*s - s do not show it (the stride that is a multiple of
/// another by a factor of at least 1).
TEST(SymbolicOverlap, ProvesAProductOfSizesAtLeastItsFactor) {
  SymbolicLayout scores = rowMajor({sym("b"), sym("s"), sym("s")});
  EXPECT_TRUE(checkNonOverlapping(scores, kRanges).ok())
      << formatSizes(scores.strides);
}

/// A symbolic view's layout, evaluated, is the static view's layout of
/// the evaluated operand, at every value.
TEST(SymbolicViews, AgreeWithTheStaticRulesAtEveryValue) {
  SymbolicLayout source = rowMajor({sym("b"), sym("s"), num(4)});
  struct Case {
    std::string name;
    SymbolicViewResult symbolic;
    std::function<ViewResult(const Layout &)> fixed;
  };
  SizeExprs merged = {parsed("b*s"), num(4)};
  std::vector<Case> cases = {
      {"permute", inferPermute(source, Dims{2, 0, 1}),
       [](const Layout &l) { return inferPermute(l, Dims{2, 0, 1}); }},
      {"view", inferView(source, merged),
       [](const Layout &l) {
         return inferView(l, Dims{l.shape[0] * l.shape[1], 4});
       }},
      {"slice", inferSlice(source, 2, num(1), num(3), 1, kRanges),
       [](const Layout &l) { return inferSlice(l, 2, 1, 3, 1); }},
      {"symbolic slice", inferSlice(source, 1, num(1), sym("s"), 1, kRanges),
       [](const Layout &l) { return inferSlice(l, 1, 1, l.shape[1], 1); }},
      {"unsqueeze", inferUnsqueeze(source, 1),
       [](const Layout &l) { return inferUnsqueeze(l, 1); }},
  };
  for (const Case &c : cases) {
    ASSERT_TRUE(c.symbolic) << c.name << ": " << c.symbolic.error;
    for (const SymbolValues &values : allValues()) {
      Layout operand = *source.evaluate(values);
      ViewResult expected = c.fixed(operand);
      ASSERT_TRUE(expected) << c.name;
      Layout got = *c.symbolic.layout->evaluate(values);
      EXPECT_TRUE(sameAddressing(got, *expected.layout)) << c.name;
    }
  }
}

TEST(SymbolicViews, SliceNamesTheValuesWhereItFails) {
  SymbolicLayout source = rowMajor({sym("s"), num(4)});
  SymbolicViewResult slice = inferSlice(source, 0, num(0), num(8), 1, kRanges);
  ASSERT_FALSE(slice);
  EXPECT_EQ(slice.error,
            "slice end 8 exceeds the size s of dim 0 when s is in [1, 7]");
}

TEST(SymbolicViews, SliceOfSymbolicBounds) {
  // [1, s + 1) of a dim of size s + 1: the length s, the offset the start.
  SymbolicLayout source = rowMajor({sym("b"), parsed("s + 1")});
  SymbolicViewResult slice =
      inferSlice(source, 1, num(1), parsed("s + 1"), 1, kRanges);
  ASSERT_TRUE(slice) << slice.error;
  EXPECT_EQ(slice.layout->shape, (SizeExprs{sym("b"), sym("s")}));
  EXPECT_EQ(slice.layout->strides, (SizeExprs{parsed("s + 1"), num(1)}));
  EXPECT_EQ(slice.layout->offset, num(1));
  // A symbolic start moves the offset by an expression.
  slice = inferSlice(source, 1, sym("s"), parsed("s + 1"), 1, kRanges);
  ASSERT_TRUE(slice) << slice.error;
  EXPECT_EQ(slice.layout->offset, sym("s"));
  EXPECT_EQ(slice.layout->shape[1], num(1));
}

TEST(SymbolicViews, SliceOfSymbolicBoundsNamesWhereItFails) {
  SymbolicLayout source = rowMajor({sym("s"), num(4)});
  EXPECT_EQ(inferSlice(source, 0, num(0), parsed("s + 1"), 1, kRanges).error,
            "slice end s + 1 exceeds the size s of dim 0 for every value of the "
            "symbols");
  EXPECT_EQ(inferSlice(source, 0, num(3), sym("s"), 1, kRanges).error,
            "slice end s is below its start 3 when s is in [1, 2]");
  EXPECT_EQ(inferSlice(source, 0, parsed("s - 2"), sym("s"), 1, kRanges).error,
            "slice start s - 2 is negative when s is in [1, 1]");
  EXPECT_EQ(inferSlice(source, 0, num(0), parsed("16 - s"), 1, kRanges).error,
            "slice end -s + 16 exceeds the size s of dim 0 when s is in [1, 7]");
  EXPECT_FALSE(inferSlice(source, 0, num(0), sym("s"), 2, kRanges));
  EXPECT_TRUE(inferSlice(source, 0, sym("s"), parsed("s + 0"), 2, kRanges));
}

TEST(SymbolicLayout, SubstitutesAndStaysExactAtEveryValue) {
  SymbolicLayout source = rowMajor({sym("b"), sym("s"), num(4)});
  SymbolicLayout half = *source.substitute({{"s", 5}});
  EXPECT_EQ(half.shape, (SizeExprs{sym("b"), num(5), num(4)}));
  EXPECT_EQ(half.strides, (SizeExprs{num(20), num(4), num(1)}));
  for (int64_t b = 1; b <= 8; ++b)
    EXPECT_EQ(*half.evaluate({{"b", b}}), *source.evaluate({{"b", b}, {"s", 5}}));
}

} // namespace
