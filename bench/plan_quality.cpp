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
// Also: hp restricted to collectives (no point-to-point permutes) over the
// optimum, the physical receive lower bound for pairs without partials (the
// most bytes one rank must receive: its target block minus what it already
// holds) with hp's cost over it, and planning time on 4-D meshes with rank-4
// tensors (random pairs from a fixed seed).
//
//===----------------------------------------------------------------------===//

#include "hp/Testing/PlanBruteForce.h"
#include "hp/Testing/PlanTestSupport.h"

#include "llvm/ADT/StringExtras.h"

#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace hp::dtensor::plan;
using hp::dtensor::plan::testing::allPlacements;

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
    int64_t d = state.placements[m].dim;
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
          int64_t d = cur.dim;
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
                       s.dstDim == want.dim;
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
            return s.kind == Step::ReduceScatter && s.dim == want.dim;
          return s.kind == Step::AllReduce;
        });
      } else {
        ok = apply([&](const Step &s) {
          if (!sameAxes(s, {m}))
            return false;
          if (want.kind == Placement::Shard)
            return s.kind == Step::Chunk && s.dim == want.dim;
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

/// Per tensor dim, the interval [offset, offset + size) device `coord` holds
/// under `placements` (torch.chunk, mesh dims in order).
std::vector<std::pair<int64_t, int64_t>>
boxOf(const Problem &p, llvm::ArrayRef<Placement> placements,
      const std::vector<int64_t> &coord) {
  std::vector<std::pair<int64_t, int64_t>> box;
  for (int64_t g : p.globalShape)
    box.push_back({0, g});
  for (auto [m, pl] : llvm::enumerate(placements)) {
    if (pl.kind != Placement::Shard)
      continue;
    auto &[offset, size] = box[pl.dim];
    int64_t n = p.meshShape[m], c = (size + n - 1) / n;
    int64_t o = std::min(coord[m] * c, size);
    offset += o;
    size = std::min(c, size - o);
  }
  return box;
}

/// The most bytes one rank must receive to go from the source to the target
/// layout (no partials): its target block minus what its source block
/// already holds. No plan of whole-element moves can do with less.
double receiveBound(const Problem &p) {
  int64_t devices = 1;
  for (int64_t n : p.meshShape)
    devices *= n;
  double most = 0;
  for (int64_t d = 0; d < devices; ++d) {
    std::vector<int64_t> coord(p.meshShape.size());
    for (int64_t m = static_cast<int64_t>(coord.size()) - 1, r = d; m >= 0;
         --m) {
      coord[m] = r % p.meshShape[m];
      r /= p.meshShape[m];
    }
    auto have = boxOf(p, p.source, coord), want = boxOf(p, p.target, coord);
    double wanted = 1, kept = 1;
    for (size_t k = 0; k < want.size(); ++k) {
      wanted *= want[k].second;
      int64_t lo = std::max(have[k].first, want[k].first);
      int64_t hi = std::min(have[k].first + have[k].second,
                            want[k].first + want[k].second);
      kept *= std::max<int64_t>(0, hi - lo);
    }
    most = std::max(most, (wanted - kept) * p.elementBytes);
  }
  return most;
}

} // namespace

/// --optimum: for each stdin line `mesh shape src dst` (`2x4 16x8 S0,R
/// S1,S0`; placements R, S<d>, P), the exhaustive optimum's bytes
/// (latency-bytes=0), one per line: what bench/jax_compare.py charts.
int printOptima() {
  char mesh[64], shape[64], src[128], dst[128];
  auto numbers = [](const char *text) {
    llvm::SmallVector<int64_t, 4> out;
    for (llvm::StringRef part : llvm::split(llvm::StringRef(text), 'x'))
      out.push_back(std::stoll(part.str()));
    return out;
  };
  auto placements = [](const char *text) {
    std::vector<Placement> out;
    for (llvm::StringRef part : llvm::split(llvm::StringRef(text), ','))
      out.push_back(
          part == "R" ? Placement::replicate()
          : part == "P"
              ? Placement::partial(hp::dtensor::ReduceOp::Sum)
              : Placement::shard(std::stoll(part.drop_front().str())));
    return out;
  };
  while (std::scanf("%63s %63s %127s %127s", mesh, shape, src, dst) == 4) {
    auto from = placements(src), to = placements(dst);
    Problem p = testing::problem(numbers(shape), numbers(mesh), from, to);
    std::printf("%.1f\n", testing::bruteForceCost(p, Options{}));
  }
  return 0;
}

int main(int argc, char **argv) {
  // --timing-only: just the 4-D planning times (the quick loop when tuning
  // the search).
  bool timingOnly = argc > 1 && std::string(argv[1]) == "--timing-only";
  if (argc > 1 && std::string(argv[1]) == "--optimum")
    return printOptima();
  std::vector<std::vector<int64_t>> meshes = {{2},    {3},    {4},      {2, 2},
                                              {2, 3}, {2, 4}, {2, 2, 2}};
  if (timingOnly)
    meshes.clear();
  Options options; // alpha = 0: bytes only, as in the property test
  Options collectivesOnly;
  collectivesOnly.permutes = false;
  double sumHp = 0, sumGreedy = 0, worstHp = 0, maxPlanUs = 0, sumPlanUs = 0;
  double sumColl = 0, sumBound = 0, worstBound = 0;
  long cases = 0, greedyCases = 0, boundCases = 0;
  std::printf("%-10s %4s %7s %8s %8s %10s %8s %10s %8s %9s %8s %8s\n", "mesh",
              "rank", "pairs", "hp/opt", "max", "greedy/opt", "max", "coll/opt",
              "hp/recv", "max", "plan us", "max us");
  for (const auto &mesh : meshes)
    for (int64_t rank : {2, 3}) {
      std::vector<int64_t> shape = rank == 2 ? std::vector<int64_t>{10, 7}
                                             : std::vector<int64_t>{6, 5, 4};
      auto lists = allPlacements(mesh.size(), rank);
      double cellHp = 0, cellGreedy = 0, cellWorst = 0, cellGreedyWorst = 0;
      double cellUs = 0, cellMaxUs = 0, cellColl = 0, cellBound = 0,
             cellBoundWorst = 0;
      long cellCases = 0, cellGreedyCases = 0, cellBoundCases = 0;
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
          if (std::optional<Plan> c = planRedistribute(p, collectivesOnly))
            cellColl += c->cost / best;
          bool partial = false;
          for (const Placement &pl : src)
            partial |= pl.kind == Placement::Partial;
          for (const Placement &pl : dst)
            partial |= pl.kind == Placement::Partial;
          if (double bound = receiveBound(p); !partial && bound > 0) {
            cellBound += plan->cost / bound;
            cellBoundWorst = std::max(cellBoundWorst, plan->cost / bound);
            ++cellBoundCases;
          }
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
      std::printf("%-10s %4lld %7ld %8.4f %8.4f %10.4f %8.2f %10.4f %8.4f "
                  "%9.4f %8.1f %8.1f\n",
                  name.c_str(), static_cast<long long>(rank), cellCases,
                  cellHp / cellCases, cellWorst, cellGreedy / cellGreedyCases,
                  cellGreedyWorst, cellColl / cellCases,
                  cellBound / std::max(1L, cellBoundCases), cellBoundWorst,
                  cellUs / cellCases, cellMaxUs);
      sumColl += cellColl;
      sumBound += cellBound;
      worstBound = std::max(worstBound, cellBoundWorst);
      boundCases += cellBoundCases;
      sumHp += cellHp;
      sumGreedy += cellGreedy;
      worstHp = std::max(worstHp, cellWorst);
      sumPlanUs += cellUs;
      maxPlanUs = std::max(maxPlanUs, cellMaxUs);
      cases += cellCases;
      greedyCases += cellGreedyCases;
    }
  std::printf(
      "\nmean hp/optimum      %.4f (worst %.4f) over %ld redistributes\n",
      sumHp / cases, worstHp, cases);
  std::printf("mean greedy/optimum  %.4f over %ld redistributes (%ld it "
              "cannot plan)\n",
              sumGreedy / greedyCases, greedyCases, cases - greedyCases);
  std::printf("mean collectives-only/optimum %.4f (what point-to-point "
              "permutes save)\n",
              sumColl / cases);
  std::printf("mean hp/receive bound %.4f (worst %.4f) over %ld pairs "
              "without partials\n",
              sumBound / boundCases, worstBound, boundCases);
  std::printf(
      "planning time        mean %.1f us, max %.1f us (target < 1000 us)\n",
      sumPlanUs / cases, maxPlanUs);

  // Planning time on 4-D meshes, rank-4 tensors: random pairs, fixed seed.
  std::printf("\n4-D meshes, rank-4 tensors (random pairs, seed 20261202):\n");
  std::printf("%-14s %7s %10s %10s\n", "mesh", "pairs", "mean us", "max us");
  double worst4dMean = 0, worst4dMax = 0;
  for (std::vector<int64_t> mesh :
       {std::vector<int64_t>{8, 16, 8, 4}, std::vector<int64_t>{2, 2, 2, 2},
        std::vector<int64_t>{4, 4, 4, 4}}) {
    std::mt19937_64 rng(20261202);
    auto pick = [&] {
      std::vector<Placement> pl;
      for (size_t m = 0; m < mesh.size(); ++m) {
        int64_t c = static_cast<int64_t>(rng() % 6);
        pl.push_back(c == 0   ? Placement::replicate()
                     : c == 1 ? Placement::partial(hp::dtensor::ReduceOp::Sum)
                              : Placement::shard(c - 2));
      }
      return pl;
    };
    const int pairs = 300;
    double sum = 0, most = 0;
    for (int i = 0; i < pairs; ++i) {
      Problem p;
      p.globalShape = {256, 128, 96, 64};
      p.meshShape.assign(mesh.begin(), mesh.end());
      auto src = pick(), dst = pick();
      p.source.assign(src.begin(), src.end());
      p.target.assign(dst.begin(), dst.end());
      double us = 1e300;
      for (int run = 0; run < 3; ++run) {
        auto t0 = std::chrono::steady_clock::now();
        (void)planRedistribute(p, options);
        auto t1 = std::chrono::steady_clock::now();
        us = std::min(
            us, std::chrono::duration<double, std::micro>(t1 - t0).count());
      }
      sum += us;
      most = std::max(most, us);
    }
    std::string name;
    for (int64_t n : mesh)
      name += (name.empty() ? "(" : ",") + std::to_string(n);
    name += ")";
    std::printf("%-14s %7d %10.1f %10.1f\n", name.c_str(), pairs, sum / pairs,
                most);
    worst4dMean = std::max(worst4dMean, sum / pairs);
    worst4dMax = std::max(worst4dMax, most);
  }
  std::printf("4-D planning time    worst mean %.1f us, max %.1f us (targets "
              "< 1000 us mean, < 10000 us max)\n",
              worst4dMean, worst4dMax);
  return worstHp > 1.0 + 1e-9 ? 1 : 0;
}
