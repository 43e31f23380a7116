//===- StrategyChooser.cpp - placements for a whole program ---------------===//
//
// The objective is a sum of factors: one per node (its compute) and one per
// value (its redistributes, which depend on the strategies of its producer
// and of all its consumers, since a value sent to the same placements twice
// moves once). Variable elimination over the nodes' strategy indices finds
// the exact minimum; its tables stay small on chains and trees and on the
// narrow DAGs of layers (residuals, q/k/v), and a cap sends wider graphs to
// greedy plus local search with a lower bound.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Utils/StrategyChooser.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>

#define DEBUG_TYPE "dtensor-propagate"

using namespace hp::dtensor;
using namespace hp::dtensor::propagation;
using llvm::ArrayRef;
using llvm::SmallVector;

static constexpr double kInf = std::numeric_limits<double>::infinity();

/// Where value `v` is under `choice`: its fixed source or its producer's
/// result placements.
static const Placements &placementOf(const Graph &graph, int64_t v,
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
static double sumOverDistinct(llvm::SmallVectorImpl<T> &targets, const T &from,
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

std::optional<plan::Plan>
RedistributeCosts::plan(const plan::Problem &tensor, const Placements &from,
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
  double gain =
      plan::localBytes(value.tensor, plan::State::fromPlacements(to, rank)) -
      plan::localBytes(value.tensor, plan::State::fromPlacements(from, rank));
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

namespace {

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
          best = std::min(best, llvm::is_contained(sinks, t)
                                    ? 0.0
                                    : cost(v, src, t));
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

void Eliminator::add(Factor f) {
  if (!f.table.empty())
    f.size = f.table.size();
  for (int64_t v : f.vars)
    factorsOf[v].push_back(factors.size());
  factors.push_back(std::move(f));
  alive.push_back(true);
}

/// Value `v`'s redistributes without one table over all its users: the
/// sinks' moves priced on the producer, and for each other placement `t` a
/// user may ask for, a yes/no variable "sent to t" that costs the move when
/// yes and that every use asking for `t` needs to be yes. Moves cost at
/// least 0, so the minimum over these variables is the value's cost: the
/// same objective, in tables of at most two variables.
void Eliminator::addThroughTargets(int64_t v) {
  const ValueModel &m = p.models[v];
  const Graph::Value &value = graph.values[v];
  int64_t k = m.placements.size();
  SmallVector<bool, 16> isSink(k, false);
  for (int64_t t : m.sinks)
    isSink[t] = true;
  // A factor of the producer (or a constant): `cell(source)` per strategy.
  auto bySource = [&](auto cell) {
    Factor f;
    if (value.producer < 0) {
      f.table.push_back(cell(m.fixedSource));
      return f;
    }
    f.vars = {value.producer};
    for (int64_t src : m.fromProducer)
      f.table.push_back(cell(src));
    return f;
  };
  add(bySource([&](int64_t src) {
    double c = 0;
    for (int64_t t = 0; t < k; ++t)
      if (isSink[t])
        c += p.cost(v, src, t);
    return c;
  }));
  SmallVector<int64_t, 16> sentTo(k, -1);
  for (const auto &map : m.fromUse) {
    for (int64_t t : map) {
      if (isSink[t] || sentTo[t] >= 0 ||
          (value.producer < 0 && t == m.fixedSource))
        continue;
      sentTo[t] = addVar(2);
      Factor f = bySource([&](int64_t src) { return p.cost(v, src, t); });
      std::vector<double> rows; // per source: not sent 0, sent the move
      for (double c : f.table)
        rows.insert(rows.end(), {0.0, c});
      f.table = std::move(rows);
      f.vars.push_back(sentTo[t]);
      add(std::move(f));
    }
  }
  for (auto [u, use] : llvm::enumerate(value.uses)) {
    const auto &map = m.fromUse[u];
    SmallVector<int64_t, 8> asked(map.begin(), map.end());
    llvm::sort(asked);
    asked.erase(std::unique(asked.begin(), asked.end()), asked.end());
    for (int64_t t : asked) {
      if (sentTo[t] < 0)
        continue;
      Factor f;
      f.vars = {use.first, sentTo[t]};
      for (int64_t target : map)
        f.table.insert(f.table.end(), {target == t ? kInf : 0.0, 0.0});
      add(std::move(f));
    }
  }
}

bool Eliminator::build() {
  for (auto [n, node] : llvm::enumerate(graph.nodes)) {
    Factor f;
    f.vars = {static_cast<int64_t>(n)};
    for (int64_t s = 0, e = node.strategies.size(); s < e; ++s)
      f.table.push_back(p.compute(n, s));
    add(std::move(f));
  }
  SmallVector<int64_t> choice(graph.nodes.size(), 0);
  for (int64_t v = 0, e = graph.values.size(); v < e; ++v) {
    Factor f;
    f.vars = llvm::to_vector_of<int64_t, 4>(p.scopeOf(v));
    int64_t size = sizeOf(f.vars);
    // A table that would not fit takes the exact yes/no route too.
    if (size > std::min(p.options.maxDirectFactor, p.options.maxTableSize)) {
      addThroughTargets(v);
      continue;
    }
    if (dryRun) {
      f.size = size;
      add(std::move(f));
      continue;
    }
    f.table.resize(size);
    // Odometer over the scope, last var fastest.
    for (int64_t x : f.vars)
      choice[x] = 0;
    for (int64_t i = 0; i < size; ++i) {
      f.table[i] = p.valueCost(v, choice);
      for (int64_t k = f.vars.size() - 1; k >= 0; --k) {
        if (++choice[f.vars[k]] < domain[f.vars[k]])
          break;
        choice[f.vars[k]] = 0;
      }
    }
    add(std::move(f));
  }
  return true;
}

SmallVector<int64_t> Eliminator::scopeWithout(int64_t x) const {
  SmallVector<int64_t> vars;
  for (int64_t f : factorsOf[x])
    if (alive[f])
      for (int64_t v : factors[f].vars)
        if (v != x)
          vars.push_back(v);
  llvm::sort(vars);
  vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
  return vars;
}

/// sizeOf(scopeWithout(x)), stopping at the cap: a variable with thousands
/// of factors (a value's "sent" variable) is sized in a few of them.
int64_t Eliminator::scopeSize(int64_t x) {
  if (seen.size() < domain.size())
    seen.resize(domain.size(), 0);
  ++seenStamp;
  seen[x] = seenStamp;
  int64_t size = 1, cap = p.options.maxTableSize;
  for (int64_t f : factorsOf[x]) {
    if (!alive[f])
      continue;
    for (int64_t v : factors[f].vars) {
      if (seen[v] == seenStamp)
        continue;
      seen[v] = seenStamp;
      if (size > cap / domain[v])
        return cap + 1;
      size *= domain[v];
    }
  }
  return size;
}

/// Min-size order: the variable whose elimination builds the smallest table
/// (ties: the lowest index, so chains go front to back; the first variable
/// that cannot do better than a leaf is taken at once). Sizes are cached, so
/// a round costs a scan, not a scope per variable.
int64_t Eliminator::next(ArrayRef<bool> eliminated, int64_t &best) {
  while (firstLeft < static_cast<int64_t>(domain.size()) &&
         eliminated[firstLeft])
    ++firstLeft;
  int64_t x = -1;
  best = std::numeric_limits<int64_t>::max();
  for (int64_t v = firstLeft, e = domain.size(); v < e; ++v) {
    if (eliminated[v])
      continue;
    if (sizeCache[v] < 0)
      sizeCache[v] = scopeSize(v);
    if (sizeCache[v] < best) {
      best = sizeCache[v];
      x = v;
      if (best <= domain[v])
        break;
    }
  }
  return x;
}

/// Sums the factors that mention `x` and minimises `x` out: one new table
/// over its neighbours, and the argmin to read `x` back.
bool Eliminator::eliminate(int64_t x, int64_t best) {
  SmallVector<int64_t> vars = scopeWithout(x);
  SmallVector<int64_t> used;
  for (int64_t f : factorsOf[x])
    if (alive[f])
      used.push_back(f);
  if (held + 2 * best > budget)
    return false;
  auto retire = [&](Factor out) {
    for (int64_t f : used) {
      alive[f] = false;
      if (f >= numBuilt)
        held -= factors[f].size;
      std::vector<double>().swap(factors[f].table);
    }
    held += 2 * best;
    for (int64_t v : out.vars)
      sizeCache[v] = -1;
    add(std::move(out));
  };
  if (dryRun) {
    Factor out;
    out.vars = llvm::to_vector_of<int64_t, 4>(vars);
    out.size = best;
    retire(std::move(out));
    return true;
  }
  // Per used factor: the stride of each new var (0 if absent) and of x.
  int64_t k = vars.size();
  SmallVector<SmallVector<int64_t, 4>> strides(used.size());
  SmallVector<int64_t> xStride(used.size());
  for (auto [i, f] : llvm::enumerate(used)) {
    const Factor &factor = factors[f];
    strides[i].assign(k, 0);
    int64_t stride = 1;
    for (int64_t j = factor.vars.size() - 1; j >= 0; --j) {
      int64_t var = factor.vars[j];
      if (var == x)
        xStride[i] = stride;
      else
        strides[i][llvm::find(vars, var) - vars.begin()] = stride;
      stride *= domain[var];
    }
  }
  Factor out;
  out.vars = llvm::to_vector_of<int64_t, 4>(vars);
  out.table.assign(best, kInf);
  Step step{x, out.vars, std::vector<int32_t>(best, 0)};
  // The hot loop of the whole pass: each used table's offset follows the
  // odometer of the new table's digits instead of being recomputed, and
  // the sums over x are built one table at a time.
  SmallVector<int64_t> digits(k, 0);
  SmallVector<int64_t> base(used.size(), 0);
  SmallVector<const double *> tables;
  for (int64_t f : used)
    tables.push_back(factors[f].table.data());
  int64_t xs = domain[x];
  std::vector<double> sums(xs);
  for (int64_t idx = 0; idx < best; ++idx) {
    std::fill(sums.begin(), sums.end(), 0.0);
    for (auto [i, table] : llvm::enumerate(tables)) {
      const double *at = table + base[i];
      int64_t stride = xStride[i];
      for (int64_t s = 0; s < xs; ++s)
        sums[s] += at[stride * s];
    }
    for (int64_t s = 0; s < xs; ++s)
      if (sums[s] < out.table[idx]) {
        out.table[idx] = sums[s];
        step.argmin[idx] = s;
      }
    for (int64_t j = k - 1; j >= 0; --j) {
      if (++digits[j] < domain[vars[j]]) {
        for (auto [i, b] : llvm::enumerate(base))
          b += strides[i][j];
        break;
      }
      for (auto [i, b] : llvm::enumerate(base))
        b -= strides[i][j] * (domain[vars[j]] - 1);
      digits[j] = 0;
    }
  }
  // The used tables are done with: free them, so that memory follows the
  // tables alive, not every table ever built.
  retire(std::move(out));
  steps.push_back(std::move(step));
  return true;
}

bool Eliminator::eliminateAll() {
  if (!build())
    return false;
  numBuilt = factors.size();
  int64_t n = domain.size();
  sizeCache.assign(n, -1);
  SmallVector<bool> eliminated(n, false);
  for (int64_t round = 0; round < n; ++round) {
    int64_t best = 0;
    int64_t x = next(eliminated, best);
    if (best > p.options.maxTableSize ||
        best > 4 * (p.options.maxTableSize / domain[x] + 1))
      return false;
    if (!eliminate(x, best))
      return false;
    eliminated[x] = true;
  }
  return true;
}

bool Eliminator::run(SmallVector<int64_t> &choice, double &optimum) {
  // Sizes first: a run that gives up at a cap would have paid for every
  // table before it (the relaxation tries several such runs).
  if (!dryRun && !Eliminator(p, /*dryRun=*/true).eliminateAll())
    return false;
  if (!eliminateAll())
    return false;
  int64_t n = domain.size();
  optimum = 0;
  for (auto [f, factor] : llvm::enumerate(factors))
    if (alive[f])
      optimum += factor.table.front(); // empty scope: one entry
  SmallVector<int64_t> value(n, 0);
  for (const Step &step : llvm::reverse(steps)) {
    int64_t idx = 0;
    for (int64_t v : step.vars)
      idx = idx * domain[v] + value[v];
    value[step.var] = step.argmin[idx];
  }
  choice.assign(value.begin(), value.begin() + graph.nodes.size());
  LLVM_DEBUG(llvm::dbgs() << "dtensor-propagate: eliminated " << n
                          << " variables (" << n - graph.nodes.size()
                          << " yes/no), " << held / 2
                          << " table entries built\n");
  return true;
}

/// One node at a time takes its best strategy given the others, until no
/// change helps.
void improveLocally(Problem &p, SmallVector<int64_t> &choice) {
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
Graph restrict(const Graph &graph, ArrayRef<int64_t> window,
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
/// prices.
void improveByWindows(Problem &p, SmallVector<int64_t> &choice,
                      ArrayRef<int64_t> widths = {16, 8}) {
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
        Graph sub = restrict(graph, window, choice);
        Problem subProblem(sub, p.options, &p.costs);
        SmallVector<int64_t> subChoice;
        double optimum = 0;
        if (!Eliminator(subProblem).run(subChoice, optimum))
          continue;
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
bool agreesOffAxis(const Strategy &s, const Strategy &t, int64_t free) {
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
void improveByAxes(Problem &p, SmallVector<int64_t> &choice) {
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

/// A lower bound: the exact minimum of the objective without the uses that
/// reach furthest from their value's producer (which make the tables wide;
/// a value sent to fewer placements costs no more), and that minimum's
/// assignment. Uses are dropped in doubling batches until the tables fit.
double relaxedBound(Problem &p, SmallVector<int64_t> &assignment) {
  const Graph &graph = p.graph;
  SmallVector<std::tuple<int64_t, int64_t, int64_t>> bySpan; // -span, v, use
  for (auto [v, value] : llvm::enumerate(graph.values)) {
    if (value.uses.empty())
      continue;
    int64_t from = value.producer >= 0 ? value.producer
                                       : value.uses.front().first;
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

} // namespace

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
      if (p.total(relaxed) < p.total(solution.choice))
        solution.choice = std::move(relaxed);
    }
    solution.method = "window search (tables over the cap)";
  }
  solution.cost = evaluate(graph, solution.choice, p.costs, options,
                           &solution.redistributeCost, &solution.computeCost);
  // Never worse than greedy (rounding in the tables aside).
  if (solution.greedyCost < solution.cost) {
    solution.choice = greedy;
    solution.cost = evaluate(graph, greedy, p.costs, options,
                             &solution.redistributeCost,
                             &solution.computeCost);
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
