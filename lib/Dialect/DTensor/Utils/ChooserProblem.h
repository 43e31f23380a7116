//===- ChooserProblem.h - the strategy chooser's model -------*- C++ -*-===//
//
// Private to the planner library: the objective the strategy chooser
// minimises over one program (Problem), its exact minimisation by variable
// elimination (Eliminator, VariableElimination.cpp) and the local searches
// used past the tables' cap (LocalSearch.cpp). StrategyChooser.cpp puts
// them together.
//
//===----------------------------------------------------------------------===//

#ifndef HP_LIB_DIALECT_DTENSOR_UTILS_CHOOSERPROBLEM_H
#define HP_LIB_DIALECT_DTENSOR_UTILS_CHOOSERPROBLEM_H

#include "hp/Dialect/DTensor/Utils/StrategyChooser.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace hp::dtensor::propagation::detail {

using llvm::ArrayRef;
using llvm::SmallVector;

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// Where value `v` is under `choice`: its fixed source or its producer's
/// result placements.
inline const Placements &placementOf(const Graph &graph, int64_t v,
                                     ArrayRef<int64_t> choice) {
  const Graph::Value &value = graph.values[v];
  if (value.producer < 0)
    return value.source;
  return graph.nodes[value.producer]
      .strategies[choice[value.producer]]
      .results[value.producerResult];
}

/// The sum of `cost(t)` over the distinct entries `t` of `targets` other
/// than `from` (a value moves once to each placement its users need).
template <typename T, typename F>
double sumOverDistinct(llvm::SmallVectorImpl<T> &targets, const T &from,
                       F cost) {
  double total = 0;
  for (size_t i = 0; i < targets.size(); ++i) {
    if (targets[i] == from ||
        llvm::any_of(ArrayRef(targets).take_front(i),
                     [&](const T &t) { return t == targets[i]; }))
      continue;
    total += cost(targets[i]);
  }
  return total;
}

/// A value's placements interned, so that factors compare small integers.
struct ValueModel {
  SmallVector<Placements, 8> placements;
  /// The source's placement index: fixed, or per producer strategy.
  int64_t fixedSource = -1;
  SmallVector<int64_t> fromProducer;
  /// Per use, per strategy of the using node: the placement index.
  SmallVector<SmallVector<int64_t>, 2> fromUse;
  SmallVector<int64_t, 1> sinks;
  /// Redistribute costs, filled lazily (NaN: not computed yet).
  std::vector<double> cost;

  int64_t intern(const Placements &p) {
    for (auto [i, q] : llvm::enumerate(placements))
      if (q == p)
        return i;
    placements.push_back(p);
    return placements.size() - 1;
  }
};

class Problem {
public:
  /// `shared` (when given) caches plans across problems on one program.
  Problem(const Graph &graph, const Options &options,
          RedistributeCosts *shared = nullptr)
      : graph(graph), options(options), ownCosts(options.planner),
        costs(shared ? *shared : ownCosts), models(graph.values.size()) {
    for (auto [v, value] : llvm::enumerate(graph.values)) {
      ValueModel &m = models[v];
      if (value.producer < 0) {
        m.fixedSource = m.intern(value.source);
      } else {
        for (const Strategy &s : graph.nodes[value.producer].strategies)
          m.fromProducer.push_back(m.intern(s.results[value.producerResult]));
      }
      for (auto [node, operand] : value.uses) {
        auto &map = m.fromUse.emplace_back();
        for (const Strategy &s : graph.nodes[node].strategies)
          map.push_back(m.intern(s.operands[operand]));
      }
      for (const Placements &sink : value.sinks)
        m.sinks.push_back(m.intern(sink));
      size_t n = m.placements.size();
      m.cost.assign(n * n, std::nan(""));
    }
  }

  double cost(int64_t v, int64_t from, int64_t to) {
    if (from == to)
      return 0;
    ValueModel &m = models[v];
    double &c = m.cost[from * m.placements.size() + to];
    if (std::isnan(c))
      c = moveCost(graph.values[v], costs, m.placements[from],
                   m.placements[to]);
    return c;
  }

  double compute(int64_t node, int64_t strategy) const {
    return options.flopBytes * graph.nodes[node].strategies[strategy].flops;
  }

  int64_t sourceOf(int64_t v, ArrayRef<int64_t> choice) const {
    const ValueModel &m = models[v];
    int64_t producer = graph.values[v].producer;
    return producer < 0 ? m.fixedSource : m.fromProducer[choice[producer]];
  }

  /// The redistributes of value `v` under `choice`. Linear in the uses (a
  /// weight read by a thousand ops is priced on every move of the search).
  double valueCost(int64_t v, ArrayRef<int64_t> choice) {
    const ValueModel &m = models[v];
    const Graph::Value &value = graph.values[v];
    int64_t src = sourceOf(v, choice);
    SmallVector<bool, 16> sent(m.placements.size(), false);
    sent[src] = true;
    double total = 0;
    auto send = [&](int64_t t) {
      if (!sent[t]) {
        sent[t] = true;
        total += cost(v, src, t);
      }
    };
    for (int64_t t : m.sinks)
      send(t);
    for (auto [u, use] : llvm::enumerate(value.uses))
      send(m.fromUse[u][choice[use.first]]);
    return total;
  }

  /// The objective of `choice` from the interned costs.
  double total(ArrayRef<int64_t> choice) {
    double c = 0;
    for (int64_t v = 0, e = graph.values.size(); v < e; ++v)
      c += valueCost(v, choice);
    for (int64_t n = 0, e = graph.nodes.size(); n < e; ++n)
      c += compute(n, choice[n]);
    return c;
  }

  /// The nodes whose strategies value `v`'s cost depends on, ascending.
  SmallVector<int64_t> scopeOf(int64_t v) const {
    SmallVector<int64_t> scope;
    const Graph::Value &value = graph.values[v];
    if (value.producer >= 0)
      scope.push_back(value.producer);
    for (auto [node, operand] : value.uses)
      scope.push_back(node);
    llvm::sort(scope);
    scope.erase(std::unique(scope.begin(), scope.end()), scope.end());
    return scope;
  }

  /// A lower bound on value `v`'s cost under any choice.
  double valueLowerBound(int64_t v) {
    const ValueModel &m = models[v];
    const Graph::Value &value = graph.values[v];
    auto boundFrom = [&](int64_t src) {
      SmallVector<int64_t> sinks(m.sinks.begin(), m.sinks.end());
      double total = sumOverDistinct(
          sinks, src, [&](int64_t t) { return cost(v, src, t); });
      // Each use adds at least its cheapest target beyond the sinks'; the
      // largest of these is paid at least once.
      double worstUse = 0;
      for (const auto &map : m.fromUse) {
        double best = kInf;
        for (int64_t t : map)
          best = std::min(best,
                          llvm::is_contained(sinks, t) ? 0.0 : cost(v, src, t));
        worstUse = std::max(worstUse, best);
      }
      return total + worstUse;
    };
    if (value.producer < 0)
      return boundFrom(m.fixedSource);
    double best = kInf;
    SmallVector<int64_t> sources(m.fromProducer.begin(), m.fromProducer.end());
    llvm::sort(sources);
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
    for (int64_t src : sources)
      best = std::min(best, boundFrom(src));
    return best;
  }

  const Graph &graph;
  const Options &options;
  RedistributeCosts ownCosts;
  RedistributeCosts &costs;
  std::vector<ValueModel> models;
};

/// A table over some variables' values, row-major in `vars` order. The
/// variables are the nodes (their strategy indices) and, after them, the
/// yes/no variables of values priced through their targets.
struct Factor {
  SmallVector<int64_t, 4> vars;
  std::vector<double> table;
  /// The table's entries (a dry run builds none).
  int64_t size = 0;
};

/// Exact minimisation by variable elimination; false if a table would pass
/// the cap or the tables held together the budget.
class Eliminator {
public:
  /// A `dryRun` takes the same steps on table sizes alone.
  explicit Eliminator(Problem &p, bool dryRun = false)
      : p(p), graph(p.graph), dryRun(dryRun),
        budget(Options::kTablesPerCap * p.options.maxTableSize) {
    for (const Graph::Node &n : graph.nodes)
      addVar(n.strategies.size());
  }

  bool run(SmallVector<int64_t> &choice, double &optimum);

private:
  bool eliminateAll();
  int64_t sizeOf(ArrayRef<int64_t> vars) const {
    int64_t size = 1;
    for (int64_t v : vars) {
      if (size > p.options.maxTableSize / domain[v])
        return p.options.maxTableSize + 1;
      size *= domain[v];
    }
    return size;
  }
  int64_t addVar(int64_t size) {
    domain.push_back(size);
    factorsOf.emplace_back();
    return domain.size() - 1;
  }
  void add(Factor f);
  bool build();
  void addThroughTargets(int64_t v);
  SmallVector<int64_t> scopeWithout(int64_t x) const;
  int64_t scopeSize(int64_t x);
  int64_t next(ArrayRef<bool> eliminated, int64_t &size);
  bool eliminate(int64_t x, int64_t size);

  struct Step {
    int64_t var;
    SmallVector<int64_t, 4> vars;
    std::vector<int32_t> argmin;
  };

  Problem &p;
  const Graph &graph;
  const bool dryRun;
  SmallVector<int64_t> domain;
  std::vector<Factor> factors;
  std::vector<bool> alive;
  /// Per variable, the factors (alive or not) that mention it.
  std::vector<SmallVector<int64_t, 4>> factorsOf;
  std::vector<Step> steps;
  /// Per variable, the size of the table its elimination would build now,
  /// or -1: only the elimination of a neighbour changes it.
  std::vector<int64_t> sizeCache;
  /// The variables before it are all eliminated.
  int64_t firstLeft = 0;
  /// scopeSize's marks: the variables it has counted this time.
  std::vector<int64_t> seen;
  int64_t seenStamp = 0;
  /// Factors before this one come from the program, not from elimination.
  int64_t numBuilt = 0;
  /// Entries of the tables and argmins elimination made that are held.
  int64_t held = 0;
  const int64_t budget;
};

/// One node at a time takes its best strategy given the others, until no
/// change helps.
void improveLocally(Problem &p, SmallVector<int64_t> &choice);
/// Windows of `widths` consecutive nodes re-chosen exactly with the rest
/// fixed, until no window improves.
void improveByWindows(Problem &p, SmallVector<int64_t> &choice,
                      ArrayRef<int64_t> widths = {16, 8});
/// On a mesh of two or more axes, the whole program re-chosen one mesh axis
/// at a time, axis after axis until none improves.
void improveByAxes(Problem &p, SmallVector<int64_t> &choice);

} // namespace hp::dtensor::propagation::detail

#endif // HP_LIB_DIALECT_DTENSOR_UTILS_CHOOSERPROBLEM_H
