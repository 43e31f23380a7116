//===- Partition.cpp - functions on local tensors -------------------------===//
//
// After expansion and redistribute lowering, DTensor values only cross
// function boundaries (arguments, results, calls) and to_local/from_local
// pairs. A type conversion DTensor -> local tensor removes them; the global
// layout survives as `dtensor.sharding` argument and result attributes.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORPARTITION
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;

static constexpr llvm::StringLiteral kShardingAttrName = "dtensor.sharding";

static bool hasDTensor(TypeRange types) {
  return llvm::any_of(types, llvm::IsaPred<DTensorType>);
}

namespace {

template <typename OpTy>
struct DropLocalConversion : OpConversionPattern<OpTy> {
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
DenseI16ArrayAttr gridAxes(Operation *op, FlatSymbolRefAttr mesh,
                           ArrayAttr names) {
  MeshInfo info = getMeshInfo(SymbolTable::lookupNearestSymbolFrom(op, mesh));
  SmallVector<int16_t> axes;
  for (Attribute name : names)
    axes.push_back(static_cast<int16_t>(
        info.getAxisIndex(cast<StringAttr>(name).getValue())));
  return DenseI16ArrayAttr::get(op->getContext(), axes);
}

shard::ReductionKindAttr reductionKind(MLIRContext *ctx, ReduceOp op) {
  return shard::ReductionKindAttr::get(ctx, toShardReduction(op));
}

/// The axis-named collectives map one to one onto the shard op of the same
/// name; the mesh symbol is the grid's.
template <typename OpTy>
struct AxisCollectiveToShard : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    DenseI16ArrayAttr axes = gridAxes(op, op.getMeshAttr(), op.getAxes());
    if (llvm::is_contained(axes.asArrayRef(), -1))
      return b.notifyMatchFailure(op, "unknown axis");
    Value result;
    if constexpr (std::is_same_v<OpTy, AllGatherOp>)
      result = shard::AllGatherOp::create(b, loc, op.getType(),
                                          op.getMeshAttr(), axes,
                                          adaptor.getInput(),
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
};

struct AxisIndexToShard : OpConversionPattern<AxisIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AxisIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &b) const override {
    DenseI16ArrayAttr axes = gridAxes(
        op, op.getMeshAttr(), b.getStrArrayAttr({op.getAxis()}));
    b.replaceOpWithNewOp<shard::ProcessMultiIndexOp>(
        op, TypeRange{b.getIndexType()}, op.getMeshAttr(), axes);
    return success();
  }
};

struct DTensorPartitionPass
    : hp::dtensor::impl::DTensorPartitionBase<DTensorPartitionPass> {
  void runOnOperation() override;
};

} // namespace

void hp::dtensor::populatePartitionPatterns(RewritePatternSet &patterns,
                                            TypeConverter &converter) {
  patterns.add<DropLocalConversion<FromLocalOp>, DropLocalConversion<ToLocalOp>,
               AxisCollectiveToShard<AllGatherOp>,
               AxisCollectiveToShard<AllReduceOp>,
               AxisCollectiveToShard<ReduceScatterOp>,
               AxisCollectiveToShard<AllToAllOp>,
               AxisCollectiveToShard<ShiftOp>, AxisIndexToShard>(
      converter, patterns.getContext());
}

/// Records the global layout of every DTensor boundary value.
static void annotateBoundaries(FunctionOpInterface fn) {
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

void DTensorPartitionPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();

  // Say precisely what is in the way before converting anything.
  WalkResult blocked = module.walk([&](Operation *op) {
    if (isa<LocalRegionOp>(op)) {
      op->emitOpError("cannot be partitioned; run "
                      "dtensor-expand-local-regions first");
      return WalkResult::interrupt();
    }
    if (isa<RedistributeOp>(op)) {
      op->emitOpError("cannot be partitioned; run "
                      "dtensor-lower-redistribute first");
      return WalkResult::interrupt();
    }
    if (isa<FromLocalOp, ToLocalOp, func::ReturnOp, func::CallOp,
            FunctionOpInterface>(op) ||
        op->getName().getDialectNamespace() == "scf")
      return WalkResult::advance();
    if (hasDTensor(op->getOperandTypes()) || hasDTensor(op->getResultTypes())) {
      op->emitOpError("cannot be partitioned: it takes or returns a DTensor; "
                      "only functions, calls, returns, scf control flow and "
                      "to_local/from_local may carry DTensors here");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (blocked.wasInterrupted())
    return signalPassFailure();

  convertMeshesToGrids(module);

  SymbolTableCollection symbols;
  bool missingMesh = false;
  TypeConverter converter;
  converter.addConversion([](Type type) { return type; });
  converter.addConversion([&](DTensorType type) -> std::optional<Type> {
    MeshInfo mesh = getMeshInfo(
        symbols.lookupSymbolIn(module, type.getMesh().getAttr()));
    if (!mesh) {
      missingMesh = true;
      return std::nullopt;
    }
    return getLocalType(type, mesh);
  });

  module.walk([](FunctionOpInterface fn) { annotateBoundaries(fn); });

  ConversionTarget target(*ctx);
  target.addIllegalOp<FromLocalOp, ToLocalOp, AllGatherOp, AllReduceOp,
                      ReduceScatterOp, AllToAllOp, ShiftOp, AxisIndexOp>();
  target.markUnknownOpDynamicallyLegal([&](Operation *op) {
    if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
      // Functions with other signature types (llvm.func) carry no DTensor.
      auto type = dyn_cast<FunctionType>(fn.getFunctionType());
      return (!type || converter.isSignatureLegal(type)) &&
             converter.isLegal(&fn.getFunctionBody());
    }
    return converter.isLegal(op);
  });

  RewritePatternSet patterns(ctx);
  populatePartitionPatterns(patterns, converter);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 converter);
  populateCallOpTypeConversionPattern(patterns, converter);
  populateReturnOpTypeConversionPattern(patterns, converter);
  scf::populateSCFStructuralTypeConversions(converter, patterns);

  // Converting one function at a time keeps the conversion's bookkeeping
  // small: the whole module at once grows faster than linearly.
  FrozenRewritePatternSet frozen(std::move(patterns));
  bool failedConversion = false;
  for (Operation &op : llvm::make_early_inc_range(module.getOps()))
    if (isa<FunctionOpInterface>(op))
      failedConversion |= failed(applyPartialConversion(&op, target, frozen));
  if (failedConversion || missingMesh) {
    if (missingMesh)
      module.emitError("dtensor-partition: a DTensor names a mesh that does "
                       "not exist");
    return signalPassFailure();
  }
}
