//===- ShardQueries.cpp - shard ops that are not collectives --------------===//
//
// Partitioned programs hold a few shard ops besides the collectives: queries
// of the grid (grid_shape, neighbors_linear_indices), of a sharding
// (shard_shape), and the sharding values themselves, which upstream's
// partitioner leaves in signatures. The queries become index arithmetic;
// sharding values only describe layouts, so the type converter drops them
// and the ops that make or apply them go away.
//
//===----------------------------------------------------------------------===//

#include "ShardQueries.h"

#include "hp/Dialect/NCCL/IR/NCCL.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace {

bool isSharding(Type t) { return isa<shard::ShardingType>(t); }

Value constIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value asIndex(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isIndex())
    return v;
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

shard::GridOp gridOf(Operation *op, FlatSymbolRefAttr name) {
  return SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, name);
}

/// The size of each of `axes`: a constant, or for an axis sized at launch
/// the size of its one-axis communicator.
SmallVector<Value> axisSizes(OpBuilder &b, Location loc, shard::GridOp grid,
                             ArrayRef<int16_t> axes) {
  SmallVector<Value> sizes;
  for (int16_t a : axes) {
    int64_t n = grid.getShape()[a];
    if (!ShapedType::isDynamic(n)) {
      sizes.push_back(constIndex(b, loc, n));
      continue;
    }
    Value comm = hp::nccl::CommOp::create(
        b, loc, hp::nccl::CommType::get(b.getContext()),
        FlatSymbolRefAttr::get(grid.getSymNameAttr()),
        b.getDenseI16ArrayAttr({a}));
    sizes.push_back(
        hp::nccl::CommSizeOp::create(b, loc, b.getIndexType(), comm));
  }
  return sizes;
}

SmallVector<int16_t> allAxes(shard::GridOp grid) {
  SmallVector<int16_t> axes;
  for (int64_t a = 0; a < grid.getRank(); ++a)
    axes.push_back(a);
  return axes;
}

/// Row-major linear index of `index` (one value per entry of `sizes`).
Value linearize(OpBuilder &b, Location loc, ArrayRef<Value> index,
                ArrayRef<Value> sizes) {
  return affine::AffineLinearizeIndexOp::create(b, loc, index,
                                                ValueRange(sizes));
}

Value product(OpBuilder &b, Location loc, ArrayRef<Value> sizes) {
  Value n = constIndex(b, loc, 1);
  for (Value s : sizes)
    n = arith::MulIOp::create(b, loc, n, s);
  return n;
}

/// grid_shape: the sizes of the listed axes (all axes when none is listed).
struct GridShapeLowering : OpConversionPattern<shard::GridShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(shard::GridShapeOp op, OpAdaptor,
                                ConversionPatternRewriter &b) const override {
    // Dead queries (upstream's partitioner leaves some) need no sizes.
    if (op->use_empty()) {
      b.eraseOp(op);
      return success();
    }
    shard::GridOp grid = gridOf(op, op.getGridAttr());
    SmallVector<int16_t> axes(op.getAxes());
    if (axes.empty())
      axes = allAxes(grid);
    b.replaceOp(op, axisSizes(b, op.getLoc(), grid, axes));
    return success();
  }
};

/// neighbors_linear_indices: the linear indices of the devices one step
/// down and up in the group of `split_axes` (row-major over the listed axes,
/// as hp's groups are), -1 past either end. Upstream defines it for one
/// axis; several axes step through their combined group.
struct NeighborsLowering
    : OpConversionPattern<shard::NeighborsLinearIndicesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(shard::NeighborsLinearIndicesOp op, OpAdaptor a,
                                ConversionPatternRewriter &b) const override {
    shard::GridOp grid = gridOf(op, op.getGridAttr());
    ArrayRef<int16_t> axes = op.getSplitAxes();
    Location loc = op.getLoc();
    SmallVector<Value> shape = axisSizes(b, loc, grid, allAxes(grid));
    SmallVector<Value> device(a.getDevice());
    SmallVector<Value> groupSizes, groupIndex;
    for (int16_t a : axes) {
      groupSizes.push_back(shape[a]);
      groupIndex.push_back(device[a]);
    }
    Value g = linearize(b, loc, groupIndex, groupSizes);
    // The device whose group index is `target`, other coordinates unchanged.
    auto deviceAt = [&](Value target) {
      SmallVector<Value> coord = device;
      auto digits = affine::AffineDelinearizeIndexOp::create(
          b, loc, target, ValueRange(groupSizes));
      for (auto [a, digit] : llvm::zip(axes, digits.getResults()))
        coord[a] = digit;
      return linearize(b, loc, coord, shape);
    };
    Value one = constIndex(b, loc, 1), minusOne = constIndex(b, loc, -1);
    Value zero = constIndex(b, loc, 0);
    // Clamp before stepping so that no index leaves the grid, then select.
    Value hasDown =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, g, zero);
    Value downIndex = arith::SelectOp::create(
        b, loc, hasDown, arith::SubIOp::create(b, loc, g, one), g);
    Value last =
        arith::SubIOp::create(b, loc, product(b, loc, groupSizes), one);
    Value hasUp =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, g, last);
    Value upIndex = arith::SelectOp::create(
        b, loc, hasUp, arith::AddIOp::create(b, loc, g, one), g);
    Value down =
        arith::SelectOp::create(b, loc, hasDown, deviceAt(downIndex), minusOne);
    Value up =
        arith::SelectOp::create(b, loc, hasUp, deviceAt(upIndex), minusOne);
    b.replaceOp(op, ValueRange{down, up});
    return success();
  }
};

/// The sharding a shard_shape asks about, if hp can read it: defined by a
/// shard.sharding op.
shard::ShardingOp shardingOf(shard::ShardShapeOp op) {
  return op.getSharding().getDefiningOp<shard::ShardingOp>();
}

/// The grid positions each split dim of `sharding` is split over (static
/// grids only), for sharded_dims_offsets: n + 1 offsets per split dim.
int64_t positionsOf(shard::GridOp grid, ArrayRef<int16_t> axes) {
  int64_t n = 1;
  for (int16_t a : axes)
    n *= grid.getShape()[a];
  return n;
}

/// What a shard_shape needs to be lowered: a sharding hp can read, in range,
/// one device index per grid axis, and enough offsets.
LogicalResult checkShardShape(shard::ShardShapeOp op) {
  shard::ShardingOp sharding = shardingOf(op);
  if (!sharding)
    return op.emitOpError("needs its sharding defined by a shard.sharding op "
                          "in the same function; a sharding passed in as an "
                          "argument has no runtime value in hp");
  shard::GridOp grid = gridOf(sharding, sharding.getGridAttr());
  // Upstream's sharding verifier refuses repeated axes but not axes out of
  // range.
  auto splitAxes = sharding.getSplitAxes().getAxes();
  for (shard::GridAxesAttr axes : splitAxes)
    for (int16_t a : axes.asArrayRef())
      if (a < 0 || a >= grid.getRank())
        return op.emitOpError() << "has a sharding that splits along grid axis "
                                << a << ", but @" << grid.getSymName()
                                << " has " << grid.getRank() << " axes";
  int64_t devices = op.getDevice().size();
  if (devices != grid.getRank())
    return op.emitOpError()
           << "takes one device index per axis of @" << grid.getSymName()
           << " (" << grid.getRank() << "), got " << devices;
  int64_t offsets = sharding.getStaticShardedDimsOffsets().size();
  if (offsets == 0)
    return success();
  // The verifier allows offsets only on static grids.
  int64_t needed = 0;
  for (int64_t d = 0,
               e = std::min<int64_t>(op.getDims().size(), splitAxes.size());
       d < e; ++d)
    if (!splitAxes[d].empty())
      needed += positionsOf(grid, splitAxes[d].asArrayRef()) + 1;
  if (needed > offsets)
    return op.emitOpError("sharded_dims_offsets of its sharding are too "
                          "short for the split dims");
  return success();
}

/// shard_shape: each dim's size on `device` under a sharding defined in the
/// same function. Upstream's definition: a dim split over n shards has
/// size/n elements, the last size%n shards one more; with
/// sharded_dims_offsets, the difference of consecutive offsets.
/// A rewrite pattern, not a conversion one: it reads the shard.sharding op
/// that defines its sharding operand, a value of the type the conversion
/// drops (an adaptor holds no value for it).
struct ShardShapeLowering : OpRewritePattern<shard::ShardShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(shard::ShardShapeOp op,
                                PatternRewriter &b) const override {
    shard::ShardingOp sharding = shardingOf(op);
    shard::GridOp grid = gridOf(sharding, sharding.getGridAttr());
    Location loc = op.getLoc();
    auto values = [&](ArrayRef<int64_t> constants, ValueRange dynamic) {
      return llvm::map_to_vector(
          getMixedValues(constants, dynamic, b.getContext()),
          [&](OpFoldResult f) {
            return asIndex(b, loc, getValueOrCreateConstantIndexOp(b, loc, f));
          });
    };
    SmallVector<Value> dims = values(op.getDims(), op.getDimsDynamic());
    SmallVector<Value> device = values(op.getDevice(), op.getDeviceDynamic());
    SmallVector<Value> offsets =
        values(sharding.getStaticShardedDimsOffsets(),
               sharding.getDynamicShardedDimsOffsets());
    SmallVector<Value> result;
    int64_t position = 0;
    auto splitAxes = sharding.getSplitAxes().getAxes();
    for (auto [d, dim] : llvm::enumerate(dims)) {
      if (d >= splitAxes.size() || splitAxes[d].empty()) {
        result.push_back(dim);
        continue;
      }
      ArrayRef<int16_t> axes = splitAxes[d].asArrayRef();
      SmallVector<Value> sizes = axisSizes(b, loc, grid, axes);
      SmallVector<Value> index;
      for (int16_t a : axes)
        index.push_back(device[a]);
      Value idx = linearize(b, loc, index, sizes);
      if (offsets.empty()) {
        result.push_back(
            evenShardSize(b, loc, dim, product(b, loc, sizes), idx));
        continue;
      }
      int64_t n = positionsOf(grid, axes);
      result.push_back(offsetShardSize(
          b, loc, ArrayRef(offsets).slice(position, n + 1), idx));
      position += n + 1;
    }
    b.replaceOp(op, result);
    return success();
  }

  /// Upstream's even split: `dim` / `count`, one more on the last
  /// `dim` % `count` shards.
  static Value evenShardSize(OpBuilder &b, Location loc, Value dim, Value count,
                             Value idx) {
    Value base = arith::DivUIOp::create(b, loc, dim, count);
    Value extra = arith::RemUIOp::create(b, loc, dim, count);
    Value firstLong = arith::SubIOp::create(b, loc, count, extra);
    Value isLong = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, idx,
                                         firstLong);
    Value add = arith::SelectOp::create(b, loc, isLong, constIndex(b, loc, 1),
                                        constIndex(b, loc, 0));
    return arith::AddIOp::create(b, loc, base, add);
  }

  /// offsets[idx + 1] - offsets[idx]. A static device picks its offsets
  /// directly (after folding); a dynamic one indexes a small select chain.
  static Value offsetShardSize(OpBuilder &b, Location loc,
                               ArrayRef<Value> offsets, Value idx) {
    auto pick = [&](Value i) {
      Value v = offsets.front();
      for (int64_t k = 1, e = offsets.size(); k < e; ++k) {
        Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, i,
                                         constIndex(b, loc, k));
        v = arith::SelectOp::create(b, loc, is, offsets[k], v);
      }
      return v;
    };
    Value next = arith::AddIOp::create(b, loc, idx, constIndex(b, loc, 1));
    return arith::SubIOp::create(b, loc, pick(next), pick(idx));
  }
};

/// shard.shard only annotates: its result is its source.
struct ShardLowering : OpConversionPattern<shard::ShardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(shard::ShardOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    // The sharding operand has become no value at all.
    b.replaceOpWithMultiple(op, {adaptor.getSrc()});
    return success();
  }
};

/// shard.sharding and get_sharding make a sharding value, which the type
/// converter drops: they are replaced by no value.
template <typename OpTy> struct ShardingErasure : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpConversionPattern<OpTy>::OneToNOpAdaptor,
                  ConversionPatternRewriter &b) const override {
    b.replaceOpWithMultiple(op, {ValueRange()});
    return success();
  }
};

/// A function signature without its !shard.sharding arguments and results,
/// which keep their attributes. (Upstream's signature conversion keeps
/// attributes by position, so they would move to other arguments.)
struct SignatureLowering : OpInterfaceConversionPattern<FunctionOpInterface> {
  using OpInterfaceConversionPattern::OpInterfaceConversionPattern;
  LogicalResult matchAndRewrite(FunctionOpInterface fn, ArrayRef<Value>,
                                ConversionPatternRewriter &b) const override {
    auto type = dyn_cast<FunctionType>(fn.getFunctionType());
    if (!type)
      return failure();
    TypeConverter::SignatureConversion signature(type.getNumInputs());
    if (failed(getTypeConverter()->convertSignatureArgs(type.getInputs(),
                                                        signature)) ||
        failed(b.convertRegionTypes(&fn.getFunctionBody(), *getTypeConverter(),
                                    &signature)))
      return failure();
    SmallVector<Type> results;
    SmallVector<DictionaryAttr> argAttrs, resultAttrs;
    for (auto [i, t] : llvm::enumerate(type.getInputs()))
      if (!isSharding(t))
        argAttrs.push_back(fn.getArgAttrDict(i));
    for (auto [i, t] : llvm::enumerate(type.getResults()))
      if (!isSharding(t)) {
        results.push_back(t);
        resultAttrs.push_back(fn.getResultAttrDict(i));
      }
    b.modifyOpInPlace(fn, [&] {
      fn.setType(FunctionType::get(fn.getContext(),
                                   signature.getConvertedTypes(), results));
      fn.setAllArgAttrs(argAttrs);
      fn.setAllResultAttrs(resultAttrs);
    });
    return success();
  }
};

/// Users that a sharding value leaves without a trace: shard.shard and
/// shard_shape read it at compile time; the type conversion drops it from
/// calls, returns and signatures.
bool dropsSharding(Operation *user) {
  return isa<shard::ShardOp, shard::ShardShapeOp, func::ReturnOp, func::CallOp>(
      user);
}

} // namespace

LogicalResult hp::checkShardQuery(Operation *op) {
  for (Value operand : op->getOperands())
    if (isSharding(operand.getType()) && !dropsSharding(op))
      return op->emitOpError("uses a !shard.sharding value; shardings "
                             "describe layouts at compile time and have no "
                             "runtime value in hp");
  if (auto shape = dyn_cast<shard::ShardShapeOp>(op))
    return checkShardShape(shape);
  if (auto n = dyn_cast<shard::NeighborsLinearIndicesOp>(op)) {
    shard::GridOp grid = gridOf(op, n.getGridAttr());
    if (n.getDevice().size() != static_cast<size_t>(grid.getRank()))
      return op->emitOpError()
             << "takes one index per grid axis (" << grid.getRank() << "), got "
             << n.getDevice().size();
  }
  return success();
}

void hp::populateShardQueryPatterns(TypeConverter &converter,
                                    RewritePatternSet &patterns) {
  // !shard.sharding values disappear: 1 -> 0 types.
  converter.addConversion(
      [](shard::ShardingType, SmallVectorImpl<Type> &) { return success(); });
  MLIRContext *ctx = patterns.getContext();
  patterns.add<GridShapeLowering, NeighborsLowering, ShardShapeLowering>(ctx);
  patterns.add<ShardLowering, ShardingErasure<shard::ShardingOp>,
               ShardingErasure<shard::GetShardingOp>>(converter, ctx);
  patterns.add<SignatureLowering>(converter, ctx);
  populateCallOpTypeConversionPattern(patterns, converter);
  populateReturnOpTypeConversionPattern(patterns, converter);
}
