//===- PlanBruteForce.h - exhaustive minimum redistribute cost --*- C++ -*-===//
//
// The reference the planner is checked against (unit tests) and compared
// with (bench/plan_quality): every reachable state is enumerated and all
// edges are relaxed until nothing changes (Bellman-Ford towards the target).
// No priority queue, no early exit: slow and obviously exhaustive.
//
//===----------------------------------------------------------------------===//

#ifndef HP_TESTING_PLANBRUTEFORCE_H
#define HP_TESTING_PLANBRUTEFORCE_H

#include "hp/Dialect/DTensor/Utils/RedistributePlanner.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <vector>

namespace hp::dtensor::plan::testing {

inline double bruteForceCost(const Problem &p, const Options &o) {
  int64_t rank = p.globalShape.size();
  State start = State::fromPlacements(p.source, rank);
  std::string goal = State::fromPlacements(p.target, rank).key();

  struct Edge {
    std::string to;
    double cost;
  };
  llvm::StringMap<std::vector<Edge>> graph;
  llvm::StringMap<bool> seen;
  std::deque<State> work = {start};
  seen[start.key()] = true;
  while (!work.empty()) {
    State s = work.front();
    work.pop_front();
    auto &edges = graph[s.key()];
    forEachSuccessor(p, o, s, [&](const Step &step, const State &next) {
      edges.push_back({next.key(), step.cost});
      if (seen.insert({next.key(), true}).second)
        work.push_back(next);
    });
  }
  const double inf = std::numeric_limits<double>::infinity();
  llvm::StringMap<double> dist;
  for (auto &entry : seen)
    dist[entry.getKey()] = entry.getKey() == goal ? 0 : inf;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto &entry : graph)
      for (const Edge &e : entry.getValue()) {
        double via = e.cost + dist[e.to];
        double &d = dist[entry.getKey()];
        if (via < d - 1e-9 * std::max(1.0, via)) {
          d = via;
          changed = true;
        }
      }
  }
  return dist[start.key()];
}

} // namespace hp::dtensor::plan::testing

#endif // HP_TESTING_PLANBRUTEFORCE_H
