//===- DTensorToShard.cpp - dtensor IR -> local tensors + shard ops -------===//
//
// One dialect conversion: the type converter maps each DTensor to the local
// tensor a rank holds, and every dtensor op has a pattern. Meshes are read
// once, before anything is converted, so no pattern depends on another's
// output (no half-converted module, no names read back from attributes).
//
//===----------------------------------------------------------------------===//

#include "hp/Conversion/Passes.h"

#include "hp/Conversion/DTensorToShard/PlanHook.h"
#include "hp/Conversion/DTensorToShard/RedistributeEmitter.h"
#include "hp/Dialect/DTensor/Planning/PlanAttrs.h"
#include "hp/Dialect/DTensor/Transforms/Passes.h"
#include "hp/Dialect/DTensor/Utils/PlanChecker.h"
#include "hp/Support/PassCounts.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/raw_ostream.h"

namespace hp {
#define GEN_PASS_DEF_CONVERTDTENSORTOSHARD
#include "hp/Conversion/Passes.h.inc"
} // namespace hp

using namespace mlir;
using namespace hp::dtensor;

static constexpr llvm::StringLiteral kShardingAttrName =
    hp::dtensor::DTensorDialect::ShardingAttrHelper::getNameStr();

namespace {

/// The meshes of a module by name, read before conversion starts.
struct MeshTable {
  llvm::DenseMap<StringAttr, MeshInfo> meshes;
  const MeshInfo *lookup(FlatSymbolRefAttr name) const {
    auto it = meshes.find(name.getAttr());
    return it == meshes.end() ? nullptr : &it->second;
  }
};

plan::Problem problemOf(RedistributeOp op, const MeshInfo &mesh) {
  DTensorType from = op.getInput().getType(), to = op.getType();
  plan::Problem problem =
      planTensor(RankedTensorType::get(from.getShape(), from.getElementType()),
                 mesh.shape);
  problem.source = toPlanPlacements(from.getPlacements());
  problem.target = toPlanPlacements(to.getPlacements());
  return problem;
}

std::string describe(const plan::Problem &problem, const plan::Plan &plan) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << plan::placementsToString(problem.source) << " -> "
     << plan::placementsToString(problem.target) << ": " << plan.str();
  return s;
}

/// Plans (and checks) redistributes; shared by the pass's up-front walk and
/// the pattern, so each redistribute is planned once.
struct Planner {
  explicit Planner(std::shared_ptr<const MeshTable> tablePtr)
      : tablePtr(std::move(tablePtr)), table(*this->tablePtr) {}

  std::shared_ptr<const MeshTable> tablePtr;
  const MeshTable &table;
  plan::Options options;
  bool printPlans = false;
  bool verifyPlans = false;
  /// Test hook (PlanHook.h): called on every plan before it is checked.
  hp::PlanHook hook;
  /// Called once per planned redistribute (pass statistics).
  std::function<void(const plan::Plan &)> onPlan;
  llvm::DenseMap<Operation *, plan::Plan> plans;

  /// The plan of `op`, or failure after an error on `op`.
  FailureOr<plan::Plan> get(RedistributeOp op) {
    if (auto it = plans.find(op); it != plans.end())
      return it->second;
    DTensorType from = op.getInput().getType();
    const MeshInfo *mesh = table.lookup(from.getMesh());
    if (!mesh)
      return op.emitOpError("names a mesh that does not exist");
    if (llvm::any_of(from.getShape(), ShapedType::isDynamic))
      return op.emitOpError("cannot lower a redistribute of a dynamic global "
                            "shape: the planner and the padding need static "
                            "sizes");
    plan::Problem problem = problemOf(op, *mesh);
    std::optional<plan::Plan> plan = plan::planRedistribute(problem, options);
    if (!plan) // Only P(a) -> P(b), which the verifier rejects.
      return op.emitOpError("has no plan: ")
             << plan::placementsToString(problem.source) << " -> "
             << plan::placementsToString(problem.target);
    if (hook)
      hook(problem, *plan);
    if (printPlans)
      // By location: the op itself would be printed after each remark.
      mlir::emitRemark(op.getLoc())
          << "plan " << describe(problem, *plan) << "\n"
          << plan->describe();
    if (onPlan)
      onPlan(*plan);
    if (verifyPlans) {
      if (!plan::isCheckable(problem))
        op.emitWarning("plan not checked: the tensor is too large to "
                       "simulate on every device");
      else if (std::string error = plan::checkPlan(problem, plan->steps);
               !error.empty())
        return op.emitOpError("plan failed its check (")
               << error << "): " << describe(problem, *plan);
    }
    plans[op] = *plan;
    return *plan;
  }
};

struct MeshToGrid : OpConversionPattern<MeshOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MeshOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    auto grid =
        b.replaceOpWithNewOp<shard::GridOp>(op, op.getSymName(), op.getShape());
    if (auto names = op.getNamesAttr())
      DTensorDialect::AxisNamesAttrHelper(getContext()).setAttr(grid, names);
    if (auto devices = op.getDevicesAttr())
      DTensorDialect::DevicesAttrHelper(getContext()).setAttr(grid, devices);
    return success();
  }
};

struct RedistributeToShard : OpConversionPattern<RedistributeOp> {
  RedistributeToShard(TypeConverter &converter, MLIRContext *ctx,
                      std::shared_ptr<Planner> planner)
      : OpConversionPattern(converter, ctx), planner(std::move(planner)) {}

  LogicalResult matchAndRewrite(RedistributeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    FailureOr<plan::Plan> plan = planner->get(op);
    if (failed(plan))
      return failure();
    const MeshInfo &mesh = *planner->table.lookup(op.getType().getMesh());
    Type toLocal = getTypeConverter()->convertType(op.getType());
    if (!toLocal)
      return failure();
    Value result =
        emitRedistribute(b, op.getLoc(), op.getType().getMesh(),
                         problemOf(op, mesh), *plan, adaptor.getInput());
    if (!tensor::CastOp::areCastCompatible(result.getType(), toLocal))
      return op.emitOpError("plan ends in ")
             << result.getType() << ", not the target's local type " << toLocal
             << " (run with verify-plans to check the plan)";
    if (result.getType() != toLocal)
      result = tensor::CastOp::create(b, op.getLoc(), toLocal, result);
    b.replaceOp(op, result);
    return success();
  }

  std::shared_ptr<Planner> planner;
};

template <typename OpTy> struct DropLocal : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // After conversion both sides are the same local tensor.
    Type converted = this->getTypeConverter()->convertType(op.getType());
    if (adaptor.getInput().getType() != converted)
      return rewriter.notifyMatchFailure(op, "local types differ");
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

/// Mesh axis names -> grid axis indices, in the listed order.
DenseI16ArrayAttr gridAxes(MLIRContext *ctx, const MeshInfo &mesh,
                           ArrayRef<StringRef> names) {
  SmallVector<int16_t> axes;
  for (StringRef name : names)
    axes.push_back(static_cast<int16_t>(mesh.getAxisIndex(name)));
  return DenseI16ArrayAttr::get(ctx, axes);
}

shard::ReductionKindAttr reductionKind(MLIRContext *ctx, ReduceOp op) {
  return shard::ReductionKindAttr::get(ctx, toShardReduction(op));
}

/// The axis-named collectives map one to one onto the shard op of the same
/// name; the mesh symbol is the grid's.
template <typename OpTy>
struct AxisCollectiveToShard : OpConversionPattern<OpTy> {
  AxisCollectiveToShard(TypeConverter &converter, MLIRContext *ctx,
                        const MeshTable &table)
      : OpConversionPattern<OpTy>(converter, ctx), table(table) {}

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    const MeshInfo *mesh = table.lookup(op.getMeshAttr());
    if (!mesh)
      return b.notifyMatchFailure(op, "unknown mesh");
    SmallVector<StringRef> names;
    for (Attribute name : op.getAxes())
      names.push_back(cast<StringAttr>(name).getValue());
    DenseI16ArrayAttr axes = gridAxes(op.getContext(), *mesh, names);
    if (llvm::is_contained(axes.asArrayRef(), -1))
      return b.notifyMatchFailure(op, "unknown axis");
    Location loc = op.getLoc();
    Value result;
    if constexpr (std::is_same_v<OpTy, AllGatherOp>)
      result = shard::AllGatherOp::create(
          b, loc, op.getType(), op.getMeshAttr(), axes, adaptor.getInput(),
          op.getGatherAxisAttr());
    else if constexpr (std::is_same_v<OpTy, AllReduceOp>)
      result = shard::AllReduceOp::create(
          b, loc, op.getType(), op.getMeshAttr(), axes, adaptor.getInput(),
          reductionKind(op.getContext(), op.getReduction()));
    else if constexpr (std::is_same_v<OpTy, ReduceScatterOp>)
      result = shard::ReduceScatterOp::create(
          b, loc, op.getType(), op.getMeshAttr(), axes, adaptor.getInput(),
          reductionKind(op.getContext(), op.getReduction()),
          op.getScatterAxisAttr());
    else if constexpr (std::is_same_v<OpTy, AllToAllOp>)
      result = shard::AllToAllOp::create(
          b, loc, op.getType(), op.getMeshAttr(), axes, adaptor.getInput(),
          op.getSplitAxisAttr(), op.getConcatAxisAttr());
    else
      result = shard::ShiftOp::create(
          b, loc, op.getType(), op.getMeshAttr(), axes, adaptor.getInput(),
          b.getIndexAttr(axes[0]), op.getOffsetAttr(), op.getRotateAttr());
    b.replaceOp(op, result);
    return success();
  }

  const MeshTable &table;
};

struct AxisIndexToShard : OpConversionPattern<AxisIndexOp> {
  AxisIndexToShard(TypeConverter &converter, MLIRContext *ctx,
                   const MeshTable &table)
      : OpConversionPattern(converter, ctx), table(table) {}

  LogicalResult matchAndRewrite(AxisIndexOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    const MeshInfo *mesh = table.lookup(op.getMeshAttr());
    if (!mesh || mesh->getAxisIndex(op.getAxis()) < 0)
      return b.notifyMatchFailure(op, "unknown mesh or axis");
    b.replaceOpWithNewOp<shard::ProcessMultiIndexOp>(
        op, TypeRange{b.getIndexType()}, op.getMeshAttr(),
        gridAxes(op.getContext(), *mesh, {op.getAxis()}));
    return success();
  }

  const MeshTable &table;
};

/// Records the global layout of every DTensor boundary value.
void annotateBoundaries(FunctionOpInterface fn) {
  auto attrFor = [&](Type type) -> Attribute {
    auto dtensor = dyn_cast<DTensorType>(type);
    if (!dtensor)
      return {};
    return ShardingAttr::get(fn.getContext(), dtensor.getMesh(),
                             dtensor.getPlacements(), dtensor.getShape());
  };
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes()))
    if (Attribute attr = attrFor(type))
      fn.setArgAttr(i, kShardingAttrName, attr);
  for (auto [i, type] : llvm::enumerate(fn.getResultTypes()))
    if (Attribute attr = attrFor(type))
      fn.setResultAttr(i, kShardingAttrName, attr);
}

bool hasDTensor(TypeRange types) {
  return llvm::any_of(types, llvm::IsaPred<DTensorType>);
}

MeshTable readMeshes(ModuleOp module) {
  MeshTable table;
  for (MeshOp mesh : module.getOps<MeshOp>())
    table.meshes[mesh.getSymNameAttr()] = getMeshInfo(mesh);
  // dtensor ops may also name a static shard.grid directly.
  for (shard::GridOp grid : module.getOps<shard::GridOp>())
    if (MeshInfo info = getMeshInfo(grid))
      table.meshes[grid.getSymNameAttr()] = info;
  return table;
}

void addPatterns(TypeConverter &converter, RewritePatternSet &patterns,
                 const MeshTable &table, std::shared_ptr<Planner> planner) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<MeshToGrid>(converter, ctx);
  patterns.add<RedistributeToShard>(converter, ctx, std::move(planner));
  patterns.add<DropLocal<FromLocalOp>, DropLocal<ToLocalOp>>(converter, ctx);
  patterns.add<
      AxisCollectiveToShard<AllGatherOp>, AxisCollectiveToShard<AllReduceOp>,
      AxisCollectiveToShard<ReduceScatterOp>, AxisCollectiveToShard<AllToAllOp>,
      AxisCollectiveToShard<ShiftOp>, AxisIndexToShard>(converter, ctx, table);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 converter);
  populateCallOpTypeConversionPattern(patterns, converter);
  populateReturnOpTypeConversionPattern(patterns, converter);
  scf::populateSCFStructuralTypeConversions(converter, patterns);
}

ConversionTarget makeTarget(MLIRContext *ctx, TypeConverter &converter) {
  ConversionTarget target(*ctx);
  target.addIllegalDialect<DTensorDialect>();
  // Scans and sorts on local tensors are compute, lowered later
  // (dtensor-lower-scans, dtensor-lower-sorts).
  target.addDynamicallyLegalOp<ScanOp, SortOp>(
      [&converter](Operation *op) { return converter.isLegal(op); });
  target.markUnknownOpDynamicallyLegal([&converter](Operation *op) {
    if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
      // Functions with other signature types (llvm.func) carry no DTensor.
      auto type = dyn_cast<FunctionType>(fn.getFunctionType());
      return (!type || converter.isSignatureLegal(type)) &&
             converter.isLegal(&fn.getFunctionBody());
    }
    return converter.isLegal(op);
  });
  return target;
}

struct ConvertDTensorToShardPass
    : hp::impl::ConvertDTensorToShardBase<ConvertDTensorToShardPass> {
  using Base::Base;
  ConvertDTensorToShardPass(hp::ConvertDTensorToShardOptions options,
                            hp::PlanHook hook)
      : Base(std::move(options)), hook(std::move(hook)) {}
  void runOnOperation() override;

  hp::PlanHook hook;
};

} // namespace

/// DTensor -> the local type on its mesh; `missingMesh` is set for a
/// DTensor on a mesh the module lacks.
void addTypeConversion(TypeConverter &converter,
                       std::shared_ptr<const MeshTable> table,
                       bool *missingMesh) {
  converter.addConversion([](Type type) { return type; });
  converter.addConversion([table, missingMesh](
                              DTensorType type) -> std::optional<Type> {
    const MeshInfo *mesh = table->lookup(type.getMesh());
    if (!mesh) {
      if (missingMesh)
        *missingMesh = true;
      return std::nullopt;
    }
    // A placement list that does not fit the mesh has no local type (the
    // pass reports it before converting).
    if (static_cast<int64_t>(type.getPlacements().size()) != mesh->getRank())
      return std::nullopt;
    return getLocalType(type, *mesh);
  });
}

void hp::populateDTensorToShardConversion(ModuleOp module,
                                          TypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          const plan::Options &options) {
  auto table = std::make_shared<const MeshTable>(readMeshes(module));
  addTypeConversion(converter, table, /*missingMesh=*/nullptr);
  auto planner = std::make_shared<Planner>(table);
  planner->options = options;
  addPatterns(converter, patterns, *table, planner);
}

void ConvertDTensorToShardPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();

  // Every DTensor type must fit its mesh (a grid-only module has no
  // dtensor.mesh to check them at verification).
  if (failed(verifyDTensorTypesOutsideDTensorOps(module)))
    return signalPassFailure();

  // Say precisely what is in the way before converting anything.
  WalkResult blocked = module.walk([&](Operation *op) {
    if (isa<LocalRegionOp>(op)) {
      op->emitOpError("cannot be converted; run "
                      "dtensor-expand-local-regions first");
      return WalkResult::interrupt();
    }
    if (op->getDialect() && isa<DTensorDialect>(op->getDialect()))
      return WalkResult::advance();
    if (isa<func::ReturnOp, func::CallOp, FunctionOpInterface>(op) ||
        op->getName().getDialectNamespace() == "scf")
      return WalkResult::advance();
    if (hasDTensor(op->getOperandTypes()) || hasDTensor(op->getResultTypes())) {
      op->emitOpError("cannot be converted: it takes or returns a DTensor; "
                      "only dtensor ops, functions, calls, returns and scf "
                      "control flow may carry DTensors");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (blocked.wasInterrupted())
    return signalPassFailure();

  plan::Options options;
  options.latencyBytes = static_cast<double>(latencyBytes);
  options.axisWeights.assign(axisWeights.begin(), axisWeights.end());
  if (std::string why = plan::invalidOptions(options); !why.empty()) {
    module.emitError(why);
    return signalPassFailure();
  }

  auto table = std::make_shared<const MeshTable>(readMeshes(module));
  // A weight for an axis no mesh has is a mistake, not a no-op.
  int64_t maxRank = 0;
  for (auto &entry : table->meshes)
    maxRank = std::max(maxRank, entry.second.getRank());
  if (!table->meshes.empty() &&
      static_cast<int64_t>(options.axisWeights.size()) > maxRank) {
    module.emitError() << "axis-weights has " << options.axisWeights.size()
                       << " entries, but no mesh has more than " << maxRank
                       << " axes";
    return signalPassFailure();
  }
  auto planner = std::make_shared<Planner>(table);
  planner->options = options;
  planner->printPlans = printPlans;
  planner->verifyPlans = verifyPlans;
  planner->hook = hook;
  // Totals for hp's pass counts (--mlir-pass-statistics) and the
  // print-totals remark.
  int64_t redistributes = 0, collectives = 0;
  double bytes = 0;
  planner->onPlan = [&](const plan::Plan &plan) {
    ++redistributes;
    collectives += plan.numCollectives;
    for (const plan::Step &step : plan.steps)
      bytes += step.bytes;
  };
  bool missingMesh = false;
  TypeConverter converter;
  addTypeConversion(converter, table, &missingMesh);
  RewritePatternSet patterns(ctx);
  addPatterns(converter, patterns, *table, planner);
  FrozenRewritePatternSet frozen(std::move(patterns));
  ConversionTarget target = makeTarget(ctx, converter);

  // One function at a time keeps the conversion's bookkeeping and the plans
  // held at once small. Each function's redistributes are planned first:
  // errors and remarks come in program order, and a refused plan leaves its
  // function unconverted (the others are still planned, to report theirs).
  bool failedAny = false;
  for (Operation &op : llvm::make_early_inc_range(module.getOps())) {
    if (isa<MeshOp>(op))
      continue;
    bool failedPlan = false;
    op.walk([&](RedistributeOp r) { failedPlan |= failed(planner->get(r)); });
    failedAny |= failedPlan;
    if (failedAny)
      continue;
    if (auto fn = dyn_cast<FunctionOpInterface>(op))
      annotateBoundaries(fn);
    failedAny |= failed(applyPartialConversion(&op, target, frozen));
    planner->plans.clear();
  }
  // Meshes last: every pattern above read them from the table.
  if (!failedAny)
    for (MeshOp mesh : llvm::make_early_inc_range(module.getOps<MeshOp>()))
      failedAny |= failed(applyPartialConversion(mesh, target, frozen));
  if (failedAny || missingMesh) {
    if (missingMesh)
      module.emitError("convert-dtensor-to-shard: a DTensor names a mesh "
                       "that does not exist");
    return signalPassFailure();
  }
  hp::reportPassCount(*this, "redistributes", "Redistributes planned",
                      redistributes);
  hp::reportPassCount(*this, "collectives", "Collectives in the plans",
                      collectives);
  hp::reportPassCount(*this, "bytes-per-rank",
                      "Bytes one rank sends, summed over the plans",
                      static_cast<uint64_t>(bytes));
  if (printTotals)
    mlir::emitRemark(module.getLoc())
        << "convert-dtensor-to-shard planned " << redistributes
        << (redistributes == 1 ? " redistribute: " : " redistributes: ")
        << collectives
        << (collectives == 1 ? " collective, " : " collectives, ")
        << plan::humanBytes(bytes) << " sent per rank in all";
}

std::unique_ptr<Pass> hp::createConvertDTensorToShardWithPlanHook(
    ConvertDTensorToShardOptions options, PlanHook hook) {
  return std::make_unique<ConvertDTensorToShardPass>(std::move(options),
                                                     std::move(hook));
}
