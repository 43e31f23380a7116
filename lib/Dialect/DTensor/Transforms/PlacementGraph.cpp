//===- PlacementGraph.cpp - a global region as the chooser's graph --------===//

#include "PlacementGraph.h"

#include "hp/Dialect/DTensor/Layout/Layout.h"
#include "hp/Dialect/DTensor/Planning/PlanAttrs.h"
#include "hp/Dialect/DTensor/Strategies/StrategyOpInterface.h"
#include "hp/Support/DiagnosticFacts.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace hp::dtensor;
using namespace hp::dtensor::detail;
using propagation::Graph;
using propagation::Placements;
using propagation::Strategy;

namespace {

/// `dtensor.fsdp_axes` on a named argument: the mesh axes that split a
/// parameter only to store it (FSDP, ZeRO-3), which every step gathers it
/// along, as torch's FSDP does.
constexpr StringLiteral kFsdpAxesAttrName =
    DTensorDialect::FsdpAxesAttrHelper::getNameStr();

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

} // namespace

/// The `dtensor.arg_name` of `v` when it is a named argument of a function
/// (hp.torch names parameters and buffers so), else null.
StringAttr hp::dtensor::detail::argumentName(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || !arg.getOwner()->isEntryBlock())
    return nullptr;
  auto fn = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!fn)
    return nullptr;
  return fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                         LocalCallOp::getArgNameAttrName());
}

std::string hp::dtensor::detail::formatNumber(const char *f, double v) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format(f, v);
  return s;
}

bool hp::dtensor::detail::isPlaceable(Type type) {
  return !isa<RankedTensorType>(type) || isPlaceableTensorType(type);
}

LogicalResult
hp::dtensor::detail::checkPlannerSettings(Operation *root, StringRef pass,
                                          const PlacementSettings &settings) {
  if (std::string why = plan::invalidOptions(settings.chooser.planner);
      !why.empty())
    return root->emitError() << pass << ": " << why;
  return success();
}

LogicalResult
hp::dtensor::detail::checkChooserSettings(Operation *root, StringRef pass,
                                          const PlacementSettings &settings) {
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
  if (failed(checkPlannerSettings(root, pass, settings)))
    return failure();
  WalkResult bad = root->walk([&](FunctionOpInterface fn) {
    return failed(checkFsdpAxes(fn)) ? WalkResult::interrupt()
                                     : WalkResult::advance();
  });
  return failure(bad.wasInterrupted());
}

LogicalResult hp::dtensor::detail::forEachGlobalRegion(
    Operation *root,
    function_ref<LogicalResult(GlobalRegionOp, const MeshInfo &)> fn) {
  // Collected first: the rewrite erases each region it lowers.
  SmallVector<GlobalRegionOp> regions;
  root->walk([&](GlobalRegionOp r) { regions.push_back(r); });
  SymbolTableCollection symbols;
  for (GlobalRegionOp r : regions) {
    MeshInfo mesh = lookupMesh(r, r.getMeshAttr(), symbols);
    if (!mesh || failed(fn(r, mesh)))
      return failure();
  }
  return success();
}

PlacementGraph::PlacementGraph(GlobalRegionOp region, const MeshInfo &mesh,
                               double paramMemoryWeight)
    : region(region), mesh(mesh), paramMemoryWeight(paramMemoryWeight) {
  strategyKey =
      DTensorDialect::StrategyAttrHelper(region.getContext()).getName();
}

int64_t PlacementGraph::addValue(Value v, Placements source, int64_t producer,
                                 int64_t producerResult) {
  Graph::Value value;
  value.tensor = planTensor(cast<ShapedType>(v.getType()), mesh.shape);
  value.source = std::move(source);
  value.producer = producer;
  value.producerResult = producerResult;
  if (paramMemoryWeight > 0)
    if (Value arg = namedArgument(v)) {
      value.memoryWeight = paramMemoryWeight;
      value.memoryFreeAxes = llvm::to_vector(fsdpAxesOf(arg));
    }
  valueIndex[v] = graph.values.size();
  graph.values.push_back(std::move(value));
  return graph.values.size() - 1;
}

int64_t PlacementGraph::addNode(Operation *op,
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

LogicalResult PlacementGraph::checkSupported() {
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
  return failure(unranked.wasInterrupted());
}

LogicalResult PlacementGraph::build() {
  if (failed(checkSupported()))
    return failure();
  Block &body = region.getBodyBlock();
  Placements replicate(mesh.getRank(), plan::Placement::replicate());
  for (auto [arg, operand] : llvm::zip(body.getArguments(), region.getArgs())) {
    if (!isa<RankedTensorType>(arg.getType()))
      continue;
    if (!isPlaceable(arg.getType())) {
      unplaceable = arg;
      return success();
    }
    auto type = dyn_cast<DTensorType>(operand.getType());
    addValue(arg, type ? toPlanPlacements(type.getPlacements()) : replicate);
  }
  for (Operation &op : body) {
    for (Value r : op.getResults())
      if (!isPlaceable(r.getType())) {
        unplaceable = r;
        return success();
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
      fallbacks.push_back({&op, why});
    addNode(&op, std::move(strategies));
  }
  return success();
}

FailureOr<SmallVector<int64_t>> PlacementGraph::readAnnotations() {
  SmallVector<int64_t> chosen(graph.nodes.size(), -1);
  for (Operation &op : region.getBodyBlock()) {
    Attribute given = op.getAttr(strategyKey);
    if (!given)
      continue;
    if (!takesStrategy(&op)) {
      InFlightDiagnostic diag = op.emitOpError() << "has a 'dtensor.strategy' "
                                                    "but takes none: ";
      if (isa<ConstrainOp, LocalRegionOp>(op))
        diag << "its own placements are its layout";
      else
        diag << "it runs replicated in front of the region";
      return failure();
    }
    // The dialect verifies the kind, but a pass manager need not verify
    // its input.
    auto attr = dyn_cast<StrategyAttr>(given);
    if (!attr) {
      op.emitOpError() << "'dtensor.strategy' must be a #dtensor.strategy, "
                          "got "
                       << given;
      return failure();
    }
    // Checked, not trusted: each must be one of the op's own strategies.
    Strategy want = fromStrategyAttr(attr);
    int64_t n = nodeOf.lookup(&op);
    const std::vector<Strategy> &own = graph.nodes[n].strategies;
    auto it = llvm::find_if(own, [&](const Strategy &s) {
      return s.operands == want.operands && s.results == want.results &&
             s.loops == want.loops;
    });
    if (it == own.end()) {
      op.emitOpError() << "'dtensor.strategy' " << attr
                       << " is not one of the op's " << own.size()
                       << " strategies on mesh " << region.getMeshAttr()
                       << " (dtensor-choose-strategies gives one)";
      return failure();
    }
    chosen[n] = it - own.begin();
  }
  return chosen;
}

LogicalResult PlacementGraph::checkNoAnnotations() {
  for (Operation &op : region.getBodyBlock())
    if (op.hasAttr(strategyKey))
      return op.emitOpError()
             << "has a 'dtensor.strategy', but its dtensor.global_region "
                "runs replicated as a whole (a value no DTensor can hold)";
  return success();
}

void PlacementGraph::remarkUnplaceable() {
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
  Operation *producer = unplaceable.getDefiningOp();
  hp::setDiagnosticFacts(
      remark, {hp::diagnostic_kind::kRunsReplicated,
               producer ? producer->getName().getStringRef() : "", ""});
}

Value PlacementGraph::namedArgument(Value v) {
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
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != &region.getBodyBlock())
    return nullptr;
  Value outside = region.getArgs()[arg.getArgNumber()];
  return argumentName(outside) ? outside : Value();
}

void PlacementGraph::remarkStrategy(Operation *op, const Strategy &s) {
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
  diag << "; " << formatNumber("%.0f", s.flops) << " flops per device";
}
