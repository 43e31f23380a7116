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
  EXPECT_FALSE(findExcessiveJSONNesting("{\"a\": \"[[[[\", \"b\": [1]} ((((", 2));
  EXPECT_TRUE(findExcessiveJSONNesting("[[[", 2));
}
