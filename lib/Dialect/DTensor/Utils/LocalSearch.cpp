//===- LocalSearch.cpp - the chooser past the tables' cap -----------------===//
//
// Where exact elimination does not fit, the chooser improves a starting
// assignment: node by node, by windows of consecutive nodes solved exactly
// with the rest fixed, and on 2-D and larger meshes one mesh axis at a time
// over the whole program.
//
//===----------------------------------------------------------------------===//

#include "ChooserProblem.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "dtensor-propagate"

using namespace hp::dtensor::propagation;
using namespace hp::dtensor::propagation::detail;

/// One node at a time takes its best strategy given the others, until no
/// change helps.
void detail::improveLocally(Problem &p, SmallVector<int64_t> &choice) {
  const Graph &graph = p.graph;
  auto localCost = [&](int64_t n) {
    double c = p.compute(n, choice[n]);
    for (int64_t v : graph.nodes[n].operands)
      c += p.valueCost(v, choice);
    for (int64_t v : graph.nodes[n].results)
      c += p.valueCost(v, choice);
    return c;
  };
  for (int sweep = 0; sweep < 50; ++sweep) {
    bool changed = false;
    for (int64_t n = 0, e = graph.nodes.size(); n < e; ++n) {
      int64_t keep = choice[n];
      double best = localCost(n);
      int64_t bestS = keep;
      for (int64_t s = 0, k = graph.nodes[n].strategies.size(); s < k; ++s) {
        choice[n] = s;
        double c = localCost(n);
        if (c < best - 1e-9 * std::max(1.0, std::fabs(best))) {
          best = c;
          bestS = s;
        }
      }
      choice[n] = bestS;
      changed |= bestS != keep;
    }
    if (!changed)
      return;
  }
}

/// The subproblem of re-choosing the nodes of `window` with every other
/// node's strategy fixed at `choice`: values produced outside become fixed
/// sources, uses outside become fixed sinks.
static Graph restrict(const Graph &graph, ArrayRef<int64_t> window,
                      ArrayRef<int64_t> choice) {
  Graph sub;
  llvm::DenseMap<int64_t, int64_t> nodeIndex, valueIndex;
  for (int64_t n : window)
    nodeIndex[n] = nodeIndex.size();
  auto valueOf = [&](int64_t v) {
    auto [it, inserted] = valueIndex.try_emplace(v, sub.values.size());
    if (!inserted)
      return it->second;
    const Graph::Value &value = graph.values[v];
    Graph::Value copy;
    copy.tensor = value.tensor;
    copy.sinks = value.sinks;
    if (auto p = nodeIndex.find(value.producer); p != nodeIndex.end()) {
      copy.producer = p->second;
      copy.producerResult = value.producerResult;
    } else {
      copy.source = placementOf(graph, v, choice);
    }
    for (auto [node, operand] : value.uses) {
      if (auto u = nodeIndex.find(node); u != nodeIndex.end())
        copy.uses.push_back({u->second, operand});
      else
        copy.sinks.push_back(
            graph.nodes[node].strategies[choice[node]].operands[operand]);
    }
    sub.values.push_back(std::move(copy));
    return it->second;
  };
  for (int64_t n : window) {
    Graph::Node node;
    node.strategies = graph.nodes[n].strategies;
    sub.nodes.push_back(std::move(node));
  }
  for (auto [k, n] : llvm::enumerate(window)) {
    for (int64_t v : graph.nodes[n].operands)
      sub.nodes[k].operands.push_back(valueOf(v));
    for (int64_t v : graph.nodes[n].results)
      sub.nodes[k].results.push_back(valueOf(v));
  }
  return sub;
}

/// Large-neighbourhood search: windows of consecutive nodes re-chosen
/// exactly with the rest fixed, until no window improves. A window changes
/// only its nodes' compute and the values they touch, so that is all it
/// prices. A window whose nodes and neighbours (the other producers and
/// users of the values it touches) kept their strategies since it was last
/// solved is skipped: its subproblem, and so its answer, are the same; so
/// is a narrower window inside one solved since (its exact answer covers
/// the narrower one's).
void detail::improveByWindows(Problem &p, SmallVector<int64_t> &choice,
                              ArrayRef<int64_t> widths) {
  const Graph &graph = p.graph;
  int64_t n = graph.nodes.size();
  double current = p.total(choice);
  auto localCost = [&](ArrayRef<int64_t> window, ArrayRef<int64_t> values) {
    double c = 0;
    for (int64_t v : values)
      c += p.valueCost(v, choice);
    for (int64_t node : window)
      c += p.compute(node, choice[node]);
    return c;
  };
  // When each node's strategy last changed, and when each window (by width
  // and start) was last solved, on one clock of accepted improvements.
  int64_t clock = 1;
  SmallVector<int64_t> changedAt(n, 0);
  llvm::DenseMap<std::pair<int64_t, int64_t>, int64_t> solvedAt;
  for (int sweep = 0; sweep < 8; ++sweep) {
    bool improved = false;
    for (int64_t width : widths) {
      for (int64_t start = 0; start < n; start += width / 2) {
        SmallVector<int64_t> window, values;
        for (int64_t k = start; k < std::min(n, start + width); ++k) {
          window.push_back(k);
          llvm::append_range(values, graph.nodes[k].operands);
          llvm::append_range(values, graph.nodes[k].results);
        }
        llvm::sort(values);
        values.erase(std::unique(values.begin(), values.end()), values.end());
        // By value: coverInner below inserts into the map.
        std::pair<int64_t, int64_t> key{width, start};
        int64_t solved = solvedAt.lookup(key);
        int64_t latest = 0;
        for (int64_t node : window)
          latest = std::max(latest, changedAt[node]);
        for (int64_t v : values) {
          const Graph::Value &value = graph.values[v];
          if (value.producer >= 0)
            latest = std::max(latest, changedAt[value.producer]);
          for (auto [user, operand] : value.uses)
            latest = std::max(latest, changedAt[user]);
        }
        if (solved && latest < solved)
          continue;
        solved = solvedAt[key] = clock;
        // The narrower windows inside this one cannot beat its exact
        // answer: their neighbours are its nodes and neighbours.
        auto coverInner = [&](int64_t at) {
          for (int64_t inner : widths) {
            if (inner >= width)
              continue;
            for (int64_t s = 0; s < n; s += inner / 2)
              if (s >= start && s + inner <= start + width)
                solvedAt[{inner, s}] = at;
          }
        };
        Graph sub = restrict(graph, window, choice);
        Problem subProblem(sub, p.options, &p.costs);
        SmallVector<int64_t> subChoice;
        double optimum = 0;
        if (!Eliminator(subProblem).run(subChoice, optimum))
          continue;
        coverInner(solved);
        double before = localCost(window, values);
        SmallVector<int64_t> kept;
        for (auto [k, node] : llvm::enumerate(window)) {
          kept.push_back(choice[node]);
          choice[node] = subChoice[k];
        }
        double after = localCost(window, values);
        if (after < before - 1e-9 * std::max(1.0, std::fabs(current))) {
          current += after - before;
          improved = true;
          for (auto [k, node] : llvm::enumerate(window))
            if (choice[node] != kept[k])
              changedAt[node] = clock;
          // This window's own answer is now its nodes' strategies.
          solved = solvedAt[key] = ++clock;
          coverInner(solved);
        } else {
          for (auto [k, node] : llvm::enumerate(window))
            choice[node] = kept[k];
        }
      }
    }
    if (!improved)
      return;
  }
}

/// Whether `s` and `t` agree on every mesh axis but `free`: the loop and
/// the placement of every operand and result there.
static bool agreesOffAxis(const Strategy &s, const Strategy &t, int64_t free) {
  auto same = [&](ArrayRef<Placements> a, ArrayRef<Placements> b) {
    for (auto [x, y] : llvm::zip(a, b))
      for (int64_t m = 0, e = x.size(); m < e; ++m)
        if (m != free && x[m] != y[m])
          return false;
    return true;
  };
  for (int64_t m = 0, e = s.loops.size(); m < e; ++m)
    if (m != free && s.loops[m] != t.loops[m])
      return false;
  return same(s.operands, t.operands) && same(s.results, t.results);
}

/// Large-neighbourhood search over the whole program, one mesh axis at a
/// time: every node keeps what it does on the other axes and re-chooses
/// the free one, exactly where the tables fit (a node has a few strategies
/// per axis, but their product per node is what overflows the tables on a
/// 2-D mesh). Axis after axis until none improves.
void detail::improveByAxes(Problem &p, SmallVector<int64_t> &choice) {
  const Graph &graph = p.graph;
  if (graph.nodes.empty() || graph.nodes.front().strategies.empty())
    return;
  int64_t rank = graph.nodes.front().strategies.front().loops.size();
  if (rank < 2)
    return;
  double current = p.total(choice);
  for (int round = 0; round < 4; ++round) {
    bool improved = false;
    for (int64_t free = 0; free < rank; ++free) {
      Graph sub = graph;
      SmallVector<SmallVector<int64_t>> original(graph.nodes.size());
      for (auto [n, node] : llvm::enumerate(graph.nodes)) {
        const Strategy &now = node.strategies[choice[n]];
        std::vector<Strategy> kept;
        for (auto [i, s] : llvm::enumerate(node.strategies))
          if (agreesOffAxis(s, now, free)) {
            kept.push_back(s);
            original[n].push_back(i);
          }
        sub.nodes[n].strategies = std::move(kept);
      }
      Problem subProblem(sub, p.options, &p.costs);
      SmallVector<int64_t> subChoice;
      double optimum = 0;
      if (!Eliminator(subProblem).run(subChoice, optimum)) {
        // Too wide for one table: wide windows instead, which the small
        // domains of one free axis let be exact.
        subChoice.clear();
        for (auto [n, idx] : llvm::enumerate(original))
          subChoice.push_back(llvm::find(idx, choice[n]) - idx.begin());
        improveByWindows(subProblem, subChoice, {128, 64});
      }
      SmallVector<int64_t> next;
      for (auto [n, k] : llvm::enumerate(subChoice))
        next.push_back(original[n][k]);
      double total = p.total(next);
      LLVM_DEBUG(llvm::dbgs() << "dtensor-propagate: axis " << free
                              << " re-chosen: " << total << "\n");
      if (total < current - 1e-9 * std::max(1.0, std::fabs(current))) {
        choice = std::move(next);
        current = total;
        improved = true;
      }
    }
    if (!improved)
      return;
  }
}
