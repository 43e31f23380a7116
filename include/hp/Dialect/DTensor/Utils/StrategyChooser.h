//===- StrategyChooser.h - placements for a whole program -------*- C++ -*-===//
//
// Chooses one strategy per op of a global program (docs/Propagation.md): the
// assignment that minimises the planner's cost of every redistribute plus
// `flopBytes` times each op's per-device flops. Free of MLIR IR types, like
// the planner it calls, so that the pass, the tests and the benchmark share
// it.
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_UTILS_STRATEGYCHOOSER_H
#define HP_DIALECT_DTENSOR_UTILS_STRATEGYCHOOSER_H

#include "hp/Dialect/DTensor/Utils/RedistributePlanner.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace hp::dtensor::propagation {

using Placements = llvm::SmallVector<plan::Placement, 4>;

/// One way to run an op: a placement list for each tensor operand and
/// result, and the flops one device performs under it.
struct Strategy {
  llvm::SmallVector<Placements, 4> operands;
  llvm::SmallVector<Placements, 4> results;
  double flops = 0;
  /// Per mesh axis, what the op does on it (for the pass's lowering and its
  /// printout): the loop sharded there, or kNoLoop.
  llvm::SmallVector<int64_t, 4> loops;
  static constexpr int64_t kNoLoop = -1;
};

/// A global program as the chooser sees it: ops (nodes) with their
/// strategies, and tensor values, each either fixed at a boundary (a region
/// argument, a constraint) or produced by a node, and used by nodes (as
/// operands) and by fixed sinks (results of the region, constraints).
struct Graph {
  struct Value {
    /// The value's global shape, element bytes and arithmetic; the source
    /// and target are filled in per redistribute.
    plan::Problem tensor;
    /// The producing node and its result index, or -1 for a fixed source.
    int64_t producer = -1;
    int64_t producerResult = -1;
    Placements source;
    /// (node, operand index) of every use by a node.
    llvm::SmallVector<std::pair<int64_t, int64_t>, 2> uses;
    /// Placements required by fixed consumers.
    llvm::SmallVector<Placements, 1> sinks;
    /// For a parameter: the cost of each byte a redistribute adds to a
    /// rank's piece (a gathered weight is held whole on every rank, every
    /// step), on top of the planner's cost (dtensor-propagate's
    /// param-memory-weight); 0 for anything else.
    double memoryWeight = 0;
    /// The mesh axes a parameter is split along only to be stored (FSDP:
    /// `dtensor.fsdp_axes`): its piece is weighed as if gathered along
    /// them, since every step gathers it there anyway.
    llvm::SmallVector<int64_t, 1> memoryFreeAxes;
  };
  struct Node {
    /// Value index of each tensor operand and result, in strategy order.
    llvm::SmallVector<int64_t, 4> operands;
    llvm::SmallVector<int64_t, 2> results;
    std::vector<Strategy> strategies;
  };
  std::vector<Value> values;
  std::vector<Node> nodes;
};

struct Options {
  plan::Options planner;
  /// Bytes of communication one flop is worth.
  double flopBytes = 4.5e-4;
  /// Largest table variable elimination may build before the chooser falls
  /// back to greedy plus local search; the tables it keeps at once (and the
  /// argmins it keeps to read the choice back) total at most
  /// kTablesPerCap times this many entries.
  int64_t maxTableSize = int64_t(1) << 22;
  static constexpr int64_t kTablesPerCap = 4;
  /// The largest maxTableSize the chooser takes: its tables then hold
  /// kTablesPerCap * 2^24 entries of 12 bytes (768 MiB).
  static constexpr int64_t kMaxTableSizeLimit = int64_t(1) << 24;
  /// A value whose redistributes would make a table over its producer and
  /// users larger than this is priced instead through one yes/no variable
  /// per placement its users may ask for (the same minimum, in tables of two
  /// nodes: a weight read by hundreds of ops stays cheap).
  int64_t maxDirectFactor = 4096;
};

/// Where a redistribute must stop on its way when one mesh dim changes the
/// reduction of a partial (which no plan does): `from` with those dims
/// replicated; nullopt when it can go straight.
std::optional<Placements> viaReplicate(const Placements &from,
                                       const Placements &to);

/// The cost of redistributing `value` from `from` to `to`: the planner's,
/// plus its memoryWeight times the bytes a rank's piece grows by (both
/// pieces taken gathered along its memoryFreeAxes).
double moveCost(const Graph::Value &value, class RedistributeCosts &costs,
                const Placements &from, const Placements &to);

/// The planner's cost of redistributes, cached by tensor and placements.
class RedistributeCosts {
public:
  explicit RedistributeCosts(const plan::Options &options) : options(options) {}
  /// The plan's cost, 0 when `from == to`, infinity when no plan exists.
  double get(const plan::Problem &tensor, const Placements &from,
             const Placements &to);
  /// The plan itself (nullopt when none exists).
  std::optional<plan::Plan> plan(const plan::Problem &tensor,
                                 const Placements &from, const Placements &to);

private:
  const plan::Options &options;
  llvm::StringMap<double> cache;
};

struct Solution {
  /// Strategy index per node.
  llvm::SmallVector<int64_t> choice;
  double cost = 0;
  double redistributeCost = 0;
  double computeCost = 0;
  /// A lower bound on the optimum; equal to cost when `exact`.
  double lowerBound = 0;
  /// The objective of torch's greedy choice (each op in program order takes
  /// its cheapest strategy given its inputs' placements).
  double greedyCost = 0;
  bool exact = false;
  /// Exact because the window search met the relaxation's lower bound.
  bool provenByBound = false;
  /// `variable elimination`, or `window search (tables over the cap)`.
  std::string method;
};

/// The objective of `choice`: every distinct redistribute of every value
/// (one per value and target placements that differ from its source) plus
/// flopBytes times each node's flops.
double evaluate(const Graph &graph, llvm::ArrayRef<int64_t> choice,
                RedistributeCosts &costs, const Options &options,
                double *redistribute = nullptr, double *compute = nullptr);

/// Torch's greedy choice.
llvm::SmallVector<int64_t> chooseGreedily(const Graph &graph,
                                          RedistributeCosts &costs,
                                          const Options &options);

/// The minimum of evaluate(): exact by variable elimination when its tables
/// stay under maxTableSize, otherwise the better of greedy and a local
/// search from it, with a lower bound. Never worse than greedy.
Solution choose(const Graph &graph, const Options &options);

} // namespace hp::dtensor::propagation

#endif // HP_DIALECT_DTENSOR_UTILS_STRATEGYCHOOSER_H
