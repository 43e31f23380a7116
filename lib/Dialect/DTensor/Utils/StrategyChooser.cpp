//===- StrategyChooser.cpp - placements for a whole program ---------------===//
//
// The objective is a sum of factors: one per node (its compute) and one per
// value (its redistributes, which depend on the strategies of its producer
// and of all its consumers, since a value sent to the same placements twice
// moves once). Variable elimination over the nodes' strategy indices finds
// the exact minimum; its tables stay small on chains and trees and on the
// narrow DAGs of layers (residuals, q/k/v), and a cap sends wider graphs to
// greedy plus local search with a lower bound. The model is in
// ChooserProblem.h, the elimination in VariableElimination.cpp, the searches
// in LocalSearch.cpp; this file prices moves and puts them together.
//
//===----------------------------------------------------------------------===//

#include "ChooserProblem.h"

#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "dtensor-propagate"

using namespace hp::dtensor;
using namespace hp::dtensor::propagation;
using namespace hp::dtensor::propagation::detail;
using llvm::ArrayRef;
using llvm::SmallVector;

static std::string keyOf(const plan::Problem &t, const Placements &from,
                         const Placements &to) {
  std::string s;
  llvm::raw_string_ostream os(s);
  for (int64_t d : t.globalShape)
    os << d << 'x';
  os << t.elementBytes << '/' << int(t.arithmetic) << '@';
  for (int64_t d : t.meshShape)
    os << d << 'x';
  os << plan::placementsToString(from) << plan::placementsToString(to);
  return s;
}

std::optional<plan::Plan> RedistributeCosts::plan(const plan::Problem &tensor,
                                                  const Placements &from,
                                                  const Placements &to) {
  plan::Problem p = tensor;
  p.source = from;
  p.target = to;
  return plan::planRedistribute(p, options);
}

double RedistributeCosts::get(const plan::Problem &tensor,
                              const Placements &from, const Placements &to) {
  if (from == to)
    return 0;
  auto [it, inserted] = cache.try_emplace(keyOf(tensor, from, to), 0.0);
  if (!inserted)
    return it->second;
  if (std::optional<Placements> stop = propagation::viaReplicate(from, to)) {
    double c = get(tensor, from, *stop) + get(tensor, *stop, to);
    return cache[keyOf(tensor, from, to)] = c; // `it` may have moved
  }
  std::optional<plan::Plan> p = plan(tensor, from, to);
  return it->second = p ? p->cost : kInf;
}

double propagation::moveCost(const Graph::Value &value,
                             RedistributeCosts &costs, const Placements &from,
                             const Placements &to) {
  double c = costs.get(value.tensor, from, to);
  if (value.memoryWeight <= 0 || from == to || !std::isfinite(c))
    return c;
  int64_t rank = value.tensor.globalShape.size();
  auto piece = [&](Placements p) {
    for (int64_t axis : value.memoryFreeAxes)
      p[axis] = plan::Placement::replicate();
    return plan::localBytes(value.tensor, plan::State::fromPlacements(p, rank));
  };
  double gain = piece(to) - piece(from);
  return gain > 0 ? c + value.memoryWeight * gain : c;
}

std::optional<Placements> propagation::viaReplicate(const Placements &from,
                                                    const Placements &to) {
  Placements stop = from;
  bool changed = false;
  for (auto [m, f] : llvm::enumerate(from))
    if (f.kind == plan::Placement::Partial &&
        to[m].kind == plan::Placement::Partial &&
        f.reduceOp != to[m].reduceOp) {
      stop[m] = plan::Placement::replicate();
      changed = true;
    }
  if (!changed)
    return std::nullopt;
  return stop;
}

/// A lower bound: the exact minimum of the objective without the uses that
/// reach furthest from their value's producer (which make the tables wide;
/// a value sent to fewer placements costs no more), and that minimum's
/// assignment. Uses are dropped in doubling batches until the tables fit.
static double relaxedBound(Problem &p, SmallVector<int64_t> &assignment) {
  const Graph &graph = p.graph;
  SmallVector<std::tuple<int64_t, int64_t, int64_t>> bySpan; // -span, v, use
  for (auto [v, value] : llvm::enumerate(graph.values)) {
    if (value.uses.empty())
      continue;
    int64_t from =
        value.producer >= 0 ? value.producer : value.uses.front().first;
    for (auto [u, use] : llvm::enumerate(value.uses))
      bySpan.push_back({-(use.first - from), v, u});
  }
  llvm::sort(bySpan);
  for (size_t k = 1;; k = std::min(2 * k, bySpan.size())) {
    Graph relaxed = graph;
    SmallVector<std::pair<int64_t, int64_t>> drop;
    for (size_t i = 0; i < k; ++i)
      drop.push_back({std::get<1>(bySpan[i]), std::get<2>(bySpan[i])});
    llvm::sort(drop, [](auto a, auto b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    for (auto [v, u] : drop)
      relaxed.values[v].uses.erase(relaxed.values[v].uses.begin() + u);
    Problem sub(relaxed, p.options, &p.costs);
    double optimum = 0;
    bool fits = Eliminator(sub).run(assignment, optimum);
    LLVM_DEBUG(llvm::dbgs() << "dtensor-propagate: relaxation without " << k
                            << " of " << bySpan.size() << " uses "
                            << (fits ? "fits" : "is over the cap") << "\n");
    if (fits)
      return optimum;
    if (k == bySpan.size())
      break;
  }
  assignment.clear();
  return 0;
}

double propagation::evaluate(const Graph &graph, ArrayRef<int64_t> choice,
                             RedistributeCosts &costs, const Options &options,
                             double *redistribute, double *compute) {
  double moved = 0, flops = 0;
  for (auto [v, value] : llvm::enumerate(graph.values)) {
    const Placements &src = placementOf(graph, v, choice);
    SmallVector<Placements, 4> targets(value.sinks.begin(), value.sinks.end());
    for (auto [node, operand] : value.uses)
      targets.push_back(
          graph.nodes[node].strategies[choice[node]].operands[operand]);
    moved += sumOverDistinct(targets, src, [&](const Placements &to) {
      return moveCost(value, costs, src, to);
    });
  }
  for (auto [n, node] : llvm::enumerate(graph.nodes))
    flops += node.strategies[choice[n]].flops;
  if (redistribute)
    *redistribute = moved;
  if (compute)
    *compute = options.flopBytes * flops;
  return moved + options.flopBytes * flops;
}

SmallVector<int64_t> propagation::chooseGreedily(const Graph &graph,
                                                 RedistributeCosts &costs,
                                                 const Options &options) {
  SmallVector<int64_t> choice(graph.nodes.size(), 0);
  // Nodes are in program order: every operand's producer comes first.
  for (auto [n, node] : llvm::enumerate(graph.nodes)) {
    double best = kInf;
    for (auto [s, strategy] : llvm::enumerate(node.strategies)) {
      double c = options.flopBytes * strategy.flops;
      for (auto [i, v] : llvm::enumerate(node.operands))
        c += moveCost(graph.values[v], costs, placementOf(graph, v, choice),
                      strategy.operands[i]);
      if (c < best) {
        best = c;
        choice[n] = s;
      }
    }
  }
  return choice;
}

Solution propagation::choose(const Graph &graph, const Options &options) {
  Problem p(graph, options);
  Solution solution;
  SmallVector<int64_t> greedy = chooseGreedily(graph, p.costs, options);
  solution.greedyCost = evaluate(graph, greedy, p.costs, options);

  SmallVector<int64_t> exact;
  double optimum = 0;
  if (Eliminator(p).run(exact, optimum)) {
    solution.choice = std::move(exact);
    solution.exact = true;
    solution.method = "variable elimination";
  } else {
    // Start from greedy and from the relaxation's assignment; keep the
    // better after local and window search.
    SmallVector<int64_t> relaxed;
    solution.lowerBound = relaxedBound(p, relaxed);
    LLVM_DEBUG(llvm::dbgs() << "dtensor-propagate: tables over the cap; "
                            << "relaxation's bound " << solution.lowerBound
                            << ", greedy " << solution.greedyCost << "\n");
    solution.choice = greedy;
    const char *start = "greedy";
    improveLocally(p, solution.choice);
    improveByWindows(p, solution.choice);
    improveByAxes(p, solution.choice);
    LLVM_DEBUG(llvm::dbgs() << "dtensor-propagate: search from greedy "
                            << p.total(solution.choice) << "\n");
    if (!relaxed.empty()) {
      improveLocally(p, relaxed);
      improveByWindows(p, relaxed);
      improveByAxes(p, relaxed);
      LLVM_DEBUG(llvm::dbgs() << "dtensor-propagate: search from the "
                              << "relaxation " << p.total(relaxed) << "\n");
      if (p.total(relaxed) < p.total(solution.choice)) {
        solution.choice = std::move(relaxed);
        start = "the relaxation";
      }
    }
    // A parameter's memory price makes each move that gathers one cost
    // more than it saves alone, so layouts that gather several (FSDP's
    // gathers with the activations split by tp, on the Llama layer's 2x2
    // step) are out of the searches' reach: a third start is the node and
    // per-axis search's result with memory free, searched again with it
    // priced (windows add time here and nothing measured).
    if (llvm::any_of(graph.values, [](const Graph::Value &v) {
          return v.memoryWeight > 0;
        })) {
      Graph free = graph;
      for (Graph::Value &v : free.values)
        v.memoryWeight = 0;
      Problem q(free, options, &p.costs);
      SmallVector<int64_t> seed = chooseGreedily(free, p.costs, options);
      improveLocally(q, seed);
      improveByAxes(q, seed);
      improveLocally(p, seed);
      improveByAxes(p, seed);
      LLVM_DEBUG(llvm::dbgs()
                 << "dtensor-propagate: search from the "
                 << "memory-free choice " << p.total(seed) << "\n");
      if (p.total(seed) < p.total(solution.choice)) {
        solution.choice = std::move(seed);
        start = "the memory-free choice";
      }
    }
    solution.method = "window search (tables over the cap) from ";
    solution.method += start;
  }
  solution.cost = evaluate(graph, solution.choice, p.costs, options,
                           &solution.redistributeCost, &solution.computeCost);
  // Never worse than greedy (rounding in the tables aside).
  if (solution.greedyCost < solution.cost) {
    solution.choice = greedy;
    if (!solution.exact)
      solution.method = "greedy (the window search ended above it)";
    solution.cost = evaluate(graph, greedy, p.costs, options,
                             &solution.redistributeCost, &solution.computeCost);
  }
  if (!solution.exact && solution.cost <= solution.lowerBound * (1 + 1e-9)) {
    // The relaxation's bound is met: optimal after all.
    solution.exact = true;
    solution.provenByBound = true;
  }
  if (solution.exact) {
    solution.lowerBound = solution.cost;
  } else {
    // Without a relaxation that fits, each factor's own minimum.
    if (solution.lowerBound == 0) {
      double bound = 0;
      for (auto [n, node] : llvm::enumerate(graph.nodes)) {
        double best = kInf;
        for (int64_t s = 0, e = node.strategies.size(); s < e; ++s)
          best = std::min(best, p.compute(n, s));
        bound += best;
      }
      for (int64_t v = 0, e = graph.values.size(); v < e; ++v)
        bound += p.valueLowerBound(v);
      solution.lowerBound = bound;
    }
    solution.lowerBound = std::min(solution.lowerBound, solution.cost);
  }
  return solution;
}
