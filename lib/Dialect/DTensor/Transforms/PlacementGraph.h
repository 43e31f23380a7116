//===- PlacementGraph.h - a global region as the chooser's graph -*- C++
//-*-===//
//
// What dtensor-choose-strategies and dtensor-apply-strategies share: a
// global_region's ops and values as the chooser's graph (each op with the
// strategies its rule gives), the one rule both follow for dtensor.strategy
// annotations already in the IR, and the checks of the options they share.
// Private to the two passes.
//
//===----------------------------------------------------------------------===//

#ifndef HP_LIB_DIALECT_DTENSOR_TRANSFORMS_PLACEMENTGRAPH_H
#define HP_LIB_DIALECT_DTENSOR_TRANSFORMS_PLACEMENTGRAPH_H

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Utils/StrategyChooser.h"

#include "llvm/ADT/DenseMap.h"

namespace hp::dtensor::detail {

/// The passes' options, as the chooser and the lowering read them.
struct PlacementSettings {
  propagation::Options chooser;
  bool printStrategies = false;
  double paramMemoryWeight = 0;
  uint64_t warnGatherBytes = 0;
  bool warnGatherNamedArgs = false;
};

/// Checks the planner's options (latency-bytes, axis-weights); errors are
/// located at `root` and name `pass`.
mlir::LogicalResult checkPlannerSettings(mlir::Operation *root,
                                         llvm::StringRef pass,
                                         const PlacementSettings &settings);

/// Checks the chooser's options (the planner's too) and every
/// `dtensor.fsdp_axes` under `root`, which by now must sit on a DTensor.
mlir::LogicalResult checkChooserSettings(mlir::Operation *root,
                                         llvm::StringRef pass,
                                         const PlacementSettings &settings);

/// Runs `fn` on every global_region under `root` with its mesh, in order;
/// stops at the first failure (or a mesh that does not resolve, which the
/// lookup reports).
mlir::LogicalResult forEachGlobalRegion(
    mlir::Operation *root,
    llvm::function_ref<mlir::LogicalResult(GlobalRegionOp, const MeshInfo &)>
        fn);

/// The annotations rule, one for both passes: a `dtensor.strategy` on an op
/// is a decision. Each is checked against the op's own strategies (an
/// annotation that is not one of them, or one on an op that takes none, is
/// an error) and then kept: dtensor-choose-strategies chooses only for the
/// ops without one, dtensor-apply-strategies rewrites by them all.
class PlacementGraph {
public:
  PlacementGraph(GlobalRegionOp region, const MeshInfo &mesh,
                 double paramMemoryWeight = 0);

  /// Builds the graph. Fails, with an error, on a body neither pass
  /// supports; succeeds with `unplaceable` set when a value of the body
  /// cannot be a DTensor (the region then runs replicated as a whole).
  mlir::LogicalResult build();

  /// Whether `op` (of the body) takes a strategy that the passes read or
  /// write: the ops the chooser places, not those with declared layouts
  /// (constrain, local_region).
  bool takesStrategy(mlir::Operation *op) const {
    return nodeOf.contains(op) && !mlir::isa<ConstrainOp, LocalRegionOp>(op);
  }

  /// Per node, the index into its strategies of its op's annotation, or -1
  /// where it has none; fails, with an error, as the rule above says.
  mlir::FailureOr<llvm::SmallVector<int64_t>> readAnnotations();

  /// Errors at the first annotation of a region that runs replicated as a
  /// whole (`unplaceable` set), which no op of it can follow.
  mlir::LogicalResult checkNoAnnotations();

  /// The remark saying why the region runs replicated as a whole.
  void remarkUnplaceable();

  /// The function argument `v` (a body value) holds every element of,
  /// through transposes, reshapes and casts, when it is named (a
  /// `dtensor.arg_name`: a parameter); else null.
  mlir::Value namedArgument(mlir::Value v);

  /// The remark `print-strategies` gives op `op` running under `s`.
  void remarkStrategy(mlir::Operation *op, const propagation::Strategy &s);

  GlobalRegionOp region;
  MeshInfo mesh;
  propagation::Graph graph;
  llvm::SmallVector<mlir::Operation *> nodeOps;
  llvm::DenseMap<mlir::Operation *, int64_t> nodeOf;
  /// The first body value no DTensor can hold, once build() found one.
  mlir::Value unplaceable;
  /// The ops no rule places (they run replicated), and why.
  llvm::SmallVector<std::pair<mlir::Operation *, std::string>> fallbacks;

private:
  int64_t addValue(mlir::Value v, propagation::Placements source,
                   int64_t producer = -1, int64_t producerResult = -1);
  int64_t addNode(mlir::Operation *op,
                  std::vector<propagation::Strategy> strategies);
  mlir::LogicalResult checkSupported();

  double paramMemoryWeight;
  llvm::DenseMap<mlir::Value, int64_t> valueIndex;
  mlir::StringAttr strategyKey;
};

/// The `dtensor.arg_name` of `v` when it is a named argument of a function
/// (hp.torch names parameters and buffers so), else null.
mlir::StringAttr argumentName(mlir::Value v);

/// Whether a value of `type` can cross between ops: anything but a tensor
/// the dialect cannot place (isPlaceableTensorType, the rule
/// dtensor-globalize follows too).
bool isPlaceable(mlir::Type type);

/// `v` printed with printf format `f` (diagnostics take no format objects).
std::string formatNumber(const char *f, double v);

} // namespace hp::dtensor::detail

#endif // HP_LIB_DIALECT_DTENSOR_TRANSFORMS_PLACEMENTGRAPH_H
