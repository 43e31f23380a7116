//===- PlanCheckerTest.cpp - every plan checked by simulation -------------===//
//
// The sweep plans every placement pair on small meshes and shapes (uneven and
// empty shards included) under both cost settings and runs each plan through
// the checker, which simulates it from the definitions. The hand-written
// cases show that the checker refuses plans that mean something else.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Utils/PlanChecker.h"

#include "hp/Testing/PlanTestSupport.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace hp::dtensor::plan;

using namespace hp::dtensor::plan::testing;
using hp::dtensor::ReduceOp;

namespace {

Step step(Step::Kind kind, llvm::ArrayRef<int64_t> axes, int64_t dim = -1,
          int64_t dstDim = -1, ReduceOp op = kSum) {
  Step s{kind, llvm::SmallVector<int64_t, 4>(axes.begin(), axes.end()), dim,
         dstDim};
  s.reduceOp = op;
  return s;
}

TEST(PlanCheckerTest, AcceptsHandWrittenPlans) {
  // [S0] -> [R]: one all_gather, 7 elements over 3 devices (3, 3, 1).
  EXPECT_EQ(checkPlan(problem({7}, {3}, {S(0)}, {R()}),
                      {step(Step::AllGather, {0}, 0)}),
            "");
  // [P] -> [S1]: reduce_scatter onto an uneven dim with an empty piece.
  EXPECT_EQ(checkPlan(problem({2, 3}, {4}, {P()}, {S(1)}),
                      {step(Step::ReduceScatter, {0}, 1)}),
            "");
  // Nested 2x3 split of 4 (pieces 1,1,0,1,1,0) moved by one merged
  // all_to_all: the pieces follow the nesting, not a flat split into 6.
  EXPECT_EQ(checkPlan(problem({6, 4, 6}, {2, 3}, {S(2), S(2)}, {S(1), S(1)}),
                      {step(Step::AllToAll, {0, 1}, 2, 1)}),
            "");
  // S(0) -> P(max) by a local fill: 7 over 3 is 3, 3, 1; the others hold
  // the identity (-inf).
  EXPECT_EQ(checkPlan(problem({7, 2}, {3}, {S(0)}, {P(kMax)}),
                      {step(Step::Fill, {0}, 0, -1, kMax)}),
            "");
  // R -> P(sum): coordinate 0 keeps the value.
  EXPECT_EQ(checkPlan(problem({5}, {2}, {R()}, {P()}),
                      {step(Step::MakePartial, {0}, -1, -1, kSum)}),
            "");
  // [S0,S1] -> [S1,S0] on 2x2, uneven (10x5): device (i, j) takes the block
  // of (j, i) whole.
  Step swap = step(Step::Permute, {0, 1});
  swap.order = {{1}, {0}};
  EXPECT_EQ(
      checkPlan(problem({10, 5}, {2, 2}, {S(0), S(1)}, {S(1), S(0)}), {swap}),
      "");
  // [S0,S0] -> [R,S0]: reorder the nesting (mesh dim 1 outer), then gather
  // mesh dim 0, now inner. A partial axis rides along unchanged.
  Step nest = step(Step::Permute, {0, 1});
  nest.order = {{1, 0}, {}};
  EXPECT_EQ(
      checkPlan(problem({9, 2}, {2, 2, 2}, {S(0), S(0), P()}, {R(), S(0), P()}),
                {nest, step(Step::AllGather, {0}, 0)}),
      "");
}

TEST(PlanCheckerTest, RefusesPlansThatMeanSomethingElse) {
  // Nothing done.
  EXPECT_NE(checkPlan(problem({7}, {3}, {S(0)}, {R()}), {}), "");
  // The wrong reduction.
  EXPECT_NE(checkPlan(problem({4}, {2}, {P(kMax)}, {R()}),
                      {step(Step::AllReduce, {0}, -1, -1, kSum)}),
            "");
  // avg reduced as a sum.
  EXPECT_NE(checkPlan(problem({4}, {2}, {P(kAvg)}, {R()}),
                      {step(Step::AllReduce, {0}, -1, -1, kSum)}),
            "");
  // Merged axes in the wrong order: [S0,S0] nests mesh dim 0 outermost.
  EXPECT_NE(checkPlan(problem({8}, {2, 2}, {S(0), S(0)}, {R(), R()}),
                      {step(Step::AllGather, {1, 0}, 0)}),
            "");
  // Gathering the outer split first.
  EXPECT_NE(
      checkPlan(problem({8}, {2, 2}, {S(0), S(0)}, {R(), R()}),
                {step(Step::AllGather, {0}, 0), step(Step::AllGather, {1}, 0)}),
      "");
  // A reduce_scatter whose pieces land on the wrong dim.
  EXPECT_NE(checkPlan(problem({4, 4}, {2}, {P()}, {S(1)}),
                      {step(Step::ReduceScatter, {0}, 0)}),
            "");
  // Mixed partials: the inner max must be reduced before the outer sum.
  EXPECT_NE(checkPlan(problem({3}, {2, 2}, {P(kSum), P(kMax)}, {R(), P(kMax)}),
                      {step(Step::AllReduce, {0}, -1, -1, kSum)}),
            "");
  // A fill with the wrong identity (sum's 0 declared as prod).
  EXPECT_NE(checkPlan(problem({4}, {2}, {S(0)}, {P(kProd)}),
                      {step(Step::Fill, {0}, 0, -1, kSum)}),
            "");
  // A fill of the outer split while an inner one remains.
  EXPECT_NE(checkPlan(problem({8}, {2, 2}, {S(0), S(0)}, {P(), S(0)}),
                      {step(Step::Fill, {0}, 0, -1, kSum)}),
            "");
  // A permute that claims the swap of a 2x2 mesh's roles moves along one
  // axis only: device (0, 1) needs (1, 0)'s block, which differs on both.
  Step swapOneAxis = step(Step::Permute, {0});
  swapOneAxis.order = {{1}, {0}};
  EXPECT_NE(checkPlan(problem({8, 8}, {2, 2}, {S(0), S(1)}, {S(1), S(0)}),
                      {swapOneAxis}),
            "");
  // A permute whose splits are not the target's: the blocks move, but not
  // into the target layout.
  Step noSwap = step(Step::Permute, {0, 1});
  noSwap.order = {{0}, {1}};
  EXPECT_NE(
      checkPlan(problem({8, 8}, {2, 2}, {S(0), S(1)}, {S(1), S(0)}), {noSwap}),
      "");
  // Splits of other sizes than the source's (2x4 mesh): each device's new
  // block is pieces of two devices' blocks, which a permute may gather
  // when it may move along both axes, not along axis 0 alone.
  Step resize = step(Step::Permute, {0, 1});
  resize.order = {{1}, {0}};
  EXPECT_EQ(
      checkPlan(problem({8, 8}, {2, 4}, {S(0), S(1)}, {S(1), S(0)}), {resize}),
      "");
  resize.axes = {0};
  EXPECT_NE(
      checkPlan(problem({8, 8}, {2, 4}, {S(0), S(1)}, {S(1), S(0)}), {resize}),
      "");
  // make_partial<prod> under a partial<sum> axis adds up the ones.
  EXPECT_NE(checkPlan(problem({3}, {2, 2}, {R(), P(kSum)}, {P(kProd), P(kSum)}),
                      {step(Step::MakePartial, {0}, -1, -1, kProd)}),
            "");
}

TEST(PlanCheckerTest, CatchesADeliberatelyWrongStepInPlannedPlans) {
  // The test-only hook: take the planner's plan and change one step so it
  // means something else while costing the same; the checker must notice.
  Options o;
  Problem p = problem({6, 4, 6}, {2, 3}, {S(2), S(2)}, {S(1), S(1)});
  std::optional<Plan> plan = planRedistribute(p, o);
  ASSERT_TRUE(plan);
  ASSERT_EQ(checkPlan(p, plan->steps), "") << plan->str();
  int mutated = 0;
  for (size_t i = 0; i < plan->steps.size(); ++i) {
    Step &s = plan->steps[i];
    if (s.axes.size() < 2)
      continue;
    std::swap(s.axes.front(), s.axes.back());
    EXPECT_NE(checkPlan(p, plan->steps), "") << plan->str();
    std::swap(s.axes.front(), s.axes.back());
    ++mutated;
  }
  EXPECT_GT(mutated, 0);
}

/// Whether a partial source can reach `dst`: P(a) -> P(b) on one mesh dim is
/// not a redistribute (the verifier refuses it).
bool reachable(llvm::ArrayRef<Placement> src, llvm::ArrayRef<Placement> dst) {
  for (auto [a, b] : llvm::zip_equal(src, dst))
    if (a.kind == Placement::Partial && b.kind == Placement::Partial &&
        a.reduceOp != b.reduceOp)
      return false;
  return true;
}

/// Plans and checks every placement pair on `mesh` for each shape.
void sweep(llvm::ArrayRef<int64_t> mesh,
           llvm::ArrayRef<llvm::SmallVector<int64_t, 4>> shapes,
           llvm::ArrayRef<ReduceOp> ops,
           Arithmetic arithmetic = Arithmetic::Real, int64_t elementBytes = 4) {
  Options costings[2];
  costings[0].latencyBytes = 0;
  costings[1].latencyBytes = 65536;
  int64_t checked = 0;
  for (const auto &shape : shapes) {
    auto lists = allPlacements(mesh.size(), shape.size(), ops);
    for (const auto &src : lists)
      for (const auto &dst : lists) {
        if (!reachable(src, dst))
          continue;
        Problem p = problem(shape, mesh, src, dst);
        p.arithmetic = arithmetic;
        p.elementBytes = elementBytes;
        for (const Options &o : costings) {
          std::optional<Plan> plan = planRedistribute(p, o);
          ASSERT_TRUE(plan)
              << placementsToString(src) << " -> " << placementsToString(dst);
          std::string error = checkPlan(p, plan->steps);
          ASSERT_EQ(error, "")
              << "shape " << shape.size() << "-d [" << shape[0] << "...] "
              << placementsToString(src) << " -> " << placementsToString(dst)
              << ": " << plan->str();
          ++checked;
        }
      }
  }
  EXPECT_GT(checked, 0);
}

llvm::SmallVector<llvm::SmallVector<int64_t, 4>> rank1Shapes() {
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>> shapes;
  for (int64_t g = 1; g <= 9; ++g)
    shapes.push_back({g});
  return shapes;
}

/// Rank 2: all 81 shapes of dims 1..9, or (`all` false) every size 1..9 in
/// each dim paired with a size that is uneven on most meshes.
llvm::SmallVector<llvm::SmallVector<int64_t, 4>> rank2Shapes(bool all) {
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>> shapes;
  all |= std::getenv("HP_EXHAUSTIVE") != nullptr;
  for (int64_t a = 1; a <= 9; ++a)
    for (int64_t b = 1; b <= 9; ++b)
      if (all || b == 10 - a || (a == 5 && b == 5))
        shapes.push_back({a, b});
  return shapes;
}

const ReduceOp kAllOps[] = {kSum, kAvg, kMax, kMin, kProd};
const ReduceOp kTwoOps[] = {kSum, kMax};

class PlanCheckerSweep
    : public ::testing::TestWithParam<llvm::SmallVector<int64_t, 4>> {};

TEST_P(PlanCheckerSweep, Rank1EveryPartialKind) {
  sweep(GetParam(), rank1Shapes(), kAllOps);
}

TEST_P(PlanCheckerSweep, Rank2EveryPartialKind) {
  // Every shape on 1-D meshes; a sample of shapes on 2-D ones.
  sweep(GetParam(), rank2Shapes(GetParam().size() == 1), kAllOps);
}

TEST_P(PlanCheckerSweep, Rank2EveryShape) {
  sweep(GetParam(), rank2Shapes(/*all=*/true), kTwoOps);
}

INSTANTIATE_TEST_SUITE_P(
    Meshes, PlanCheckerSweep,
    ::testing::Values(
        llvm::SmallVector<int64_t, 4>{1}, llvm::SmallVector<int64_t, 4>{2},
        llvm::SmallVector<int64_t, 4>{3}, llvm::SmallVector<int64_t, 4>{4},
        llvm::SmallVector<int64_t, 4>{5}, llvm::SmallVector<int64_t, 4>{6},
        llvm::SmallVector<int64_t, 4>{7}, llvm::SmallVector<int64_t, 4>{8},
        llvm::SmallVector<int64_t, 4>{2, 2},
        llvm::SmallVector<int64_t, 4>{2, 3},
        llvm::SmallVector<int64_t, 4>{3, 2},
        llvm::SmallVector<int64_t, 4>{2, 4},
        llvm::SmallVector<int64_t, 4>{4, 2},
        llvm::SmallVector<int64_t, 4>{1, 4}));

TEST(PlanCheckerSweepStrided, EveryPairWithAStridedShard) {
  // The checker lays strided shards out by torch's chunk definition, not by
  // the nesting order the planner reads them as: every plan to or from
  // them, on meshes up to 8 devices, even and uneven other dims.
  Options costings[2];
  costings[0].latencyBytes = 0;
  costings[1].latencyBytes = 65536;
  int64_t checked = 0;
  for (llvm::SmallVector<int64_t, 4> mesh :
       {llvm::SmallVector<int64_t, 4>{2, 2}, {2, 4}, {4, 2}, {2, 3}, {2, 2, 2}})
    for (llvm::SmallVector<int64_t, 4> shape :
         {llvm::SmallVector<int64_t, 4>{24, 5}, {8, 8}, {24, 1}}) {
      auto lists = allPlacements(mesh.size(), shape.size(), {kSum, kMax});
      auto strided = stridedVariants(lists, mesh, shape);
      for (const auto &a : strided)
        for (const auto &b : lists)
          for (auto [src, dst] : {std::pair(a, b), std::pair(b, a)}) {
            if (!reachable(src, dst))
              continue;
            Problem p = problem(shape, mesh, src, dst);
            for (const Options &o : costings) {
              std::optional<Plan> plan = planRedistribute(p, o);
              ASSERT_TRUE(plan);
              ASSERT_EQ(checkPlan(p, plan->steps), "")
                  << placementsToString(src) << " -> "
                  << placementsToString(dst) << ": " << plan->str();
              ++checked;
            }
          }
    }
  EXPECT_GT(checked, 1000);
}

TEST(PlanCheckerTest, StridedShardIsTorchsChunkDefinition) {
  // On (2, 2), 4x1: [SS(0,2), S(0)] puts rows 0, 2, 1, 3 on devices
  // (0,0), (0,1), (1,0), (1,1); the default nesting puts rows 0, 1, 2, 3.
  // No step at all is then wrong, and a permute to splits [[1, 0]] right.
  Problem p = problem({4, 1}, {2, 2}, {S(0), S(0)}, {SS(0, 2), S(0)});
  EXPECT_NE(checkPlan(p, {}), "");
  Step permute{Step::Permute, {0, 1}};
  permute.order = {{1, 0}, {}};
  EXPECT_EQ(checkPlan(p, {permute}), "");
  // The same permute does not give the default nesting back from itself.
  Problem q = problem({4, 1}, {2, 2}, {SS(0, 2), S(0)}, {S(0), S(0)});
  EXPECT_NE(checkPlan(q, {permute}), "");
  Step back = permute;
  back.order = {{0, 1}, {}};
  EXPECT_EQ(checkPlan(q, {back}), "");
}

TEST(PlanCheckerTest, SubBlockPermute) {
  // 2x4, 16x8: from [S(0), R] every device finds its [S(1), S(0)] block
  // inside a device differing on both axes; restricted to axis 1, devices
  // (0, 2) and (0, 3) find no holder (their rows live on i = 1).
  Problem p = problem({16, 8}, {2, 4}, {S(0), R()}, {S(1), S(0)});
  Step permute{Step::Permute, {0, 1}};
  permute.order = {{1}, {0}};
  EXPECT_EQ(checkPlan(p, {permute}), "");
  Step narrow = permute;
  narrow.axes = {1};
  EXPECT_NE(checkPlan(p, {narrow}), "");
  // Splits the target does not have are refused at the end.
  Step wrong = permute;
  wrong.order = {{0}, {1}};
  EXPECT_NE(checkPlan(p, {wrong}), "");
}

// Integers wrap: a max/min fill writes the type's extremes, which a later
// avg (or sum) over copies of them overflows. These plans are right in exact
// arithmetic and once computed wrong numbers on i32/i64.
TEST(PlanCheckerIntegers, ExtremesUnderAvgAreRefused) {
  // 1x2x2, [3, 1]: [R, R, S(0)] -> [P(max), P(min), P(avg)], as planned
  // before integers were modelled: the min fill on axis 1 puts INT_MAX on
  // both coordinates of axis 2, whose avg adds them.
  Problem p =
      problem({3, 1}, {1, 2, 2}, {R(), R(), S(0)}, {P(kMax), P(kMin), P(kAvg)});
  Step makeMax{Step::MakePartial, {0}};
  makeMax.reduceOp = kMax;
  Step move{Step::Permute, {1, 2}};
  move.order = {{1}, {}};
  Step makeAvg{Step::MakePartial, {2}};
  makeAvg.reduceOp = kAvg;
  Step fillMin{Step::Fill, {1}, 0};
  fillMin.reduceOp = kMin;
  std::vector<Step> old = {makeMax, move, makeAvg, fillMin};
  EXPECT_EQ(checkPlan(p, old), "");
  for (Arithmetic a : {Arithmetic::SignedInt, Arithmetic::UnsignedInt})
    for (int64_t bytes : {1, 4, 8}) {
      p.arithmetic = a;
      p.elementBytes = bytes;
      // Unsigned: UINT_MAX + UINT_MAX wraps to an even number whose half
      // still exceeds every share, so the min picks the right value.
      if (a == Arithmetic::SignedInt)
        EXPECT_NE(checkPlan(p, old), "") << bytes << " bytes";
      std::optional<Plan> plan = planRedistribute(p, Options());
      ASSERT_TRUE(plan);
      EXPECT_EQ(checkPlan(p, plan->steps), "") << plan->str();
    }
  // 2x2x2, [4, 6]: [S(0), R, P(avg)] -> [P(min), P(sum), S(0)]: the min fill
  // on axis 0 came before the reduce_scatter of the source's avg.
  Problem q = problem({4, 6}, {2, 2, 2}, {S(0), R(), P(kAvg)},
                      {P(kMin), P(kSum), S(0)});
  Step chunk{Step::Chunk, {1}, 1};
  Step fill0{Step::Fill, {0}, 0};
  fill0.reduceOp = kMin;
  Step scatter{Step::ReduceScatter, {2}, 0};
  scatter.reduceOp = kAvg;
  Step fill1{Step::Fill, {1}, 1};
  fill1.reduceOp = kSum;
  std::vector<Step> before = {chunk, fill0, scatter, fill1};
  EXPECT_EQ(checkPlan(q, before), "");
  q.arithmetic = Arithmetic::SignedInt;
  q.elementBytes = 8;
  EXPECT_NE(checkPlan(q, before), "");
  std::optional<Plan> plan = planRedistribute(q, Options());
  ASSERT_TRUE(plan);
  EXPECT_EQ(checkPlan(q, plan->steps), "") << plan->str();
}

TEST(PlanCheckerIntegers, WrappingIsModelled) {
  // A sum whose true value overflows i8 is wrapped by NCCL and by the
  // checker alike; the same plan is right for both.
  Problem p = problem({4}, {2}, {P(kSum)}, {R()});
  p.arithmetic = Arithmetic::SignedInt;
  p.elementBytes = 1;
  Step reduce{Step::AllReduce, {0}};
  EXPECT_EQ(checkPlan(p, {reduce}), "");
  reduce.reduceOp = kMax;
  EXPECT_NE(checkPlan(p, {reduce}), "");
}

// Every pair of placement lists with every partial kind, on the meshes of
// the programs that once went wrong, planned and checked in fixed-width
// integer arithmetic (signed and unsigned, 8 and 64 bits).
TEST(PlanCheckerIntegers, EveryPairOnThreeDMeshes) {
  for (llvm::SmallVector<int64_t, 4> mesh :
       {llvm::SmallVector<int64_t, 4>{2, 2, 2},
        llvm::SmallVector<int64_t, 4>{1, 2, 2}}) {
    sweep(mesh, {{3}, {4}}, kAllOps, Arithmetic::SignedInt, 8);
    sweep(mesh, {{5}}, kAllOps, Arithmetic::UnsignedInt, 1);
  }
  sweep({2, 2}, {{3, 1}, {4, 6}}, kAllOps, Arithmetic::SignedInt, 4);
}

TEST(PlanCheckerSweep3D, Rank1And3) {
  for (llvm::SmallVector<int64_t, 4> mesh :
       {llvm::SmallVector<int64_t, 4>{2, 1, 3},
        llvm::SmallVector<int64_t, 4>{2, 2, 2}}) {
    sweep(mesh, rank1Shapes(), kTwoOps);
    // A sample of rank 3: uneven, even and empty-shard shapes.
    sweep(mesh, {{3, 2, 5}, {4, 1, 2}}, {kSum});
  }
}

} // namespace
