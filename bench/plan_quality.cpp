//===- plan_quality.cpp - planner cost vs optimum vs a greedy baseline ----===//
//
// For every pair of placement lists (R, P(sum), S(d)) on meshes (2), (3),
// (4), (2,2), (2,3), (2,4), (2,2,2) and tensor ranks 2 and 3, prints per
// matrix cell: hp's plan cost / the exhaustive optimum, the baseline's cost /
// the optimum, and planning time (best of three runs per redistribute).
// Pairs whose optimum costs nothing are left out of the ratios. The
// baseline mimics torch's default
// planner: one mesh dim at a time from right to left, all_to_all costed as
// an all_gather, and a split that is not innermost replicated first.
// Costs use the planner's model with alpha = 0 (bytes only).
//
//===----------------------------------------------------------------------===//

#include "../unittests/Dialect/DTensor/PlanBruteForce.h"

#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <vector>

using namespace hp::dtensor::plan;

namespace {

/// The successor of `state` by the step `match` selects, with its cost.
std::optional<std::pair<Step, State>>
findStep(const Problem &p, const Options &o, const State &state,
         const std::function<bool(const Step &)> &match) {
  std::optional<std::pair<Step, State>> found;
  forEachSuccessor(p, o, state, [&](const Step &s, const State &next) {
    if (!found && match(s))
      found = {s, next};
  });
  return found;
}

bool sameAxes(const Step &s, std::initializer_list<int64_t> axes) {
  return llvm::equal(s.axes, axes);
}

/// torch-like greedy: right to left over mesh dims; a shard that is not the
/// innermost split of its dim forces the inner splits to replicate first.
std::optional<double> greedyCost(const Problem &p, const Options &o) {
  int64_t rank = p.globalShape.size(), k = p.meshShape.size();
  State state = State::fromPlacements(p.source, rank);
  State goal = State::fromPlacements(p.target, rank);
  double cost = 0;
  auto apply = [&](const std::function<bool(const Step &)> &match,
                   double *stepCost = nullptr) {
    auto step = findStep(p, o, state, match);
    if (!step)
      return false;
    cost += stepCost ? *stepCost : step->first.cost;
    state = step->second;
    return true;
  };
  auto gather = [&](int64_t m) {
    int64_t d = state.placements[m].arg;
    // Replicate every split inside m first, innermost first.
    while (state.order[d].back() != m) {
      int64_t inner = state.order[d].back();
      if (!apply([&](const Step &s) {
            return s.kind == Step::AllGather && sameAxes(s, {inner});
          }))
        return false;
    }
    return apply([&](const Step &s) {
      return s.kind == Step::AllGather && sameAxes(s, {m});
    });
  };
  for (int pass = 0; pass < 4 && !(state == goal); ++pass) {
    for (int64_t m = k - 1; m >= 0; --m) {
      Placement cur = state.placements[m], want = p.target[m];
      if (cur == want)
        continue;
      bool ok = true;
      if (cur.kind == Placement::Shard) {
        if (want.kind == Placement::Shard) {
          // torch moves it with an all_to_all but costs it as a gather.
          int64_t d = cur.arg;
          while (ok && state.order[d].back() != m) {
            int64_t inner = state.order[d].back();
            ok = apply([&](const Step &s) {
              return s.kind == Step::AllGather && sameAxes(s, {inner});
            });
          }
          if (!ok)
            return std::nullopt;
          auto g = findStep(p, o, state, [&](const Step &s) {
            return s.kind == Step::AllGather && sameAxes(s, {m});
          });
          double asGather = g ? g->first.cost : 0;
          ok = apply(
              [&](const Step &s) {
                return s.kind == Step::AllToAll && sameAxes(s, {m}) &&
                       s.dstDim == want.arg;
              },
              &asGather);
        } else {
          ok = gather(m);
          if (ok && want.kind == Placement::Partial)
            ok = apply([&](const Step &s) {
              return s.kind == Step::MakePartial && sameAxes(s, {m});
            });
        }
      } else if (cur.kind == Placement::Partial) {
        ok = apply([&](const Step &s) {
          if (!sameAxes(s, {m}))
            return false;
          if (want.kind == Placement::Shard)
            return s.kind == Step::ReduceScatter && s.dim == want.arg;
          return s.kind == Step::AllReduce;
        });
      } else {
        ok = apply([&](const Step &s) {
          if (!sameAxes(s, {m}))
            return false;
          if (want.kind == Placement::Shard)
            return s.kind == Step::Chunk && s.dim == want.arg;
          return s.kind == Step::MakePartial;
        });
      }
      if (!ok)
        return std::nullopt;
    }
  }
  if (!(state == goal))
    return std::nullopt;
  return cost;
}

std::vector<std::vector<Placement>> allPlacements(int64_t meshRank,
                                                  int64_t tensorRank) {
  std::vector<Placement> options = {Placement::replicate(),
                                    Placement::partial(0)};
  for (int64_t d = 0; d < tensorRank; ++d)
    options.push_back(Placement::shard(d));
  std::vector<std::vector<Placement>> all = {{}};
  for (int64_t m = 0; m < meshRank; ++m) {
    std::vector<std::vector<Placement>> next;
    for (const auto &prefix : all)
      for (const Placement &pl : options) {
        next.push_back(prefix);
        next.back().push_back(pl);
      }
    all = std::move(next);
  }
  return all;
}

} // namespace

int main() {
  std::vector<std::vector<int64_t>> meshes = {{2},    {3},    {4},      {2, 2},
                                              {2, 3}, {2, 4}, {2, 2, 2}};
  Options options; // alpha = 0: bytes only, as in the property test
  double sumHp = 0, sumGreedy = 0, worstHp = 0, maxPlanUs = 0, sumPlanUs = 0;
  long cases = 0, greedyCases = 0;
  std::printf("%-10s %4s %7s %10s %10s %12s %12s %11s %11s\n", "mesh", "rank",
              "pairs", "hp/opt", "max", "greedy/opt", "max", "plan us",
              "max us");
  for (const auto &mesh : meshes)
    for (int64_t rank : {2, 3}) {
      std::vector<int64_t> shape = rank == 2 ? std::vector<int64_t>{10, 7}
                                             : std::vector<int64_t>{6, 5, 4};
      auto lists = allPlacements(mesh.size(), rank);
      double cellHp = 0, cellGreedy = 0, cellWorst = 0, cellGreedyWorst = 0;
      double cellUs = 0, cellMaxUs = 0;
      long cellCases = 0, cellGreedyCases = 0;
      for (const auto &src : lists)
        for (const auto &dst : lists) {
          Problem p;
          p.globalShape.assign(shape.begin(), shape.end());
          p.meshShape.assign(mesh.begin(), mesh.end());
          p.source.assign(src.begin(), src.end());
          p.target.assign(dst.begin(), dst.end());
          // Best of three runs: one sample is at the mercy of the scheduler.
          std::optional<Plan> plan;
          double us = 1e300;
          for (int run = 0; run < 3; ++run) {
            auto t0 = std::chrono::steady_clock::now();
            plan = planRedistribute(p, options);
            auto t1 = std::chrono::steady_clock::now();
            us = std::min(
                us, std::chrono::duration<double, std::micro>(t1 - t0).count());
          }
          double best = testing::bruteForceCost(p, options);
          if (!plan || best <= 0)
            continue; // free optimum (identity, local chunks): no ratio
          double ratio = plan->cost / best;
          cellHp += ratio;
          cellWorst = std::max(cellWorst, ratio);
          cellUs += us;
          cellMaxUs = std::max(cellMaxUs, us);
          ++cellCases;
          if (std::optional<double> g = greedyCost(p, options)) {
            cellGreedy += *g / best;
            cellGreedyWorst = std::max(cellGreedyWorst, *g / best);
            ++cellGreedyCases;
          }
        }
      std::string name;
      for (int64_t n : mesh)
        name += (name.empty() ? "(" : ",") + std::to_string(n);
      name += ")";
      std::printf("%-10s %4lld %7ld %10.4f %10.4f %12.4f %12.4f %11.1f %11.1f\n",
                  name.c_str(), static_cast<long long>(rank), cellCases,
                  cellHp / cellCases, cellWorst, cellGreedy / cellGreedyCases,
                  cellGreedyWorst, cellUs / cellCases, cellMaxUs);
      sumHp += cellHp;
      sumGreedy += cellGreedy;
      worstHp = std::max(worstHp, cellWorst);
      sumPlanUs += cellUs;
      maxPlanUs = std::max(maxPlanUs, cellMaxUs);
      cases += cellCases;
      greedyCases += cellGreedyCases;
    }
  std::printf("\nmean hp/optimum      %.4f (worst %.4f) over %ld redistributes\n",
              sumHp / cases, worstHp, cases);
  std::printf("mean greedy/optimum  %.4f over %ld redistributes (%ld it "
              "cannot plan)\n",
              sumGreedy / greedyCases, greedyCases, cases - greedyCases);
  std::printf("planning time        mean %.1f us, max %.1f us (target < 1000 us)\n",
              sumPlanUs / cases, maxPlanUs);
  return worstHp > 1.0 + 1e-9 ? 1 : 0;
}
