//===- Propagate.cpp - choose strategies, then apply them -----------------===//
//
// dtensor-propagate is the two passes in a row: dtensor-choose-strategies
// leaves a dtensor.strategy on each op of a global_region, and
// dtensor-apply-strategies rewrites the region by them. One pass with both
// passes' options, so that a pipeline (hp-partition, hp.torch) names one
// step and checks every option before either half runs.
//
//===----------------------------------------------------------------------===//

#include "PlacementGraph.h"

#include "hp/Dialect/DTensor/Strategies/StrategyModels.h"
#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SetVector.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORPROPAGATE
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;
using namespace hp::dtensor::detail;

namespace {

struct DTensorPropagatePass
    : hp::dtensor::impl::DTensorPropagateBase<DTensorPropagatePass> {
  using DTensorPropagateBase::DTensorPropagateBase;

  // The op rules: hp's models, wherever the pass runs (a tool need not
  // have registered them).
  void getDependentDialects(DialectRegistry &registry) const override {
    DTensorPropagateBase::getDependentDialects(registry);
    registerStrategyModels(registry);
  }

  void runOnOperation() override {
    PlacementSettings settings;
    settings.chooser.planner.latencyBytes = latencyBytes;
    settings.chooser.planner.axisWeights =
        llvm::to_vector_of<double, 4>(axisWeights);
    settings.chooser.flopBytes = flopBytes;
    settings.chooser.maxTableSize = maxTableSize;
    settings.paramMemoryWeight = paramMemoryWeight;
    // Checked here, so that errors name the pass the user ran.
    if (failed(checkChooserSettings(getOperation(), getArgument(), settings)))
      return signalPassFailure();

    DTensorChooseStrategiesOptions choose;
    choose.latencyBytes = latencyBytes;
    choose.axisWeights.assign(axisWeights.begin(), axisWeights.end());
    choose.flopBytes = flopBytes;
    choose.printStrategies = printStrategies;
    choose.maxTableSize = maxTableSize;
    choose.paramMemoryWeight = paramMemoryWeight;
    DTensorApplyStrategiesOptions apply;
    apply.latencyBytes = latencyBytes;
    apply.axisWeights.assign(axisWeights.begin(), axisWeights.end());
    apply.printStrategies = printStrategies;
    apply.warnGatherBytes = warnGatherBytes;
    apply.warnGatherNamedArgs = warnGatherNamedArgs;
    // Op-agnostic: it runs on each function that holds a region.
    OpPassManager pipeline;
    pipeline.addPass(createDTensorChooseStrategies(choose));
    pipeline.addPass(createDTensorApplyStrategies(apply));
    // Both halves one function at a time, so that its remarks (strategies,
    // then redistributes) stay together, as a user reads them.
    Operation *root = getOperation();
    llvm::SetVector<Operation *> scopes;
    root->walk([&](GlobalRegionOp r) {
      Operation *scope = r->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
      scopes.insert(scope && root->isAncestor(scope) ? scope : root);
    });
    // A scope inside another runs with it.
    for (Operation *scope : scopes) {
      bool nested = llvm::any_of(scopes, [&](Operation *other) {
        return other != scope && other->isProperAncestor(scope);
      });
      if (!nested && failed(runPipeline(pipeline, scope)))
        return signalPassFailure();
    }
  }
};

} // namespace
