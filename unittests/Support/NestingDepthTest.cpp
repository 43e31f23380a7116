//===- NestingDepthTest.cpp - the parser's nesting bound ------------------===//

#include "hp/Support/NestingDepth.h"

#include <gtest/gtest.h>

#include <string>

using namespace hp;

TEST(NestingDepth, CountsEveryBracketKind) {
  EXPECT_FALSE(findExcessiveNesting("({[<>]})", 4));
  auto v = findExcessiveNesting("({[<>]})", 3);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->depth, 4u);
  EXPECT_EQ(v->offset, 3u);
  EXPECT_EQ(v->line, 1u);
  EXPECT_EQ(v->column, 4u);
}

TEST(NestingDepth, ArrowsAndComparisonsAreNotBrackets) {
  // `->` closes nothing: without the rule the `>` would undercount and the
  // second `<` would be seen at depth 1 instead of 2.
  EXPECT_FALSE(findExcessiveNesting("f<(d0) -> (d0)>", 2));
  EXPECT_TRUE(findExcessiveNesting("a<b<c>>", 1));
  EXPECT_FALSE(findExcessiveNesting("(d0 >= 0, d1 <= 2)", 1));
}

TEST(NestingDepth, SkipsStringsAndComments) {
  EXPECT_FALSE(findExcessiveNesting("\"((((\\\"((\" // {{{{\n()", 1));
  auto v = findExcessiveNesting("// ((\n ((", 1);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->line, 2u);
  EXPECT_EQ(v->column, 3u);
}

TEST(NestingDepth, DeepInputIsRefusedAtTheBound) {
  std::string deep(100000, '{');
  auto v = findExcessiveNesting(deep);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->depth, kMaxNestingDepth + 1);
  EXPECT_EQ(v->offset, kMaxNestingDepth);
  EXPECT_NE(v->message("in.mlir").find("in.mlir:1:513: input nests deeper "
                                       "than 512"),
            std::string::npos);
  EXPECT_FALSE(findExcessiveNesting(std::string(kMaxNestingDepth, '{')));
}

TEST(NestingDepth, JSONIgnoresParenthesesAndAngles) {
  EXPECT_FALSE(
      findExcessiveJSONNesting("{\"a\": \"[[[[\", \"b\": [1]} ((((", 2));
  EXPECT_TRUE(findExcessiveJSONNesting("[[[", 2));
}

TEST(NestingDepth, AffineOperatorChainsAreBounded) {
  // MLIR's affine parser recurses per unary minus and per chained operator.
  std::string minus = "#m = affine_map<(d0) -> (";
  for (int i = 0; i < 2000; ++i)
    minus += "- ";
  minus += "d0)>";
  auto v = findExcessiveNesting(minus);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, NestingViolation::AffineOperators);
  EXPECT_EQ(v->depth, kMaxAffineOperators + 1);
  EXPECT_NE(v->message("m.mlir").find("an affine expression chains more "
                                      "than 1000 operators"),
            std::string::npos);
  std::string plus = "%v = affine.load %m[%i";
  for (int i = 0; i < 1500; ++i)
    plus += i % 2 ? " + %i" : "\n floordiv 2";
  plus += "] : memref<4xf32>";
  EXPECT_TRUE(findExcessiveNesting(plus));
  // Commas end a chain; outside affine expressions operators are not
  // counted (negative numbers of a long constant, many `->` arrows).
  std::string list = "#m = affine_map<(d0, d1) -> (";
  for (int i = 0; i < 1500; ++i)
    list += "d0 - 1, ";
  list += "d1)>";
  EXPECT_FALSE(findExcessiveNesting(list));
  std::string ops;
  for (int i = 0; i < 3000; ++i)
    ops += "%c = arith.constant -1 : i32 // - - -\n";
  EXPECT_FALSE(findExcessiveNesting(ops));
}

TEST(NestingDepth, SplitChunksAreScannedApart) {
  // Three unclosed brackets per chunk; 200 chunks exceed the bound only if
  // the chunks are counted together.
  std::string chunks;
  for (int i = 0; i < 200; ++i)
    chunks += "\"x\"() ({ [ ( \n// -----\n";
  EXPECT_TRUE(findExcessiveNesting(chunks));
  EXPECT_FALSE(findExcessiveNesting(chunks, kMaxNestingDepth, "// -----"));
}
