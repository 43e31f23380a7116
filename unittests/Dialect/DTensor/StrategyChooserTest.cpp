//===- StrategyChooserTest.cpp - the chooser vs brute force ---------------===//
//
// Random chooser graphs (no MLIR) in which some values are read by many
// nodes, the case the chooser prices through one yes/no variable per
// target placement instead of one table over every user. Each is solved
// with that pricing forced on every value and left to its default, and the
// cost of each choice (priced here: the planner's cost of every distinct
// move of every value plus flopBytes times the flops) is checked against
// the minimum over every assignment.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Utils/StrategyChooser.h"

#include "gtest/gtest.h"

#include <cmath>
#include <map>
#include <random>

using namespace hp::dtensor;
using namespace hp::dtensor::propagation;
using plan::Placement;

namespace {

/// The objective, written down again: per value, the planner's cost of each
/// distinct placement its users and sinks need that differs from its source.
double price(const Graph &graph, const std::vector<int> &choice,
             const Options &options, std::map<std::string, double> &planned) {
  double total = 0;
  for (const Graph::Value &value : graph.values) {
    Placements src = value.producer < 0
                         ? value.source
                         : graph.nodes[value.producer]
                               .strategies[choice[value.producer]]
                               .results[value.producerResult];
    std::map<std::string, Placements> targets;
    for (const Placements &sink : value.sinks)
      targets[plan::placementsToString(sink)] = sink;
    for (auto [node, operand] : value.uses) {
      const Placements &to =
          graph.nodes[node].strategies[choice[node]].operands[operand];
      targets[plan::placementsToString(to)] = to;
    }
    for (auto &[key, to] : targets) {
      if (to == src)
        continue;
      std::string id = plan::placementsToString(src) + key;
      auto [it, fresh] = planned.try_emplace(id, 0.0);
      if (fresh) {
        plan::Problem p = value.tensor;
        p.source = src;
        p.target = to;
        std::optional<plan::Plan> found =
            plan::planRedistribute(p, options.planner);
        it->second = found ? found->cost : INFINITY;
      }
      total += it->second;
    }
  }
  for (auto [n, node] : llvm::enumerate(graph.nodes))
    total += options.flopBytes * node.strategies[choice[n]].flops;
  return total;
}

/// Up to 6 nodes of 2 to 4 strategies on a 16x12 tensor and a mesh of 4:
/// each reads one or two earlier values, and a few arguments are read by
/// most nodes.
Graph randomGraph(std::mt19937 &rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  std::vector<Placements> kinds = {{Placement::replicate()},
                                   {Placement::shard(0)},
                                   {Placement::shard(1)},
                                   {Placement::partial(ReduceOp::Sum)}};
  Graph g;
  plan::Problem tensor;
  tensor.globalShape = {16, 12};
  tensor.meshShape = {4};
  int numArgs = 1 + pick(3);
  for (int a = 0; a < numArgs; ++a) {
    Graph::Value v;
    v.tensor = tensor;
    v.source = kinds[pick(3)];
    g.values.push_back(v);
  }
  int numNodes = 3 + pick(4);
  for (int n = 0; n < numNodes; ++n) {
    Graph::Node node;
    int numOperands = 1 + pick(2);
    for (int i = 0; i < numOperands; ++i) {
      // Arguments half the time: the wide fan-outs.
      int v = pick(2) ? pick(numArgs) : pick(g.values.size());
      node.operands.push_back(v);
      g.values[v].uses.push_back({n, i});
    }
    int numStrategies = 2 + pick(3);
    for (int s = 0; s < numStrategies; ++s) {
      Strategy st;
      for (int i = 0; i < numOperands; ++i)
        st.operands.push_back(kinds[pick(4)]);
      st.results.push_back(kinds[pick(4)]);
      st.flops = 1000 * pick(8);
      st.loops = {Strategy::kNoLoop};
      node.strategies.push_back(st);
    }
    Graph::Value result;
    result.tensor = tensor;
    result.producer = n;
    result.producerResult = 0;
    node.results.push_back(g.values.size());
    g.values.push_back(result);
    g.nodes.push_back(std::move(node));
  }
  g.values.back().sinks.push_back(kinds[pick(3)]);
  return g;
}

TEST(StrategyChooser, TargetVariablesKeepTheMinimum) {
  int64_t fanOuts = 0;
  for (unsigned seed = 0; seed < 60; ++seed) {
    std::mt19937 rng(seed);
    Graph g = randomGraph(rng);
    Options options;
    options.planner.latencyBytes = seed % 2 ? 65536 : 0;
    std::map<std::string, double> planned;
    std::vector<int> choice(g.nodes.size(), 0);
    double best = INFINITY;
    while (true) {
      best = std::min(best, price(g, choice, options, planned));
      size_t n = 0;
      while (n < choice.size() &&
             ++choice[n] == static_cast<int>(g.nodes[n].strategies.size()))
        choice[n++] = 0;
      if (n == choice.size())
        break;
    }
    for (const Graph::Value &v : g.values)
      fanOuts += v.uses.size() >= 3;
    for (int64_t direct : {int64_t(4096), int64_t(1)}) {
      options.maxDirectFactor = direct;
      Solution s = choose(g, options);
      std::vector<int> chosen(s.choice.begin(), s.choice.end());
      double hp = price(g, chosen, options, planned);
      SCOPED_TRACE("seed " + std::to_string(seed) + ", maxDirectFactor " +
                   std::to_string(direct));
      EXPECT_TRUE(s.exact) << s.method;
      EXPECT_LE(hp, best * (1 + 1e-9) + 1e-9);
      EXPECT_NEAR(s.cost, hp, 1e-6 * std::max(1.0, hp));
    }
  }
  // The generator must make values with several users, or the yes/no
  // pricing would be checked on nothing.
  EXPECT_GE(fanOuts, 40);
}

/// One argument read by 300 nodes in a chain (250 matmuls sharing a weight
/// took minutes with one table over every user): exact, and never above
/// greedy.
TEST(StrategyChooser, AValueReadByHundredsOfNodesIsExact) {
  std::mt19937 rng(7);
  std::vector<Placements> kinds = {{Placement::replicate()},
                                   {Placement::shard(0)},
                                   {Placement::shard(1)},
                                   {Placement::partial(ReduceOp::Sum)}};
  Graph g;
  plan::Problem tensor;
  tensor.globalShape = {16, 12};
  tensor.meshShape = {4};
  for (int a = 0; a < 2; ++a) {
    Graph::Value v;
    v.tensor = tensor;
    v.source = kinds[a + 1];
    g.values.push_back(v);
  }
  for (int n = 0; n < 300; ++n) {
    Graph::Node node;
    node.operands = {n == 0 ? 0 : static_cast<int64_t>(g.values.size() - 1), 1};
    for (auto [i, v] : llvm::enumerate(node.operands))
      g.values[v].uses.push_back({n, static_cast<int64_t>(i)});
    for (int s = 0; s < 4; ++s) {
      Strategy st;
      st.operands = {kinds[rng() % 4], kinds[rng() % 4]};
      st.results = {kinds[rng() % 4]};
      st.flops = 1000 * (rng() % 8);
      st.loops = {Strategy::kNoLoop};
      node.strategies.push_back(st);
    }
    Graph::Value result;
    result.tensor = tensor;
    result.producer = n;
    result.producerResult = 0;
    node.results.push_back(g.values.size());
    g.values.push_back(result);
    g.nodes.push_back(std::move(node));
  }
  g.values.back().sinks.push_back(kinds[1]);
  Solution s = choose(g, Options());
  EXPECT_TRUE(s.exact) << s.method;
  EXPECT_EQ(s.method, "variable elimination");
  EXPECT_LE(s.cost, s.greedyCost);
}

} // namespace
