//===- Propagate.cpp - global regions into local regions ------------------===//
//
// A global_region holds ordinary ops on global tensors. Every op is given a
// strategy (placements for its operands and results) and the region becomes
// validate-view IR: local_regions for the ops, redistributes between them.
// The strategy here is the replicated one, right for any op: propagation by
// cost is the next step (docs/DTensorDialect.md, "Whole programs").
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORPROPAGATE
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;

namespace {

/// Rewrites one global_region, op by op, in front of it.
class RegionLowering {
public:
  RegionLowering(GlobalRegionOp region, const MeshInfo &mesh)
      : region(region), b(region), loc(region.getLoc()),
        meshName(region.getMeshAttr()), mesh(mesh) {
    SmallVector<Attribute> r(mesh.getRank(), ReplicateAttr::get(ctx()));
    replicated = b.getArrayAttr(r);
  }

  LogicalResult run();

private:
  MLIRContext *ctx() { return region.getContext(); }

  /// `v` (a body value) as a DTensor laid out with `placements`.
  Value dtensorOf(Value v, ArrayAttr placements) {
    Value o = outer.lookup(v);
    // A per-rank tensor the same on every rank: replicated, wrapped once.
    if (auto plain = dyn_cast<RankedTensorType>(o.getType())) {
      o = FromLocalOp::create(b, loc, typeOf(plain, replicated), o);
      outer.map(v, o);
    }
    auto type = cast<DTensorType>(o.getType());
    if (type.getPlacements() == placements)
      return o;
    return RedistributeOp::create(b, loc, type.withPlacements(placements), o);
  }
  DTensorType typeOf(RankedTensorType global, ArrayAttr placements) {
    return DTensorType::get(ctx(), global.getShape(), global.getElementType(),
                            meshName, placements);
  }

  LogicalResult lowerRun(ArrayRef<Operation *> run);
  void lowerLocalRegion(LocalRegionOp op);
  void lowerYield(YieldOp yield);

  GlobalRegionOp region;
  OpBuilder b;
  Location loc;
  FlatSymbolRefAttr meshName;
  MeshInfo mesh;
  ArrayAttr replicated;
  /// Body values to the values standing for them in front of the region: a
  /// DTensor for a global tensor (or a plain tensor the same on every rank),
  /// the value itself for anything else.
  IRMapping outer;
};

/// The values a run of ops uses from outside it, and the values it defines
/// that are used outside it.
void runBoundary(ArrayRef<Operation *> run, Block &body,
                 llvm::SetVector<Value> &inputs,
                 llvm::SetVector<Value> &outputs) {
  llvm::SmallPtrSet<Operation *, 16> inRun(run.begin(), run.end());
  auto isOutside = [&](Value v) {
    Operation *def = v.getDefiningOp();
    return !def || !inRun.contains(def);
  };
  for (Operation *op : run) {
    for (Value v : op->getOperands())
      if (isOutside(v))
        inputs.insert(v);
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(op->getRegions(), above);
    for (Value v : above)
      if (isOutside(v))
        inputs.insert(v);
    for (Value r : op->getResults())
      for (Operation *user : r.getUsers())
        if (!inRun.contains(body.findAncestorOpInBlock(*user)))
          outputs.insert(r);
  }
}

LogicalResult RegionLowering::lowerRun(ArrayRef<Operation *> run) {
  if (run.empty())
    return success();
  for (Operation *op : run) {
    WalkResult nested = op->walk([&](LocalRegionOp inner) {
      inner.emitOpError("inside another op of a dtensor.global_region body is "
                        "not supported yet by dtensor-propagate: place it at "
                        "the top level of the body");
      return WalkResult::interrupt();
    });
    if (nested.wasInterrupted())
      return failure();
  }
  llvm::SetVector<Value> inputs, outputs;
  runBoundary(run, region.getBodyBlock(), inputs, outputs);

  // Whole tensors on every rank: each tensor input replicated.
  bool tensorInput = llvm::any_of(inputs, [](Value v) {
    return isa<RankedTensorType>(v.getType());
  });
  IRMapping inside;
  if (!tensorInput) {
    // Constants and scalar code: every rank computes the same values in
    // front of the region.
    for (Value v : inputs)
      inside.map(v, outer.lookup(v));
    for (Operation *op : run)
      b.clone(*op, inside);
  } else {
    SmallVector<Value> args;
    SmallVector<Attribute> names, out;
    SmallVector<Type> argTypes, resultTypes;
    for (auto [i, v] : llvm::enumerate(inputs)) {
      auto tensor = dyn_cast<RankedTensorType>(v.getType());
      args.push_back(tensor ? dtensorOf(v, replicated) : outer.lookup(v));
      names.push_back(b.getStringAttr("a" + std::to_string(i)));
      argTypes.push_back(v.getType()); // the local type of a replicated one
    }
    for (Value v : outputs) {
      auto tensor = dyn_cast<RankedTensorType>(v.getType());
      resultTypes.push_back(tensor ? Type(typeOf(tensor, replicated))
                                   : v.getType());
      out.push_back(tensor ? Attribute(replicated) : b.getUnitAttr());
    }
    auto local = LocalRegionOp::create(
        b, loc, resultTypes, args, meshName, b.getArrayAttr(names),
        DictionaryAttr(), out.empty() ? ArrayAttr() : b.getArrayAttr(out),
        UnitAttr());
    SmallVector<Location> argLocs(args.size(), loc);
    {
      OpBuilder::InsertionGuard guard(b);
      Block *block = b.createBlock(&local.getBody(), {}, argTypes, argLocs);
      for (auto [v, arg] : llvm::zip(inputs, block->getArguments()))
        inside.map(v, arg);
      for (Operation *op : run)
        b.clone(*op, inside);
      SmallVector<Value> yielded;
      for (Value v : outputs)
        yielded.push_back(inside.lookup(v));
      YieldOp::create(b, loc, yielded);
    }
    // Replicated values need no pinning inside; a constraint is an identity.
    local.getBody().walk([](ConstrainOp c) {
      c.replaceAllUsesWith(c.getInput());
      c.erase();
    });
    for (auto [v, result] : llvm::zip(outputs, local.getResults()))
      inside.map(v, result);
  }
  for (Value v : outputs)
    outer.map(v, inside.lookup(v));
  return success();
}

void RegionLowering::lowerLocalRegion(LocalRegionOp op) {
  SmallVector<Value> args;
  bool tensorOperand = false;
  for (auto [i, v] : llvm::enumerate(op.getArgs())) {
    ArrayAttr declared = op.getDeclaredInPlacements(i);
    tensorOperand |= declared && isa<RankedTensorType>(v.getType());
    args.push_back(declared && isa<RankedTensorType>(v.getType())
                       ? dtensorOf(v, declared)
                       : outer.lookup(v));
  }
  // With a DTensor operand the region wraps its tensor results; without one
  // they come out local and are wrapped here.
  SmallVector<Type> resultTypes;
  for (auto [i, r] : llvm::enumerate(op.getResults())) {
    auto tensor = dyn_cast<RankedTensorType>(r.getType());
    ArrayAttr out = op.getOutPlacementsAttr() ? op.getOutPlacementsFor(i)
                                              : ArrayAttr();
    if (tensor && out && tensorOperand)
      resultTypes.push_back(typeOf(tensor, out));
    else
      resultTypes.push_back(
          cast<YieldOp>(op.getBodyBlock().getTerminator())
              .getValues()[i]
              .getType());
  }
  auto local = LocalRegionOp::create(
      b, op.getLoc(), resultTypes, args, op.getMeshAttr(), op.getArgNames(),
      op.getInPlacementsAttr(),
      tensorOperand ? op.getOutPlacementsAttr() : ArrayAttr(), UnitAttr(),
      op.getUncheckedAttr());
  local.getBody().takeBody(op.getBody());
  for (auto [i, r] : llvm::enumerate(op.getResults())) {
    Value result = local.getResult(i);
    auto tensor = dyn_cast<RankedTensorType>(r.getType());
    if (tensor && !tensorOperand && op.getOutPlacementsAttr())
      if (ArrayAttr out = op.getOutPlacementsFor(i))
        result = FromLocalOp::create(b, op.getLoc(), typeOf(tensor, out),
                                     result);
    outer.map(r, result);
  }
}

void RegionLowering::lowerYield(YieldOp yield) {
  for (auto [v, result] :
       llvm::zip(yield.getValues(), region.getResults())) {
    Value replacement;
    if (auto type = dyn_cast<DTensorType>(result.getType())) {
      replacement = dtensorOf(v, type.getPlacements());
    } else if (isa<RankedTensorType>(v.getType())) {
      // A plain tensor result: the whole value on every rank.
      replacement = ToLocalOp::create(b, loc, result.getType(),
                                      dtensorOf(v, replicated));
    } else {
      replacement = outer.lookup(v);
    }
    result.replaceAllUsesWith(replacement);
  }
}

LogicalResult RegionLowering::run() {
  Block &body = region.getBodyBlock();
  for (auto [arg, operand] : llvm::zip(body.getArguments(), region.getArgs()))
    outer.map(arg, operand);
  SmallVector<Operation *> run;
  for (Operation &op : body) {
    if (!isa<ConstrainOp, LocalRegionOp, YieldOp>(op)) {
      run.push_back(&op);
      continue;
    }
    if (failed(lowerRun(run)))
      return failure();
    run.clear();
    if (auto c = dyn_cast<ConstrainOp>(op))
      outer.map(c.getResult(), dtensorOf(c.getInput(), c.getPlacements()));
    else if (auto l = dyn_cast<LocalRegionOp>(op))
      lowerLocalRegion(l);
    else
      lowerYield(cast<YieldOp>(op));
  }
  region.erase();
  return success();
}

struct DTensorPropagatePass
    : hp::dtensor::impl::DTensorPropagateBase<DTensorPropagatePass> {
  void runOnOperation() override {
    SmallVector<GlobalRegionOp> regions;
    getOperation()->walk([&](GlobalRegionOp r) { regions.push_back(r); });
    SymbolTableCollection symbols;
    for (GlobalRegionOp r : regions) {
      MeshInfo mesh = lookupMesh(r, r.getMeshAttr(), symbols);
      if (!mesh || failed(RegionLowering(r, mesh).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
