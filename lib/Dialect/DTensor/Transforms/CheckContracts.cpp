//===- CheckContracts.cpp - replicate claims checked against the body -----===//
//
// A local region's out_placements are a claim about the body. A `replicate`
// over an axis the yielded value varies over would be wrapped as if every
// rank held the same data, and compute wrong numbers downstream. This pass
// refuses such a claim, says where the variation comes from and what to
// declare instead (see docs/DTensorDialect.md, "Contracts are checked").
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Analysis/Variance.h"
#include "hp/Dialect/DTensor/Transforms/Passes.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORCHECKCONTRACTS
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;

namespace {

std::string quoted(StringRef s) { return ("'" + s + "'").str(); }

/// Checks one region; emits an error and fails on a false replicate claim.
LogicalResult checkRegion(LocalRegionOp op, SymbolTableCollection &symbols) {
  if (op.getUnchecked() || !op.wrapsOutputs())
    return success();
  MeshInfo mesh = getMeshInfo(
      symbols.lookupNearestSymbolFrom(op, op.getMeshAttr().getAttr()));
  if (!mesh || mesh.getRank() > 64)
    return success(); // The verifier reports a missing mesh.

  // Block arguments: the layout the body sees (the declared one under
  // redistribute_inputs, else the operand's own).
  Block &body = op.getBodyBlock();
  SmallVector<uint64_t> axes;
  SmallVector<SmallVector<uint64_t, 4>> dims;
  SmallVector<std::string> layouts;
  for (auto [i, arg] : llvm::enumerate(op.getArgs())) {
    auto type = dyn_cast<DTensorType>(arg.getType());
    if (!type) {
      axes.push_back(0);
      dims.push_back({});
      layouts.push_back("");
      continue;
    }
    if (ArrayAttr declared = op.getDeclaredInPlacements(i))
      type = type.withPlacements(declared);
    axes.push_back(layoutVarianceBits(type, mesh.getShape()));
    dims.push_back(layoutDimAxes(type));
    layouts.push_back(placementListToString(type.getPlacements()));
  }
  VarianceAnalysis analysis(body, mesh, op.getMeshAttr(), axes, dims);

  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [i, yielded] : llvm::enumerate(yield.getValues())) {
    ArrayAttr placements = op.getOutPlacementsFor(i);
    if (!placements || isa<DTensorType>(yielded.getType()))
      continue;
    const Variance &v = analysis.get(yielded);
    for (auto [a, p] : llvm::enumerate(placements)) {
      if (!isa<ReplicateAttr>(p) || !v.varies(a) || mesh.shape[a] == 1)
        continue;
      std::string axis = quoted(mesh.names[a]);
      InFlightDiagnostic diag = op.emitOpError()
                                << "out_placements declare result #" << i
                                << " replicate over mesh axis " << axis
                                << ", but the yielded value varies over "
                                << axis << ": ";
      const VarianceOrigin &origin = v.origins[a];
      if (origin.argument >= 0) {
        diag << "it depends on argument "
             << quoted(cast<StringAttr>(op.getArgNames()[origin.argument])
                           .getValue())
             << " (" << layouts[origin.argument] << ")";
      } else if (origin.op) {
        diag << "it depends on " << origin.op->getName() << " over " << axis;
        diag.attachNote(origin.op->getLoc()) << "the variation comes from here";
      } else {
        diag << "it depends on per-rank data";
      }
      if (v.fromContraction >> a & 1)
        diag << "; a contraction over a dim split along " << axis
             << " leaves per-rank partial sums: declare partial<sum>";
      else
        diag << "; declare the placement it has, all_reduce or all_gather "
                "it over "
             << axis << " in the body, or mark the region `unchecked`";
      return failure();
    }
  }
  return success();
}

struct DTensorCheckContractsPass
    : hp::dtensor::impl::DTensorCheckContractsBase<DTensorCheckContractsPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    WalkResult result = getOperation()->walk([&](LocalRegionOp op) {
      return failed(checkRegion(op, symbols)) ? WalkResult::interrupt()
                                              : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
