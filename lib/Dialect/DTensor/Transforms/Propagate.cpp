//===- Propagate.cpp - global regions into local regions ------------------===//
//
// A global_region holds ordinary ops on global tensors. Each op gets its
// strategies (Strategies.h), the chooser picks one per op by cost
// (StrategyChooser.h), and the region becomes validate-view IR: one
// local_region per op on local tensors, redistributes where placements
// change. docs/Propagation.md has the rules.
//
//===----------------------------------------------------------------------===//

#include "LocalOps.h"
#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Layout/Layout.h"
#include "hp/Dialect/DTensor/Planning/PlanAttrs.h"
#include "hp/Dialect/DTensor/Transforms/Passes.h"
#include "hp/Dialect/DTensor/Transforms/RankPiece.h"
#include "hp/Dialect/DTensor/Transforms/Strategies.h"
#include "hp/Support/IRArith.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Format.h"

#define DEBUG_TYPE "dtensor-propagate"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORCHOOSESTRATEGIES
#define GEN_PASS_DEF_DTENSORPROPAGATE
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;
using propagation::Graph;
using propagation::Placements;
using propagation::Strategy;
using namespace hp::dtensor::detail;

namespace {

/// `v` printed with printf format `f` (diagnostics take no format objects).
std::string num(const char *f, double v) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format(f, v);
  return s;
}

struct PropagateSettings {
  propagation::Options chooser;
  /// dtensor-choose-strategies: leave the choice as dtensor.strategy
  /// attributes instead of rewriting.
  bool chooseOnly = false;
  bool printStrategies = false;
  uint64_t warnGatherBytes = 0;
  bool warnGatherNamedArgs = false;
  double paramMemoryWeight = 0;
};

/// `dtensor.fsdp_axes` on a named argument: the mesh axes that split a
/// parameter only to store it (FSDP, ZeRO-3), which every step gathers it
/// along, as torch's FSDP does.
constexpr StringLiteral kFsdpAxesAttrName =
    DTensorDialect::FsdpAxesAttrHelper::getNameStr();

/// The `dtensor.arg_name` of `v` when it is a named argument of a function
/// (hp.torch names parameters and buffers so), else null.
StringAttr argumentName(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || !arg.getOwner()->isEntryBlock())
    return nullptr;
  auto fn = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!fn)
    return nullptr;
  return fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                         LocalCallOp::getArgNameAttrName());
}

/// The `dtensor.fsdp_axes` of a named argument `v` (checked by
/// checkFsdpAxes), else empty.
ArrayRef<int64_t> fsdpAxesOf(Value v) {
  auto arg = cast<BlockArgument>(v);
  auto fn = cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  auto axes = fn.getArgAttrOfType<DenseI64ArrayAttr>(arg.getArgNumber(),
                                                     kFsdpAxesAttrName);
  return axes ? axes.asArrayRef() : ArrayRef<int64_t>();
}

/// Every `dtensor.fsdp_axes` of `fn`'s arguments is on a DTensor by now
/// (the dialect checks the rest of its rules wherever it appears).
LogicalResult checkFsdpAxes(FunctionOpInterface fn) {
  for (int64_t i = 0, e = fn.getNumArguments(); i < e; ++i) {
    if (!fn.getArgAttr(i, kFsdpAxesAttrName) ||
        isa<DTensorType>(fn.getArgumentTypes()[i]))
      continue;
    Location loc = fn.isExternal() ? fn.getLoc() : fn.getArgument(i).getLoc();
    return emitError(loc) << "argument #" << i << " of '"
                          << SymbolTable::getSymbolName(fn).getValue() << "': '"
                          << kFsdpAxesAttrName
                          << "' is only meaningful on a !dtensor.tensor "
                             "argument";
  }
  return success();
}

/// Rewrites one global_region in front of it.
class RegionLowering {
public:
  RegionLowering(GlobalRegionOp region, const MeshInfo &mesh,
                 const PropagateSettings &settings)
      : region(region), b(region), loc(region.getLoc()),
        meshName(region.getMeshAttr()), mesh(mesh), settings(settings),
        costs(settings.chooser.planner) {
    SmallVector<Attribute> r(mesh.getRank(), ReplicateAttr::get(ctx()));
    replicated = b.getArrayAttr(r);
    strategyKey = DTensorDialect::StrategyAttrHelper(ctx()).getName();
  }

  LogicalResult run();

private:
  MLIRContext *ctx() { return region.getContext(); }

  LogicalResult build();
  /// The first body value build() found no DTensor can hold.
  Value unplaceable;
  int64_t addValue(Value v, Placements source, int64_t producer = -1,
                   int64_t producerResult = -1);
  int64_t addNode(Operation *op, std::vector<Strategy> strategies);
  /// The strategies the region's ops carry (dtensor.strategy), checked
  /// against their own, or else the chooser's.
  FailureOr<propagation::Solution> solve();
  /// Whether an op of the body takes a strategy that solve() reads or
  /// annotate() writes: the ops the chooser places, but not those with
  /// declared layouts (constrain, local_region).
  bool takesStrategy(Operation *op) {
    return nodeOf.contains(op) && !isa<ConstrainOp, LocalRegionOp>(op);
  }
  void annotate(const propagation::Solution &solution);
  LogicalResult lowerPlaced(const propagation::Solution &solution);
  LogicalResult lowerReplicated();
  LogicalResult lowerRun(ArrayRef<Operation *> run);
  void lowerOp(Operation *op, const Strategy &s);
  void lowerLocalRegion(LocalRegionOp op);
  void lowerYield(YieldOp yield);
  void printStrategy(Operation *op, const Strategy &s);
  void printSummary(const propagation::Solution &solution);

  /// `v` (a body value) as a DTensor laid out with `placements`; `cause`
  /// and `what` say which use asked for it (remarks and warnings).
  /// The name of the function argument `v` holds every element of (through
  /// transposes, reshapes and casts), or null.
  StringAttr namedOrigin(Value v);
  /// That function argument itself, or null.
  Value namedArgument(Value v);
  Value dtensorOf(Value v, ArrayAttr placements, Operation *cause = nullptr,
                  const Twine &what = "");
  DTensorType typeOf(RankedTensorType global, ArrayAttr placements) {
    return DTensorType::get(ctx(), global.getShape(), global.getElementType(),
                            meshName, placements);
  }
  ArrayAttr attrOf(ArrayRef<plan::Placement> placements) {
    return toPlacementsAttr(ctx(), placements);
  }

  GlobalRegionOp region;
  OpBuilder b;
  Location loc;
  FlatSymbolRefAttr meshName;
  MeshInfo mesh;
  const PropagateSettings &settings;
  propagation::RedistributeCosts costs;
  ArrayAttr replicated;
  /// Body values to the values standing for them in front of the region: a
  /// DTensor for a global tensor (or a plain tensor the same on every rank),
  /// the value itself for anything else.
  IRMapping outer;
  /// Redistributes made so far, by body value and placements.
  llvm::DenseMap<std::pair<Value, Attribute>, Value> moved;
  int64_t numRedistributes = 0;

  /// The strategies came from dtensor.strategy attributes.
  bool given = false;
  /// `dtensor.strategy`, the attribute an op's chosen strategy is kept in.
  StringAttr strategyKey;

  Graph graph;
  llvm::DenseMap<Value, int64_t> valueIndex;
  SmallVector<Operation *> nodeOps;
  llvm::DenseMap<Operation *, int64_t> nodeOf;
};

int64_t RegionLowering::addValue(Value v, Placements source, int64_t producer,
                                 int64_t producerResult) {
  Graph::Value value;
  value.tensor = planTensor(cast<ShapedType>(v.getType()), mesh.shape);
  value.source = std::move(source);
  value.producer = producer;
  value.producerResult = producerResult;
  if (settings.paramMemoryWeight > 0)
    if (Value arg = namedArgument(v)) {
      value.memoryWeight = settings.paramMemoryWeight;
      value.memoryFreeAxes = llvm::to_vector(fsdpAxesOf(arg));
    }
  valueIndex[v] = graph.values.size();
  graph.values.push_back(std::move(value));
  return graph.values.size() - 1;
}

int64_t RegionLowering::addNode(Operation *op,
                                std::vector<Strategy> strategies) {
  int64_t n = graph.nodes.size();
  Graph::Node node;
  for (auto [i, v] : llvm::enumerate(strategyOperands(op))) {
    int64_t value = valueIndex.lookup(v);
    node.operands.push_back(value);
    graph.values[value].uses.push_back({n, static_cast<int64_t>(i)});
  }
  node.strategies = std::move(strategies);
  graph.nodes.push_back(std::move(node));
  int64_t r = 0;
  for (Value result : op->getResults())
    if (isa<RankedTensorType>(result.getType())) {
      int64_t v = addValue(result, {}, n, r++);
      graph.nodes[n].results.push_back(v);
    }
  nodeOps.push_back(op);
  nodeOf[op] = n;
  return n;
}

/// Whether a value of `type` can cross between ops: anything but a tensor
/// the dialect cannot place (isPlaceableTensorType, the rule
/// dtensor-globalize follows too).
bool isPlaceable(Type type) {
  return !isa<RankedTensorType>(type) || isPlaceableTensorType(type);
}

LogicalResult RegionLowering::build() {
  Block &body = region.getBodyBlock();
  Placements replicate(mesh.getRank(), plan::Placement::replicate());
  for (auto [arg, operand] : llvm::zip(body.getArguments(), region.getArgs())) {
    if (!isa<RankedTensorType>(arg.getType()))
      continue;
    if (!isPlaceable(arg.getType())) {
      unplaceable = arg;
      return failure();
    }
    auto type = dyn_cast<DTensorType>(operand.getType());
    addValue(arg, type ? toPlanPlacements(type.getPlacements()) : replicate);
  }
  for (Operation &op : body) {
    for (Value r : op.getResults())
      if (!isPlaceable(r.getType())) {
        unplaceable = r;
        return failure();
      }
    if (auto yield = dyn_cast<YieldOp>(op)) {
      for (auto [v, result] :
           llvm::zip(yield.getValues(), region.getResults())) {
        if (!isa<RankedTensorType>(v.getType()))
          continue;
        auto type = dyn_cast<DTensorType>(result.getType());
        graph.values[valueIndex.lookup(v)].sinks.push_back(
            type ? toPlanPlacements(type.getPlacements()) : replicate);
      }
      continue;
    }
    if (auto c = dyn_cast<ConstrainOp>(op)) {
      Strategy s;
      s.operands = {toPlanPlacements(c.getPlacements())};
      s.results = {s.operands.front()};
      s.loops.assign(mesh.getRank(), Strategy::kNoLoop);
      addNode(&op, {s});
      continue;
    }
    if (auto l = dyn_cast<LocalRegionOp>(op)) {
      Strategy s;
      for (auto [i, v] : llvm::enumerate(l.getArgs()))
        if (isa<RankedTensorType>(v.getType()))
          s.operands.push_back(toPlanPlacements(l.getDeclaredInPlacements(i)));
      for (auto [i, r] : llvm::enumerate(l.getResults()))
        if (isa<RankedTensorType>(r.getType()))
          s.results.push_back(toPlanPlacements(l.getOutPlacementsFor(i)));
      s.loops.assign(mesh.getRank(), Strategy::kNoLoop);
      addNode(&op, {s});
      continue;
    }
    if (strategyOperands(&op).empty()) {
      // Constants, empty tensors, scalar code: every rank computes the same
      // values in front of the region, replicated.
      for (Value r : op.getResults())
        if (isa<RankedTensorType>(r.getType()))
          addValue(r, replicate);
      continue;
    }
    bool fallback = false;
    std::string why;
    std::vector<Strategy> strategies =
        deriveStrategies(&op, mesh.shape, fallback, why);
    if (fallback)
      op.emitRemark() << "runs replicated (" << why
                      << "): dtensor-propagate gives every operand and "
                         "result `replicate`";
    addNode(&op, std::move(strategies));
  }
  return success();
}

Value RegionLowering::namedArgument(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto t = dyn_cast<linalg::TransposeOp>(def))
      v = t.getInput();
    else if (auto c = dyn_cast<tensor::CollapseShapeOp>(def))
      v = c.getSrc();
    else if (auto e = dyn_cast<tensor::ExpandShapeOp>(def))
      v = e.getSrc();
    else if (auto c = dyn_cast<tensor::CastOp>(def))
      v = c.getSource();
    else
      break;
  }
  Value o = outer.lookupOrNull(v);
  return o && argumentName(o) ? o : Value();
}

StringAttr RegionLowering::namedOrigin(Value v) {
  Value arg = namedArgument(v);
  return arg ? argumentName(arg) : nullptr;
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
  if (name && settings.warnGatherNamedArgs)
    emitWarning(at) << "gathers the whole '" << name.getValue() << "' ("
                    << global << ", " << plan::humanBytes(bytes)
                    << ") on every rank for " << what
                    << " (warn-gather-named-args)";
  else if (settings.warnGatherBytes && bytes >= settings.warnGatherBytes) {
    InFlightDiagnostic d = emitWarning(at) << "gathers the whole ";
    if (name)
      d << "'" << name.getValue() << "' (" << global << ", ";
    else
      d << global << " (";
    d << plan::humanBytes(bytes) << ") on every rank for " << what
      << " (warn-gather-bytes=" << settings.warnGatherBytes << ")";
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
    YieldOp::create(b, op->getLoc(), clone->getResults());
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

void RegionLowering::printStrategy(Operation *op, const Strategy &s) {
  auto diag = op->emitRemark() << "strategy";
  auto list = [&](ArrayRef<Placements> lists) {
    for (auto [i, p] : llvm::enumerate(lists))
      diag << (i ? ", " : " ") << plan::placementsToString(p);
  };
  list(s.operands);
  diag << " ->";
  list(s.results);
  diag << "; " << op->getName().getStringRef();
  bool shape = isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
                   tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::PadOp,
                   tensor::ConcatOp>(op);
  for (auto [m, loop] : llvm::enumerate(s.loops)) {
    if (loop != Strategy::kNoLoop)
      diag << ", " << (shape ? "result dim " : "loop ") << loop << " on "
           << mesh.names[m];
    else if (llvm::any_of(s.results,
                          [&](const Placements &p) {
                            return p[m].kind == plan::Placement::Partial;
                          }) &&
             !isa<ConstrainOp, LocalRegionOp>(op))
      diag << ", partial sums pass through on " << mesh.names[m];
  }
  diag << "; " << num("%.0f", s.flops) << " flops per device";
}

void RegionLowering::printSummary(const propagation::Solution &solution) {
  auto diag = region.emitRemark();
  if (settings.chooseOnly)
    diag << "dtensor-choose-strategies: " << graph.nodes.size() << " ops; ";
  else
    diag << "dtensor-propagate: " << graph.nodes.size() << " ops, "
         << numRedistributes << " redistributes; ";
  diag << "cost " << num("%.6g", solution.cost) << " = redistributes "
       << num("%.6g", solution.redistributeCost) << " + compute "
       << num("%.6g", solution.computeCost) << " (flop-bytes "
       << num("%g", settings.chooser.flopBytes) << "); "
       << (given ? "" : solution.method + ", ");
  if (given)
    diag << "as annotated (dtensor.strategy)";
  else if (solution.provenByBound)
    diag << "optimal (meets the relaxation's lower bound)";
  else if (solution.exact)
    diag << "optimal";
  else
    diag << "lower bound " << num("%.6g", solution.lowerBound) << ", gap "
         << num("%.6g", solution.cost - solution.lowerBound);
  diag << "; greedy " << num("%.6g", solution.greedyCost);
}

FailureOr<propagation::Solution> RegionLowering::solve() {
  SmallVector<Operation *> annotated, bare;
  for (Operation &op : region.getBodyBlock()) {
    if (takesStrategy(&op)) {
      (op.hasAttr(strategyKey) ? annotated : bare).push_back(&op);
      continue;
    }
    if (!op.hasAttr(strategyKey))
      continue;
    InFlightDiagnostic diag = op.emitOpError() << "has a 'dtensor.strategy' "
                                                  "but takes none: ";
    if (isa<ConstrainOp, LocalRegionOp>(op))
      diag << "its own placements are its layout";
    else
      diag << "it runs replicated in front of the region";
    return failure();
  }
  if (annotated.empty())
    return propagation::choose(graph, settings.chooser);
  if (!bare.empty()) {
    InFlightDiagnostic diag =
        bare.front()->emitOpError()
        << "has no 'dtensor.strategy' while other ops of its "
           "dtensor.global_region do: give every op the region places one "
           "(dtensor-choose-strategies does) or none";
    diag.attachNote(annotated.front()->getLoc()) << "this op has one";
    return failure();
  }
  // Checked, not trusted: each must be one of the op's own strategies.
  propagation::Solution solution;
  solution.choice.assign(graph.nodes.size(), 0);
  for (Operation *op : annotated) {
    // The dialect verifies the kind, but a pass manager need not verify
    // its input.
    auto attr = dyn_cast<StrategyAttr>(op->getAttr(strategyKey));
    if (!attr) {
      op->emitOpError() << "'dtensor.strategy' must be a #dtensor.strategy, "
                           "got "
                        << op->getAttr(strategyKey);
      return failure();
    }
    Strategy want = fromStrategyAttr(attr);
    const std::vector<Strategy> &own =
        graph.nodes[nodeOf.lookup(op)].strategies;
    auto it = llvm::find_if(own, [&](const Strategy &s) {
      return s.operands == want.operands && s.results == want.results &&
             s.loops == want.loops;
    });
    if (it == own.end()) {
      op->emitOpError() << "'dtensor.strategy' " << attr
                        << " is not one of the op's " << own.size()
                        << " strategies on mesh " << meshName
                        << " (dtensor-choose-strategies gives one)";
      return failure();
    }
    solution.choice[nodeOf.lookup(op)] = it - own.begin();
    op->removeAttr(strategyKey);
  }
  given = true;
  solution.cost =
      propagation::evaluate(graph, solution.choice, costs, settings.chooser,
                            &solution.redistributeCost, &solution.computeCost);
  // Defensive: each is one of its op's, and the planner moves any
  // placements into any other (a partial of one kind into another through
  // replicate), so the sum is finite; were it not, say so here rather than
  // as a missing plan in a later pass.
  if (!std::isfinite(solution.cost)) {
    region.emitOpError() << "the 'dtensor.strategy' annotations of its ops "
                            "ask for a redistribute the planner has no plan "
                            "for";
    return failure();
  }
  // Only the summary quotes greedy's cost beside the annotated one.
  if (settings.printStrategies)
    solution.greedyCost = propagation::evaluate(
        graph, propagation::chooseGreedily(graph, costs, settings.chooser),
        costs, settings.chooser);
  return solution;
}

void RegionLowering::annotate(const propagation::Solution &solution) {
  for (auto [n, op] : llvm::enumerate(nodeOps)) {
    if (!takesStrategy(op))
      continue;
    const Strategy &s = graph.nodes[n].strategies[solution.choice[n]];
    if (settings.printStrategies)
      printStrategy(op, s);
    op->setAttr(strategyKey, toStrategyAttr(ctx(), s));
  }
  if (settings.printStrategies)
    printSummary(solution);
}

LogicalResult
RegionLowering::lowerPlaced(const propagation::Solution &solution) {
  Block &body = region.getBodyBlock();
  for (Operation &op : body) {
    if (auto yield = dyn_cast<YieldOp>(op)) {
      lowerYield(yield);
      continue;
    }
    auto it = nodeOf.find(&op);
    if (it == nodeOf.end()) {
      b.clone(op, outer); // replicated code in front
      continue;
    }
    const Strategy &s =
        graph.nodes[it->second].strategies[solution.choice[it->second]];
    if (settings.printStrategies && !isa<ConstrainOp>(op))
      printStrategy(&op, s);
    if (auto c = dyn_cast<ConstrainOp>(op))
      outer.map(c.getResult(), dtensorOf(c.getInput(), c.getPlacements(), c,
                                         "the dtensor.constrain"));
    else if (auto l = dyn_cast<LocalRegionOp>(op))
      lowerLocalRegion(l);
    else
      lowerOp(&op, s);
  }
  if (settings.printStrategies)
    printSummary(solution);
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
  Block &body = region.getBodyBlock();
  for (Operation &op : body) {
    WalkResult nested = op.walk([&](LocalRegionOp inner) {
      if (inner == &op)
        return WalkResult::advance();
      inner.emitOpError("inside another op of a dtensor.global_region body is "
                        "not supported yet by dtensor-propagate: place it at "
                        "the top level of the body");
      return WalkResult::interrupt();
    });
    if (nested.wasInterrupted())
      return failure();
  }
  WalkResult unranked = body.walk([&](Operation *op) {
    for (Value r : op->getResults())
      if (isa<UnrankedTensorType>(r.getType())) {
        op->emitOpError("yields an unranked tensor, which dtensor-propagate "
                        "cannot place: give it a ranked type");
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (unranked.wasInterrupted())
    return failure();
  for (auto [arg, operand] : llvm::zip(body.getArguments(), region.getArgs()))
    outer.map(arg, operand);
  // Choosing again (other options, say) replaces an earlier choice.
  if (settings.chooseOnly)
    for (Operation &op : body)
      op.removeAttr(strategyKey);
  if (succeeded(build())) {
    FailureOr<propagation::Solution> solved = solve();
    if (failed(solved))
      return failure();
    const propagation::Solution &solution = *solved;
    // -debug-only=dtensor-propagate: the choice before it is lowered.
    LLVM_DEBUG({
      llvm::dbgs() << "[dtensor-propagate] " << nodeOps.size() << " ops, "
                   << graph.values.size() << " values: cost " << solution.cost
                   << " (redistributes " << solution.redistributeCost
                   << ", compute " << solution.computeCost << "), "
                   << solution.method << (solution.exact ? ", exact" : "")
                   << "\n";
      for (auto [n, op] : llvm::enumerate(nodeOps)) {
        const Strategy &s = graph.nodes[n].strategies[solution.choice[n]];
        llvm::dbgs() << "  " << op->getName() << " strategy "
                     << solution.choice[n] << " of "
                     << graph.nodes[n].strategies.size() << ", loops [";
        llvm::interleaveComma(s.loops, llvm::dbgs());
        llvm::dbgs() << "]\n";
      }
    });
    if (settings.chooseOnly) {
      annotate(solution);
      return success();
    }
    if (failed(lowerPlaced(solution)))
      return failure();
  } else {
    for (Operation &op : body)
      if (op.hasAttr(strategyKey))
        return op.emitOpError()
               << "has a 'dtensor.strategy', but its dtensor.global_region "
                  "runs replicated as a whole (a value no DTensor can hold)";
    // Said at the value that forced it: the op the user can change.
    auto type = cast<RankedTensorType>(unplaceable.getType());
    InFlightDiagnostic remark =
        mlir::emitRemark(unplaceable.getLoc())
        << "runs replicated: the whole dtensor.global_region does, because ";
    if (auto r = dyn_cast<OpResult>(unplaceable))
      remark << "result #" << r.getResultNumber() << " of '"
             << r.getOwner()->getName() << "'";
    else
      remark << "argument #" << cast<BlockArgument>(unplaceable).getArgNumber();
    std::string typeText; // unquoted, as the op prints it
    llvm::raw_string_ostream(typeText) << type;
    remark << " (" << typeText << ") cannot be a DTensor ("
           << (type.hasStaticShape() ? "an element type NCCL does not move"
                                     : "a dynamic shape")
           << "), so its ops stay together on whole tensors";
    remark.attachNote(region.getLoc()) << "the region";
    remark.report();
    if (settings.chooseOnly)
      return success();
    if (failed(lowerReplicated()))
      return failure();
  }
  region.erase();
  return success();
}

/// The chooser's settings, from the options both passes have.
PropagateSettings chooserSettings(uint64_t latencyBytes,
                                  ArrayRef<double> axisWeights,
                                  double flopBytes, int64_t maxTableSize,
                                  bool printStrategies,
                                  double paramMemoryWeight) {
  PropagateSettings settings;
  settings.chooser.planner.latencyBytes = latencyBytes;
  settings.chooser.planner.axisWeights =
      llvm::to_vector_of<double, 4>(axisWeights);
  settings.chooser.flopBytes = flopBytes;
  settings.chooser.maxTableSize = maxTableSize;
  settings.printStrategies = printStrategies;
  settings.paramMemoryWeight = paramMemoryWeight;
  return settings;
}

/// Checks `settings` (errors name `pass`) and runs on every global_region
/// under `root`.
LogicalResult runOnRegions(Operation *root, StringRef pass,
                           const PropagateSettings &settings) {
  double weight = settings.paramMemoryWeight;
  if (!(weight >= 0) || std::isinf(weight))
    return root->emitError()
           << pass
           << ": param-memory-weight must be a finite number of at least 0, "
              "got "
           << weight;
  // The chooser holds up to kTablesPerCap tables of this many 12-byte
  // entries: a larger cap would be a promise memory cannot keep.
  int64_t cap = settings.chooser.maxTableSize;
  if (cap < 1 || cap > propagation::Options::kMaxTableSizeLimit)
    return root->emitError()
           << pass << ": max-table-size must be between 1 and 2^24 ("
           << propagation::Options::kMaxTableSizeLimit
           << " entries; the chooser holds up to "
           << propagation::Options::kTablesPerCap << " such tables), got "
           << cap;
  if (settings.chooser.flopBytes < 0 ||
      !std::isfinite(settings.chooser.flopBytes))
    return root->emitError()
           << pass << ": flop-bytes must be a finite number >= 0";
  if (std::string why = plan::invalidOptions(settings.chooser.planner);
      !why.empty())
    return root->emitError() << pass << ": " << why;
  WalkResult bad = root->walk([&](FunctionOpInterface fn) {
    return failed(checkFsdpAxes(fn)) ? WalkResult::interrupt()
                                     : WalkResult::advance();
  });
  if (bad.wasInterrupted())
    return failure();
  SmallVector<GlobalRegionOp> regions;
  root->walk([&](GlobalRegionOp r) { regions.push_back(r); });
  SymbolTableCollection symbols;
  for (GlobalRegionOp r : regions) {
    MeshInfo mesh = lookupMesh(r, r.getMeshAttr(), symbols);
    if (!mesh || failed(RegionLowering(r, mesh, settings).run()))
      return failure();
  }
  return success();
}

struct DTensorChooseStrategiesPass
    : hp::dtensor::impl::DTensorChooseStrategiesBase<
          DTensorChooseStrategiesPass> {
  using DTensorChooseStrategiesBase::DTensorChooseStrategiesBase;

  void runOnOperation() override {
    PropagateSettings settings =
        chooserSettings(latencyBytes, axisWeights, flopBytes, maxTableSize,
                        printStrategies, paramMemoryWeight);
    settings.chooseOnly = true;
    if (failed(runOnRegions(getOperation(), getArgument(), settings)))
      signalPassFailure();
  }
};

struct DTensorPropagatePass
    : hp::dtensor::impl::DTensorPropagateBase<DTensorPropagatePass> {
  using DTensorPropagateBase::DTensorPropagateBase;

  void runOnOperation() override {
    PropagateSettings settings =
        chooserSettings(latencyBytes, axisWeights, flopBytes, maxTableSize,
                        printStrategies, paramMemoryWeight);
    settings.warnGatherBytes = warnGatherBytes;
    settings.warnGatherNamedArgs = warnGatherNamedArgs;
    if (failed(runOnRegions(getOperation(), getArgument(), settings)))
      signalPassFailure();
  }
};

} // namespace
