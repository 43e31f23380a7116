//===- ShardQueries.cpp - shard ops that are not collectives --------------===//
//
// Partitioned programs hold a few shard ops besides the collectives: queries
// of the grid (grid_shape, neighbors_linear_indices), of a sharding
// (shard_shape), and the sharding values themselves, which upstream's
// partitioner leaves in signatures. The queries become index arithmetic;
// sharding values only describe layouts, so they are erased.
//
//===----------------------------------------------------------------------===//

#include "ShardQueries.h"

#include "hp/Dialect/NCCL/IR/NCCL.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/TypeSwitch.h"

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
        b.getDenseI64ArrayAttr({a}));
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
LogicalResult lowerGridShape(shard::GridShapeOp op) {
  shard::GridOp grid = gridOf(op, op.getGridAttr());
  SmallVector<int16_t> axes(op.getAxes());
  if (axes.empty())
    for (int64_t a = 0; a < grid.getRank(); ++a)
      axes.push_back(a);
  // Dead queries (upstream's partitioner leaves some) need no sizes.
  if (op->use_empty()) {
    op->erase();
    return success();
  }
  OpBuilder b(op);
  op->replaceAllUsesWith(axisSizes(b, op.getLoc(), grid, axes));
  op->erase();
  return success();
}

/// neighbors_linear_indices: the linear indices of the devices one step
/// down and up in the group of `split_axes` (row-major over the listed axes,
/// as hp's groups are), -1 past either end. Upstream defines it for one
/// axis; several axes step through their combined group.
LogicalResult lowerNeighbors(shard::NeighborsLinearIndicesOp op) {
  shard::GridOp grid = gridOf(op, op.getGridAttr());
  ArrayRef<int16_t> axes = op.getSplitAxes();
  if (op.getDevice().size() != static_cast<size_t>(grid.getRank()))
    return op.emitOpError() << "takes one index per grid axis ("
                            << grid.getRank() << "), got "
                            << op.getDevice().size();
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> shape = axisSizes(b, loc, grid, allAxes(grid));
  SmallVector<Value> device(op.getDevice());
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
  Value last = arith::SubIOp::create(b, loc, product(b, loc, groupSizes), one);
  Value hasUp =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, g, last);
  Value upIndex = arith::SelectOp::create(
      b, loc, hasUp, arith::AddIOp::create(b, loc, g, one), g);
  Value down =
      arith::SelectOp::create(b, loc, hasDown, deviceAt(downIndex), minusOne);
  Value up = arith::SelectOp::create(b, loc, hasUp, deviceAt(upIndex), minusOne);
  op->replaceAllUsesWith(ValueRange{down, up});
  op->erase();
  return success();
}

/// shard_shape: each dim's size on `device` under a sharding defined in the
/// same function. Upstream's definition: a dim split over n shards has
/// size/n elements, the last size%n shards one more; with
/// sharded_dims_offsets, the difference of consecutive offsets.
LogicalResult lowerShardShape(shard::ShardShapeOp op) {
  auto sharding = op.getSharding().getDefiningOp<shard::ShardingOp>();
  if (!sharding)
    return op.emitOpError("needs its sharding defined by a shard.sharding op "
                          "in the same function; a sharding passed in as an "
                          "argument has no runtime value in hp");
  shard::GridOp grid = gridOf(sharding, sharding.getGridAttr());
  // Upstream's sharding verifier refuses repeated axes but not axes out of
  // range.
  for (shard::GridAxesAttr axes : sharding.getSplitAxes().getAxes())
    for (int16_t a : axes.asArrayRef())
      if (a < 0 || a >= grid.getRank())
        return op.emitOpError()
               << "has a sharding that splits along grid axis " << a
               << ", but @" << grid.getSymName() << " has " << grid.getRank()
               << " axes";
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> dims, device;
  for (OpFoldResult f :
       getMixedValues(op.getDims(), op.getDimsDynamic(), b.getContext()))
    dims.push_back(getValueOrCreateConstantIndexOp(b, loc, f));
  for (OpFoldResult f :
       getMixedValues(op.getDevice(), op.getDeviceDynamic(), b.getContext()))
    device.push_back(getValueOrCreateConstantIndexOp(b, loc, f));
  if (device.size() != static_cast<size_t>(grid.getRank()))
    return op.emitOpError() << "takes one device index per axis of @"
                            << grid.getSymName() << " (" << grid.getRank()
                            << "), got " << device.size();
  SmallVector<Value> offsets;
  for (OpFoldResult f : getMixedValues(sharding.getStaticShardedDimsOffsets(),
                                       sharding.getDynamicShardedDimsOffsets(),
                                       b.getContext()))
    offsets.push_back(asIndex(b, loc, getValueOrCreateConstantIndexOp(b, loc, f)));

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
    if (!offsets.empty()) {
      // The verifier allows offsets only on static grids.
      int64_t n = 1;
      for (int16_t a : axes)
        n *= grid.getShape()[a];
      if (position + n + 1 > static_cast<int64_t>(offsets.size()))
        return op.emitOpError("sharded_dims_offsets of its sharding are too "
                              "short for the split dims");
      // A static device picks its offsets directly; a dynamic one indexes a
      // small select chain over the n + 1 offsets of this dim.
      auto pick = [&](Value i) {
        Value v = offsets[position];
        for (int64_t k = 1; k <= n; ++k) {
          Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, i,
                                           constIndex(b, loc, k));
          v = arith::SelectOp::create(b, loc, is, offsets[position + k], v);
        }
        return v;
      };
      Value next = arith::AddIOp::create(b, loc, idx, constIndex(b, loc, 1));
      result.push_back(arith::SubIOp::create(b, loc, pick(next), pick(idx)));
      position += n + 1;
    } else {
      Value count = product(b, loc, sizes);
      Value base = arith::DivUIOp::create(b, loc, dim, count);
      Value extra = arith::RemUIOp::create(b, loc, dim, count);
      Value firstLong = arith::SubIOp::create(b, loc, count, extra);
      Value isLong = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                           idx, firstLong);
      Value add = arith::SelectOp::create(b, loc, isLong, constIndex(b, loc, 1),
                                          constIndex(b, loc, 0));
      result.push_back(arith::AddIOp::create(b, loc, base, add));
    }
  }
  op->replaceAllUsesWith(result);
  op->erase();
  return success();
}

/// The error for a sharding value an op still needs at run time.
LogicalResult refuseUse(Value sharding) {
  Operation *user = *sharding.getUsers().begin();
  return user->emitOpError("uses a !shard.sharding value; shardings describe "
                           "layouts at compile time and have no runtime "
                           "value in hp");
}

/// Erases !shard.sharding values: shard.shard forwards its source, and
/// returns, calls and signatures drop their sharding values; then the
/// sharding and get_sharding ops must be unused.
LogicalResult eraseShardings(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<shard::ShardOp, func::ReturnOp, func::CallOp>(op))
      ops.push_back(op);
  });
  SmallVector<Operation *> placeholders;
  for (Operation *op : ops) {
    if (auto s = dyn_cast<shard::ShardOp>(op)) {
      s.getResult().replaceAllUsesWith(s.getSrc());
      s->erase();
      continue;
    }
    if (!llvm::any_of(op->getOperandTypes(), isSharding) &&
        !llvm::any_of(op->getResultTypes(), isSharding))
      continue;
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      if (!isSharding(v.getType()))
        operands.push_back(v);
    OpBuilder b(op);
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      func::ReturnOp::create(b, ret.getLoc(), operands);
      ret->erase();
      continue;
    }
    auto call = cast<func::CallOp>(op);
    SmallVector<Type> results;
    for (Type t : call.getResultTypes())
      if (!isSharding(t))
        results.push_back(t);
    auto replacement = func::CallOp::create(b, call.getLoc(),
                                            call.getCalleeAttr(), results,
                                            operands);
    unsigned next = 0;
    for (Value r : call.getResults()) {
      if (!isSharding(r.getType())) {
        r.replaceAllUsesWith(replacement.getResult(next++));
        continue;
      }
      // Later returns and calls drop these uses; anything else is refused
      // below.
      if (r.use_empty())
        continue;
      auto placeholder = UnrealizedConversionCastOp::create(
          b, call.getLoc(), r.getType(), ValueRange{});
      r.replaceAllUsesWith(placeholder.getResult(0));
      placeholders.push_back(placeholder);
    }
    call->erase();
  }

  WalkResult signatures = root->walk([&](FunctionOpInterface fn) {
    llvm::BitVector args(fn.getNumArguments()), results(fn.getNumResults());
    for (auto [i, t] : llvm::enumerate(fn.getArgumentTypes()))
      args[i] = isSharding(t);
    for (auto [i, t] : llvm::enumerate(fn.getResultTypes()))
      results[i] = isSharding(t);
    if (args.none() && results.none())
      return WalkResult::advance();
    if (!fn.isExternal())
      for (BlockArgument arg : fn.getArguments())
        if (args[arg.getArgNumber()] && !arg.use_empty()) {
          (void)refuseUse(arg);
          return WalkResult::interrupt();
        }
    if (failed(fn.eraseArguments(args)) || failed(fn.eraseResults(results)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (signatures.wasInterrupted())
    return failure();

  SmallVector<Operation *> definitions;
  root->walk([&](Operation *op) {
    if (isa<shard::ShardingOp, shard::GetShardingOp>(op))
      definitions.push_back(op);
  });
  definitions.append(placeholders.begin(), placeholders.end());
  for (Operation *op : definitions)
    if (!op->use_empty())
      return refuseUse(op->getResult(0));
  for (Operation *op : definitions)
    op->erase();
  return success();
}

} // namespace

LogicalResult hp::lowerShardQueries(Operation *root) {
  SmallVector<Operation *> queries;
  root->walk([&](Operation *op) {
    if (isa<shard::ShardShapeOp, shard::GridShapeOp,
            shard::NeighborsLinearIndicesOp>(op))
      queries.push_back(op);
  });
  for (Operation *op : queries) {
    LogicalResult done =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case([](shard::ShardShapeOp o) { return lowerShardShape(o); })
            .Case([](shard::GridShapeOp o) { return lowerGridShape(o); })
            .Case([](shard::NeighborsLinearIndicesOp o) {
              return lowerNeighbors(o);
            });
    if (failed(done))
      return failure();
  }
  return eraseShardings(root);
}
