//===- ChooseStrategies.cpp - a strategy for each op of a global region ---===//
//
// The first half of dtensor-propagate: each op of a global_region gets its
// strategies (StrategyOpInterface.h), the chooser picks one per op by cost
// (StrategyChooser.h) and the pass leaves the choice on the op as a
// dtensor.strategy. dtensor-apply-strategies rewrites by it. docs/
// Propagation.md has the rules.
//
//===----------------------------------------------------------------------===//

#include "PlacementGraph.h"

#include "hp/Dialect/DTensor/Planning/PlanAttrs.h"
#include "hp/Dialect/DTensor/Strategies/StrategyModels.h"
#include "hp/Dialect/DTensor/Transforms/Passes.h"
#include "hp/Support/DiagnosticFacts.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "dtensor-choose-strategies"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORCHOOSESTRATEGIES
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;
using namespace hp::dtensor::detail;
using propagation::Strategy;

namespace {

/// Chooses for the ops of one global_region and annotates them.
class RegionChooser {
public:
  RegionChooser(GlobalRegionOp region, const MeshInfo &mesh,
                const PlacementSettings &settings)
      : g(region, mesh, settings.paramMemoryWeight), settings(settings),
        costs(settings.chooser.planner) {}

  LogicalResult run();

private:
  /// The choice: the chooser's for the ops without an annotation, the
  /// annotation (narrowing the op to that strategy) for the others.
  FailureOr<propagation::Solution> solve(ArrayRef<int64_t> annotated);
  void printSummary(const propagation::Solution &solution);

  PlacementGraph g;
  const PlacementSettings &settings;
  propagation::RedistributeCosts costs;
  /// How many ops took their annotation, and whether every op did.
  int64_t numAnnotated = 0;
  bool allAnnotated = false;
};

FailureOr<propagation::Solution>
RegionChooser::solve(ArrayRef<int64_t> annotated) {
  int64_t numTaking = 0;
  for (auto [n, op] : llvm::enumerate(g.nodeOps))
    if (g.takesStrategy(op)) {
      ++numTaking;
      numAnnotated += annotated[n] >= 0;
    }
  allAnnotated = numAnnotated > 0 && numAnnotated == numTaking;
  propagation::Solution solution;
  if (allAnnotated) {
    // Nothing left to choose: the annotations' cost, beside greedy's.
    solution.choice.assign(annotated.begin(), annotated.end());
    for (int64_t &c : solution.choice)
      c = std::max<int64_t>(c, 0); // constrain, local_region: their one
    solution.cost = propagation::evaluate(
        g.graph, solution.choice, costs, settings.chooser,
        &solution.redistributeCost, &solution.computeCost);
    if (settings.printStrategies)
      solution.greedyCost = propagation::evaluate(
          g.graph,
          propagation::chooseGreedily(g.graph, costs, settings.chooser), costs,
          settings.chooser);
  } else {
    // An annotated op has only its annotation to choose from.
    for (auto [n, k] : llvm::enumerate(annotated))
      if (k >= 0) {
        std::vector<Strategy> &own = g.graph.nodes[n].strategies;
        Strategy kept = std::move(own[k]);
        own.assign(1, std::move(kept));
      }
    solution = propagation::choose(g.graph, settings.chooser);
  }
  // Defensive: the planner moves any placements into any other (a partial
  // of one kind into another through replicate), so the sum is finite; were
  // it not, say so here rather than as a missing plan in a later pass.
  if (!std::isfinite(solution.cost)) {
    g.region.emitOpError() << "the 'dtensor.strategy' annotations of its ops "
                              "ask for a redistribute the planner has no plan "
                              "for";
    return failure();
  }
  return solution;
}

void RegionChooser::printSummary(const propagation::Solution &solution) {
  auto diag = g.region.emitRemark()
              << "dtensor-choose-strategies: " << g.graph.nodes.size()
              << " ops";
  if (numAnnotated && !allAnnotated)
    diag << ", " << numAnnotated << " as annotated";
  diag << "; cost " << formatNumber("%.6g", solution.cost)
       << " = redistributes " << formatNumber("%.6g", solution.redistributeCost)
       << " + compute " << formatNumber("%.6g", solution.computeCost)
       << " (flop-bytes " << formatNumber("%g", settings.chooser.flopBytes)
       << "); ";
  if (allAnnotated)
    diag << "as annotated (dtensor.strategy)";
  else if (solution.provenByBound)
    diag << solution.method << ", optimal (meets the relaxation's lower bound)";
  else if (solution.exact)
    diag << solution.method << ", optimal";
  else
    diag << solution.method << ", lower bound "
         << formatNumber("%.6g", solution.lowerBound) << ", gap "
         << formatNumber("%.6g", solution.cost - solution.lowerBound);
  diag << "; greedy " << formatNumber("%.6g", solution.greedyCost);
}

LogicalResult RegionChooser::run() {
  if (failed(g.build()))
    return failure();
  if (g.unplaceable) {
    if (failed(g.checkNoAnnotations()))
      return failure();
    g.remarkUnplaceable();
    return success();
  }
  for (auto &[op, why] : g.fallbacks) {
    InFlightDiagnostic remark =
        op->emitRemark() << "runs replicated (" << why
                         << "): dtensor-propagate gives every operand and "
                            "result `replicate`";
    hp::setDiagnosticFacts(remark, {hp::diagnostic_kind::kRunsReplicated,
                                    op->getName().getStringRef(), ""});
  }
  FailureOr<SmallVector<int64_t>> annotated = g.readAnnotations();
  if (failed(annotated))
    return failure();
  FailureOr<propagation::Solution> solved = solve(*annotated);
  if (failed(solved))
    return failure();
  const propagation::Solution &solution = *solved;
  // -debug-only=dtensor-choose-strategies: the choice.
  LLVM_DEBUG({
    llvm::dbgs() << "[dtensor-choose-strategies] " << g.nodeOps.size()
                 << " ops, " << g.graph.values.size() << " values: cost "
                 << solution.cost << " (redistributes "
                 << solution.redistributeCost << ", compute "
                 << solution.computeCost << "), " << solution.method
                 << (solution.exact ? ", exact" : "") << "\n";
    for (auto [n, op] : llvm::enumerate(g.nodeOps)) {
      const Strategy &s = g.graph.nodes[n].strategies[solution.choice[n]];
      llvm::dbgs() << "  " << op->getName() << " strategy "
                   << solution.choice[n] << " of "
                   << g.graph.nodes[n].strategies.size() << ", loops [";
      llvm::interleaveComma(s.loops, llvm::dbgs());
      llvm::dbgs() << "]\n";
    }
  });
  StringAttr key =
      DTensorDialect::StrategyAttrHelper(g.region.getContext()).getName();
  for (auto [n, op] : llvm::enumerate(g.nodeOps)) {
    const Strategy &s = g.graph.nodes[n].strategies[solution.choice[n]];
    if (settings.printStrategies && !isa<ConstrainOp>(op))
      g.remarkStrategy(op, s);
    if (g.takesStrategy(op))
      op->setAttr(key, toStrategyAttr(op->getContext(), s));
  }
  if (settings.printStrategies)
    printSummary(solution);
  return success();
}

struct DTensorChooseStrategiesPass
    : hp::dtensor::impl::DTensorChooseStrategiesBase<
          DTensorChooseStrategiesPass> {
  using DTensorChooseStrategiesBase::DTensorChooseStrategiesBase;

  // The op rules: hp's models, wherever the pass runs (a tool need not
  // have registered them).
  void getDependentDialects(DialectRegistry &registry) const override {
    DTensorChooseStrategiesBase::getDependentDialects(registry);
    registerStrategyModels(registry);
  }

  void runOnOperation() override {
    PlacementSettings settings;
    settings.chooser.planner.latencyBytes = latencyBytes;
    settings.chooser.planner.axisWeights =
        llvm::to_vector_of<double, 4>(axisWeights);
    settings.chooser.flopBytes = flopBytes;
    settings.chooser.maxTableSize = maxTableSize;
    settings.printStrategies = printStrategies;
    settings.paramMemoryWeight = paramMemoryWeight;
    Operation *root = getOperation();
    if (failed(checkChooserSettings(root, getArgument(), settings)))
      return signalPassFailure();
    if (failed(forEachGlobalRegion(
            root, [&](GlobalRegionOp r, const MeshInfo &mesh) {
              return RegionChooser(r, mesh, settings).run();
            })))
      signalPassFailure();
  }
};

} // namespace
