//===- VariableElimination.cpp - the chooser's exact minimum --------------===//
//
// Exact minimisation of the chooser's objective by variable elimination
// over the nodes' strategy indices (and yes/no variables for values with
// many users), in min-size order, within a cap on each table and a budget
// on all of them together.
//
//===----------------------------------------------------------------------===//

#include "ChooserProblem.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "dtensor-propagate"

using namespace hp::dtensor::propagation;
using namespace hp::dtensor::propagation::detail;

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
