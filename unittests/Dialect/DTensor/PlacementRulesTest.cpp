//===- PlacementRulesTest.cpp - the placements a front end infers ---------===//
//
// Each expectation is the rule of PlacementRules.h applied by hand.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Layout/PlacementRules.h"

#include "gtest/gtest.h"

using namespace hp::dtensor;
using namespace hp::dtensor::plan;

namespace {

const Placement R = Placement::replicate();
Placement S(int64_t d) { return Placement::shard(d); }
const Placement PSum = Placement::partial(ReduceOp::Sum);

TEST(PlacementRules, FsdpSplitsRowsWhereNothingSplitsOrReduces) {
  PlacementList ps = {R, S(1)};
  EXPECT_TRUE(fsdpSplit(ps, 2, 0));
  EXPECT_EQ(ps, (PlacementList{S(0), S(1)}));
  // Already split there (by columns or rows), or a pending reduction.
  for (Placement there : {S(1), S(0), PSum, Placement::stridedShard(0, 2)}) {
    PlacementList kept = {there, R};
    EXPECT_FALSE(fsdpSplit(kept, 2, 0));
    EXPECT_EQ(kept, (PlacementList{there, R}));
  }
  // A scalar stays whole.
  PlacementList scalar = {R};
  EXPECT_FALSE(fsdpSplit(scalar, 0, 0));
  EXPECT_EQ(scalar, (PlacementList{R}));
}

TEST(PlacementRules, OptimizerStateFollowsItsParameterWhenShapedAlike) {
  PlacementList param = {S(0), S(1)};
  EXPECT_EQ(optimizerStatePlacements(param, {8, 4}, {8, 4}), param);
  EXPECT_EQ(optimizerStatePlacements(param, {8, 4}, {}), (PlacementList{R, R}));
  EXPECT_EQ(optimizerStatePlacements(param, {8, 4}, {4, 8}),
            (PlacementList{R, R}));
}

TEST(PlacementRules, AValueWithoutALayoutTakesTheInputsSharedShard) {
  // Both inputs split the batch on mesh dim 0; they disagree on dim 1.
  std::vector<PlacementList> inputs = {{S(0), S(1)}, {S(0), R}};
  EXPECT_EQ(placementsFromInputs(inputs, 1, 2), (PlacementList{S(0), R}));
  // A shard past the value's rank, a shared replicate or partial: replicate.
  EXPECT_EQ(placementsFromInputs({{S(2), R}}, 2, 2), (PlacementList{R, R}));
  EXPECT_EQ(placementsFromInputs({{PSum, S(0)}, {PSum, S(0)}}, 1, 2),
            (PlacementList{R, S(0)}));
  // The fixed dim is left replicated for the caller.
  EXPECT_EQ(placementsFromInputs({{S(0), S(0)}}, 2, 2, /*fixedDim=*/1),
            (PlacementList{S(0), R}));
  // No inputs: replicated.
  EXPECT_EQ(placementsFromInputs({}, 3, 2), (PlacementList{R, R}));
}

} // namespace
