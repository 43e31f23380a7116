//===- CheckContracts.cpp - replicate claims checked against the body -----===//
//
// A local region's out_placements are a claim about the body. A `replicate`
// over an axis the yielded value varies over would be wrapped as if every
// rank held the same data, and a `partial<sum>` over an axis it does not
// vary over would be summed once per rank: both compute wrong numbers
// downstream. This pass refuses such claims, says where the variation comes
// from and what to declare instead (see docs/DTensorDialect.md, "Contracts are
// checked").
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Analysis/Variance.h"
#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORCHECKCONTRACTS
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;

namespace {

std::string quoted(StringRef s) { return ("'" + s + "'").str(); }

/// A value the same on every rank of axis `a` declared partial<sum> (or
/// prod) there is reduced n times over: n * x (x^n), silently wrong (a
/// bias gradient summed over a data-parallel axis it was already reduced
/// over is this bug). Idempotent ops (avg, max, min) are right.
LogicalResult checkPartialOfCopies(Operation *op, size_t result, size_t a,
                                   PlacementAttrInterface placement,
                                   const Variance &v, const MeshInfo &mesh) {
  std::optional<ReduceOp> reduction = placement.getPendingReduceOp();
  if (!reduction || v.varies(a) ||
      (*reduction != ReduceOp::Sum && *reduction != ReduceOp::Prod))
    return success();
  bool sum = *reduction == ReduceOp::Sum;
  std::string axis = quoted(mesh.names[a]);
  return op->emitOpError()
         << "out_placements declare result #" << result << " "
         << (sum ? "partial<sum>" : "partial<prod>") << " over mesh axis "
         << axis << ", but the "
         << (isa<LocalCallOp>(op) ? "returned" : "yielded")
         << " value is the same on every rank of " << axis
         << ": reducing it would " << (sum ? "add" : "multiply") << " "
         << mesh.shape[a] << " copies; declare replicate over " << axis
         << " (or, if the body already scaled it for the reduction, mark the "
         << (isa<LocalCallOp>(op) ? "call" : "region") << " `unchecked`)";
}

/// Checks the replicate claims of `op` (a local_region or local_call) about
/// the values its computation hands back: `body`'s arguments enter with the
/// layouts of `args` (declared ones under `declaredIn`), `yielded` leave.
LogicalResult checkContract(Operation *op, FlatSymbolRefAttr meshName,
                            ValueRange args, ArrayRef<StringRef> names,
                            function_ref<ArrayAttr(unsigned)> declaredIn,
                            function_ref<ArrayAttr(unsigned)> outFor,
                            Block &body, ArrayRef<SmallVector<Value>> yielded,
                            SymbolTableCollection &symbols) {
  MeshInfo mesh =
      getMeshInfo(symbols.lookupNearestSymbolFrom(op, meshName.getAttr()));
  if (!mesh || mesh.getRank() > 64)
    return success(); // The verifier reports a missing mesh.

  SmallVector<uint64_t> axes;
  SmallVector<SmallVector<uint64_t, 4>> dims;
  SmallVector<std::string> layouts;
  for (auto [i, arg] : llvm::enumerate(args)) {
    auto type = dyn_cast<DTensorType>(arg.getType());
    if (!type) {
      axes.push_back(0);
      dims.push_back({});
      layouts.push_back("");
      continue;
    }
    if (ArrayAttr declared = declaredIn(i))
      type = type.withPlacements(declared);
    axes.push_back(layoutVarianceBits(type, mesh.getShape()));
    dims.push_back(layoutDimAxes(type));
    layouts.push_back(placementListToString(type.getPlacements()));
  }
  VarianceAnalysis analysis(body, mesh, meshName, axes, dims);

  for (auto [i, values] : llvm::enumerate(yielded)) {
    ArrayAttr placements = outFor(i);
    if (!placements || values.empty() ||
        isa<DTensorType>(values.front().getType()))
      continue;
    Variance v;
    v.origins.resize(mesh.getRank());
    for (Value value : values)
      v.join(analysis.get(value));
    for (auto [a, p] :
         llvm::enumerate(placements.getAsRange<PlacementAttrInterface>())) {
      if (mesh.shape[a] == 1)
        continue;
      if (failed(checkPartialOfCopies(op, i, a, p, v, mesh)))
        return failure();
      if (!p.isReplicate() || !v.varies(a))
        continue;
      std::string axis = quoted(mesh.names[a]);
      InFlightDiagnostic diag =
          op->emitOpError()
          << "out_placements declare result #" << i
          << " replicate over mesh axis " << axis << ", but the "
          << (isa<LocalCallOp>(op) ? "returned" : "yielded")
          << " value varies over " << axis << ": ";
      const VarianceOrigin &origin = v.origins[a];
      if (origin.argument >= 0) {
        diag << "it depends on argument ";
        if (!names[origin.argument].empty())
          diag << quoted(names[origin.argument]) << " ";
        else
          diag << "#" << origin.argument << " ";
        diag << "(" << layouts[origin.argument] << ")";
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
             << axis << " in the body, or mark the "
             << (isa<LocalCallOp>(op) ? "call" : "region") << " `unchecked`";
      return failure();
    }
  }
  return success();
}

LogicalResult checkRegion(LocalRegionOp op, SymbolTableCollection &symbols) {
  // In a global_region the operands are global values whose placements
  // dtensor-propagate settles; the check runs on what it produces.
  if (op.getUnchecked() || !op.wrapsOutputs() || op.isGlobalView())
    return success();
  SmallVector<StringRef> names;
  for (Attribute a : op.getArgNames())
    names.push_back(cast<StringAttr>(a).getValue());
  SmallVector<SmallVector<Value>> yielded;
  for (Value v : cast<YieldOp>(op.getBodyBlock().getTerminator()).getValues())
    yielded.push_back({v});
  return checkContract(
      op, op.getMeshAttr(), op.getArgs(), names,
      [&](unsigned i) { return op.getDeclaredInPlacements(i); },
      [&](unsigned i) { return op.getOutPlacementsFor(i); }, op.getBodyBlock(),
      yielded, symbols);
}

/// The callee's body is checked with the call's layouts; a callee without a
/// body, or with several blocks, is taken on trust.
LogicalResult checkCall(LocalCallOp op, SymbolTableCollection &symbols) {
  auto out = op.getOutPlacementsAttr();
  if (op.getUnchecked() || !out ||
      llvm::none_of(op.getArgs().getTypes(), llvm::IsaPred<DTensorType>))
    return success();
  auto callee =
      symbols.lookupNearestSymbolFrom<func::FuncOp>(op, op.getCalleeAttr());
  if (!callee || callee.isExternal() || !callee.getBody().hasOneBlock())
    return success();
  SmallVector<StringRef> names;
  for (unsigned i = 0, e = callee.getNumArguments(); i < e; ++i) {
    auto name = callee.getArgAttrOfType<StringAttr>(
        i, LocalCallOp::getArgNameAttrName());
    names.push_back(name ? name.getValue() : StringRef());
  }
  Block &body = callee.getBody().front();
  SmallVector<SmallVector<Value>> yielded(op.getNumResults());
  for (auto [i, v] : llvm::enumerate(body.getTerminator()->getOperands()))
    if (i < yielded.size())
      yielded[i].push_back(v);
  return checkContract(
      op, op.getMeshAttr(), op.getArgs(), names,
      [&](unsigned i) -> ArrayAttr {
        if (!op.getInPlacementsAttr() || names[i].empty())
          return {};
        return dyn_cast_or_null<ArrayAttr>(
            op.getInPlacementsAttr().get(names[i]));
      },
      [&](unsigned i) -> ArrayAttr { return dyn_cast<ArrayAttr>(out[i]); },
      body, yielded, symbols);
}

struct DTensorCheckContractsPass
    : hp::dtensor::impl::DTensorCheckContractsBase<DTensorCheckContractsPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    WalkResult result = getOperation()->walk([&](Operation *op) {
      LogicalResult checked = success();
      if (auto region = dyn_cast<LocalRegionOp>(op))
        checked = checkRegion(region, symbols);
      else if (auto call = dyn_cast<LocalCallOp>(op))
        checked = checkCall(call, symbols);
      return failed(checked) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
