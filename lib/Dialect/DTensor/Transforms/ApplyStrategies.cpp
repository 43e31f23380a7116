//===- ApplyStrategies.cpp - global regions into local regions ------------===//
//
// The second half of dtensor-propagate: a global_region whose ops carry a
// dtensor.strategy (dtensor-choose-strategies leaves them) becomes
// validate-view IR: one local_region per op on local tensors, redistributes
// where placements change. docs/Propagation.md has the rules.
//
//===----------------------------------------------------------------------===//

#include "LocalOps.h"
#include "PlacementGraph.h"

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Layout/Layout.h"
#include "hp/Dialect/DTensor/Planning/PlanAttrs.h"
#include "hp/Dialect/DTensor/Strategies/StrategyModels.h"
#include "hp/Dialect/DTensor/Strategies/StrategyOpInterface.h"
#include "hp/Dialect/DTensor/Transforms/Passes.h"
#include "hp/Support/DiagnosticFacts.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORAPPLYSTRATEGIES
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;
using propagation::Placements;
using propagation::Strategy;
using namespace hp::dtensor::detail;

namespace {

/// Rewrites one global_region in front of it, by its ops' strategies.
class RegionLowering {
public:
  RegionLowering(GlobalRegionOp region, const MeshInfo &mesh,
                 const PlacementSettings &settings)
      : g(region, mesh), region(region), b(region), loc(region.getLoc()),
        meshName(region.getMeshAttr()), mesh(mesh), settings(settings),
        costs(settings.chooser.planner) {
    SmallVector<Attribute> r(mesh.getRank(), ReplicateAttr::get(ctx()));
    replicated = b.getArrayAttr(r);
  }

  LogicalResult run();

private:
  MLIRContext *ctx() { return region.getContext(); }

  /// Per node, its strategy: its op's annotation. Every op that takes one
  /// must have one; the annotations are removed from the body.
  FailureOr<SmallVector<int64_t>> strategiesOfOps();
  LogicalResult lowerPlaced(ArrayRef<int64_t> choice);
  LogicalResult lowerReplicated();
  LogicalResult lowerRun(ArrayRef<Operation *> run);
  void lowerOp(Operation *op, const Strategy &s);
  void lowerLocalRegion(LocalRegionOp op);
  void lowerYield(YieldOp yield);

  /// `v` (a body value) as a DTensor laid out with `placements`; `cause`
  /// and `what` say which use asked for it (remarks and warnings).
  Value dtensorOf(Value v, ArrayAttr placements, Operation *cause = nullptr,
                  const Twine &what = "");
  /// The name of the function argument `v` holds every element of (through
  /// transposes, reshapes and casts), or null.
  StringAttr namedOrigin(Value v) {
    Value arg = g.namedArgument(v);
    return arg ? argumentName(arg) : nullptr;
  }
  DTensorType typeOf(RankedTensorType global, ArrayAttr placements) {
    return DTensorType::get(ctx(), global.getShape(), global.getElementType(),
                            meshName, placements);
  }
  ArrayAttr attrOf(ArrayRef<plan::Placement> placements) {
    return toPlacementsAttr(ctx(), placements);
  }

  PlacementGraph g;
  GlobalRegionOp region;
  OpBuilder b;
  Location loc;
  FlatSymbolRefAttr meshName;
  MeshInfo mesh;
  const PlacementSettings &settings;
  propagation::RedistributeCosts costs;
  ArrayAttr replicated;
  /// Body values to the values standing for them in front of the region: a
  /// DTensor for a global tensor (or a plain tensor the same on every rank),
  /// the value itself for anything else.
  IRMapping outer;
  /// Redistributes made so far, by body value and placements.
  llvm::DenseMap<std::pair<Value, Attribute>, Value> moved;
  int64_t numRedistributes = 0;
};

FailureOr<SmallVector<int64_t>> RegionLowering::strategiesOfOps() {
  FailureOr<SmallVector<int64_t>> annotated = g.readAnnotations();
  if (failed(annotated))
    return failure();
  for (auto [n, op] : llvm::enumerate(g.nodeOps)) {
    int64_t &k = (*annotated)[n];
    if (!g.takesStrategy(op)) {
      k = 0; // constrain, local_region: their declared layout
      continue;
    }
    if (k < 0)
      return op->emitOpError()
             << "has no 'dtensor.strategy': dtensor-apply-strategies rewrites "
                "by the strategies dtensor-choose-strategies leaves on every "
                "op a dtensor.global_region places (dtensor-propagate runs "
                "both)";
  }
  StringAttr key = DTensorDialect::StrategyAttrHelper(ctx()).getName();
  for (Operation *op : g.nodeOps)
    op->removeAttr(key);
  return annotated;
}

Value RegionLowering::dtensorOf(Value v, ArrayAttr placements, Operation *cause,
                                const Twine &what) {
  Value o = outer.lookup(v);
  // A per-rank tensor the same on every rank: replicated, wrapped once.
  if (auto plain = dyn_cast<RankedTensorType>(o.getType())) {
    o = FromLocalOp::create(b, loc, typeOf(plain, replicated), o);
    outer.map(v, o);
  }
  auto type = cast<DTensorType>(o.getType());
  if (type.getPlacements() == placements)
    return o;
  // Keyed by the value in front: a constraint that moves nothing shares
  // its input's redistributes.
  Value source = o;
  if (Value done = moved.lookup({source, placements}))
    return done;
  Location at = cause ? cause->getLoc() : loc;
  Placements from = toPlanPlacements(type.getPlacements());
  Placements to = toPlanPlacements(placements);
  // partial<a> -> partial<b> on a mesh dim goes through replicate there.
  if (std::optional<Placements> stop = propagation::viaReplicate(from, to)) {
    Value mid = dtensorOf(v, attrOf(*stop), cause, what);
    from = *stop;
    o = mid;
    type = cast<DTensorType>(mid.getType());
  }
  Value slot =
      RedistributeOp::create(b, at, type.withPlacements(placements), o);
  moved[{source, placements}] = slot;
  ++numRedistributes;
  auto global = RankedTensorType::get(type.getShape(), type.getElementType());
  plan::Problem tensor = planTensor(global, mesh.shape);
  if (settings.printStrategies) {
    std::optional<plan::Plan> p = costs.plan(tensor, from, to);
    emitRemark(at) << "redistribute " << global << " "
                   << plan::placementsToString(from) << " -> "
                   << plan::placementsToString(to) << " for " << what << ": "
                   << (p ? p->str() : std::string("no plan"));
  }
  // A whole tensor on every rank where it was split: GSPMD's involuntary
  // full rematerialization.
  auto isShard = [](const plan::Placement &p) {
    return p.kind == plan::Placement::Shard ||
           p.kind == plan::Placement::StridedShard;
  };
  double bytes = tensor.elementBytes;
  for (int64_t d : tensor.globalShape)
    bytes *= d;
  // Every split axis gathered (not made partial, which is a local fill) and
  // nothing split any more: the whole tensor on every rank.
  bool gathersWhole =
      llvm::any_of(from, isShard) && llvm::none_of(to, isShard) &&
      llvm::all_of(llvm::seq<size_t>(0, from.size()), [&](size_t m) {
        return !isShard(from[m]) || to[m].kind == plan::Placement::Replicate;
      });
  StringAttr name = namedOrigin(v);
  if (!gathersWhole)
    return slot;
  hp::DiagnosticFacts facts{hp::diagnostic_kind::kGathersWhole,
                            cause ? cause->getName().getStringRef() : "",
                            name ? name.getValue() : ""};
  if (name && settings.warnGatherNamedArgs) {
    InFlightDiagnostic d = emitWarning(at)
                           << "gathers the whole '" << name.getValue() << "' ("
                           << global << ", " << plan::humanBytes(bytes)
                           << ") on every rank for " << what
                           << " (warn-gather-named-args)";
    hp::setDiagnosticFacts(d, facts);
  } else if (settings.warnGatherBytes && bytes >= settings.warnGatherBytes) {
    InFlightDiagnostic d = emitWarning(at) << "gathers the whole ";
    if (name)
      d << "'" << name.getValue() << "' (" << global << ", ";
    else
      d << global << " (";
    d << plan::humanBytes(bytes) << ") on every rank for " << what
      << " (warn-gather-bytes=" << settings.warnGatherBytes << ")";
    hp::setDiagnosticFacts(d, facts);
  }
  return slot;
}

void RegionLowering::lowerOp(Operation *op, const Strategy &s) {
  SmallVector<Value> tensors = strategyOperands(op);
  // Arguments: the tensors as DTensors, then the other values the op reads
  // (its operands and what its regions use from above), once each.
  SmallVector<Value> args;
  SmallVector<Type> argTypes;
  for (auto [i, v] : llvm::enumerate(tensors)) {
    ArrayAttr p = attrOf(s.operands[i]);
    auto global = cast<RankedTensorType>(v.getType());
    args.push_back(dtensorOf(v, p, op,
                             "operand #" + Twine(i) + " of '" +
                                 op->getName().getStringRef() + "'"));
    argTypes.push_back(getLocalType(global.getShape(), global.getElementType(),
                                    mesh.shape, p));
  }
  llvm::SetVector<Value> others;
  for (Value v : op->getOperands())
    if (!isa<RankedTensorType>(v.getType()))
      others.insert(v);
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  for (Value v : above)
    if (!isa<RankedTensorType>(v.getType()))
      others.insert(v);
  for (Value v : others) {
    args.push_back(outer.lookup(v));
    argTypes.push_back(v.getType());
  }
  SmallVector<Attribute> names, out;
  for (int64_t i = 0, e = args.size(); i < e; ++i)
    names.push_back(b.getStringAttr("a" + std::to_string(i)));
  SmallVector<Type> resultTypes, localResultTypes;
  int64_t r = 0;
  for (Value result : op->getResults()) {
    auto tensor = dyn_cast<RankedTensorType>(result.getType());
    if (!tensor) {
      resultTypes.push_back(result.getType());
      localResultTypes.push_back(result.getType());
      out.push_back(b.getUnitAttr());
      continue;
    }
    ArrayAttr p = attrOf(s.results[r++]);
    resultTypes.push_back(typeOf(tensor, p));
    localResultTypes.push_back(getLocalType(
        tensor.getShape(), tensor.getElementType(), mesh.shape, p));
    out.push_back(p);
  }
  auto local = LocalRegionOp::create(
      b, op->getLoc(), resultTypes, args, meshName, b.getArrayAttr(names),
      DictionaryAttr(), b.getArrayAttr(out), UnitAttr());
  SmallVector<Location> argLocs(args.size(), op->getLoc());
  {
    OpBuilder::InsertionGuard guard(b);
    Block *block = b.createBlock(&local.getBody(), {}, argTypes, argLocs);
    auto blockArgs = block->getArguments();
    IRMapping inside;
    for (auto [v, arg] :
         llvm::zip(others, blockArgs.drop_front(tensors.size())))
      inside.map(v, arg);
    // Tensors the regions read from above follow the operands' tensors.
    int64_t numOperandTensors = llvm::count_if(
        op->getOperandTypes(), [](Type t) { return isa<RankedTensorType>(t); });
    for (auto [v, arg] :
         llvm::zip(ArrayRef(tensors).drop_front(numOperandTensors),
                   blockArgs.drop_front(numOperandTensors)))
      inside.map(v, arg);
    // Operands by position: one value may be two operands laid out apart.
    SmallVector<Value> operands;
    int64_t t = 0;
    for (Value v : op->getOperands())
      operands.push_back(isa<RankedTensorType>(v.getType())
                             ? Value(blockArgs[t++])
                             : inside.lookup(v));
    Operation *clone =
        rebuildWithLocalSizes(b, op, s, operands, localResultTypes);
    if (!clone) {
      clone = b.clone(*op, inside);
      clone->setOperands(operands);
      for (auto [result, type] :
           llvm::zip(clone->getResults(), localResultTypes))
        result.setType(type);
      stripConstraints(clone);
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(clone)) {
        llvm::DenseSet<Operation *> local;
        localizeTableReads(b, op, clone, s, tensors, blockArgs, mesh, meshName,
                           local);
        correctIndices(b, linalgOp, s,
                       cast<linalg::LinalgOp>(op).getStaticLoopRanges(), mesh,
                       meshName, local);
      }
    }
    SmallVector<Value> results(clone->getResults());
    if (auto model = dyn_cast<StrategyOpInterface>(op))
      results = model.buildLocalResults(b, clone, s, mesh, meshName);
    YieldOp::create(b, op->getLoc(), results);
  }
  for (auto [result, value] : llvm::zip(op->getResults(), local.getResults()))
    outer.map(result, value);
}

void RegionLowering::lowerLocalRegion(LocalRegionOp op) {
  SmallVector<Value> args;
  bool tensorOperand = false;
  for (auto [i, v] : llvm::enumerate(op.getArgs())) {
    ArrayAttr declared = op.getDeclaredInPlacements(i);
    bool tensor = declared && isa<RankedTensorType>(v.getType());
    tensorOperand |= tensor;
    args.push_back(tensor ? dtensorOf(v, declared, op,
                                      "argument #" + Twine(i) +
                                          " of the dtensor.local_region")
                          : outer.lookup(v));
  }
  // With a DTensor operand the region wraps its tensor results; without one
  // they come out local and are wrapped here.
  SmallVector<Type> resultTypes;
  for (auto [i, r] : llvm::enumerate(op.getResults())) {
    auto tensor = dyn_cast<RankedTensorType>(r.getType());
    ArrayAttr out =
        op.getOutPlacementsAttr() ? op.getOutPlacementsFor(i) : ArrayAttr();
    if (tensor && out && tensorOperand)
      resultTypes.push_back(typeOf(tensor, out));
    else
      resultTypes.push_back(cast<YieldOp>(op.getBodyBlock().getTerminator())
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
        result =
            FromLocalOp::create(b, op.getLoc(), typeOf(tensor, out), result);
    outer.map(r, result);
  }
}

void RegionLowering::lowerYield(YieldOp yield) {
  for (auto [i, v, result] :
       llvm::enumerate(yield.getValues(), region.getResults())) {
    Value replacement;
    std::string what = "result #" + std::to_string(i) + " of the region";
    if (auto type = dyn_cast<DTensorType>(result.getType())) {
      replacement = dtensorOf(v, type.getPlacements(), yield, what);
    } else if (isa<RankedTensorType>(v.getType())) {
      // A plain tensor result: the whole value on every rank.
      replacement = ToLocalOp::create(b, loc, result.getType(),
                                      dtensorOf(v, replicated, yield, what));
    } else {
      replacement = outer.lookup(v);
    }
    result.replaceAllUsesWith(replacement);
  }
}

LogicalResult RegionLowering::lowerPlaced(ArrayRef<int64_t> choice) {
  Block &body = region.getBodyBlock();
  for (Operation &op : body) {
    if (auto yield = dyn_cast<YieldOp>(op)) {
      lowerYield(yield);
      continue;
    }
    auto it = g.nodeOf.find(&op);
    if (it == g.nodeOf.end()) {
      b.clone(op, outer); // replicated code in front
      continue;
    }
    const Strategy &s =
        g.graph.nodes[it->second].strategies[choice[it->second]];
    if (auto c = dyn_cast<ConstrainOp>(op))
      outer.map(c.getResult(), dtensorOf(c.getInput(), c.getPlacements(), c,
                                         "the dtensor.constrain"));
    else if (auto l = dyn_cast<LocalRegionOp>(op))
      lowerLocalRegion(l);
    else
      lowerOp(&op, s);
  }
  if (settings.printStrategies)
    region.emitRemark() << "dtensor-apply-strategies: " << g.graph.nodes.size()
                        << " ops, " << numRedistributes << " redistributes";
  return success();
}

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
  llvm::SetVector<Value> inputs, outputs;
  runBoundary(run, region.getBodyBlock(), inputs, outputs);
  bool tensorInput = llvm::any_of(
      inputs, [](Value v) { return isa<RankedTensorType>(v.getType()); });
  IRMapping inside;
  if (!tensorInput) {
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
      args.push_back(tensor ? dtensorOf(v, replicated, run.front(),
                                        "an op of a replicated run")
                            : outer.lookup(v));
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
    stripConstraints(local);
    for (auto [v, result] : llvm::zip(outputs, local.getResults()))
      inside.map(v, result);
  }
  for (Value v : outputs)
    outer.map(v, inside.lookup(v));
  return success();
}

/// Everything replicated, maximal runs of ops in one local_region each: for
/// bodies whose values cannot all be DTensors (dynamic shapes, element types
/// NCCL does not move), which per-op regions would have to pass around. On
/// replicated values a constraint moves nothing, so only local_regions in
/// the body split the runs; a value that cannot be a DTensor must not cross
/// one.
LogicalResult RegionLowering::lowerReplicated() {
  SmallVector<Operation *> run;
  for (Operation &op : region.getBodyBlock()) {
    if (!isa<LocalRegionOp, YieldOp>(op)) {
      run.push_back(&op);
      continue;
    }
    llvm::SetVector<Value> inputs, outputs;
    runBoundary(run, region.getBodyBlock(), inputs, outputs);
    for (Value v : outputs)
      if (!isPlaceable(v.getType()))
        return op.emitOpError("needs a value of type ")
               << v.getType()
               << " from the ops before it, which cannot cross between "
                  "regions as a DTensor (a dynamic shape or an element type "
                  "NCCL does not move)";
    if (failed(lowerRun(run)))
      return failure();
    run.clear();
    if (auto l = dyn_cast<LocalRegionOp>(op))
      lowerLocalRegion(l);
    else
      lowerYield(cast<YieldOp>(op));
  }
  return success();
}

LogicalResult RegionLowering::run() {
  if (failed(g.build()))
    return failure();
  for (auto [arg, operand] :
       llvm::zip(region.getBodyBlock().getArguments(), region.getArgs()))
    outer.map(arg, operand);
  if (g.unplaceable) {
    if (failed(g.checkNoAnnotations()) || failed(lowerReplicated()))
      return failure();
  } else {
    FailureOr<SmallVector<int64_t>> choice = strategiesOfOps();
    if (failed(choice) || failed(lowerPlaced(*choice)))
      return failure();
  }
  region.erase();
  return success();
}

struct DTensorApplyStrategiesPass
    : hp::dtensor::impl::DTensorApplyStrategiesBase<
          DTensorApplyStrategiesPass> {
  using DTensorApplyStrategiesBase::DTensorApplyStrategiesBase;

  // The op rules: hp's models, wherever the pass runs (a tool need not
  // have registered them).
  void getDependentDialects(DialectRegistry &registry) const override {
    DTensorApplyStrategiesBase::getDependentDialects(registry);
    registerStrategyModels(registry);
  }

  void runOnOperation() override {
    PlacementSettings settings;
    settings.chooser.planner.latencyBytes = latencyBytes;
    settings.chooser.planner.axisWeights =
        llvm::to_vector_of<double, 4>(axisWeights);
    settings.printStrategies = printStrategies;
    settings.warnGatherBytes = warnGatherBytes;
    settings.warnGatherNamedArgs = warnGatherNamedArgs;
    Operation *root = getOperation();
    if (failed(checkPlannerSettings(root, getArgument(), settings)))
      return signalPassFailure();
    if (failed(forEachGlobalRegion(
            root, [&](GlobalRegionOp r, const MeshInfo &mesh) {
              return RegionLowering(r, mesh, settings).run();
            })))
      signalPassFailure();
  }
};

} // namespace
