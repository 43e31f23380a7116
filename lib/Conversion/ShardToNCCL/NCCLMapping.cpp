//===- NCCLMapping.cpp - what of shard NCCL can carry ---------------------===//
//
// NCCL's reductions and data types for shard's, and the checks that report,
// located, what hp cannot lower before convert-shard-to-nccl rewrites
// anything.
//
//===----------------------------------------------------------------------===//

#include "NCCLMapping.h"

#include "ShardQueries.h"

#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace hp::nccl;
using hp::accumulatorType;
using hp::toRedOp;

std::optional<RedOp> hp::toRedOp(shard::ReductionKind kind) {
  switch (kind) {
  case shard::ReductionKind::Sum:
    return RedOp::Sum;
  case shard::ReductionKind::Product:
    return RedOp::Prod;
  case shard::ReductionKind::Max:
    return RedOp::Max;
  case shard::ReductionKind::Min:
    return RedOp::Min;
  case shard::ReductionKind::Average:
    return RedOp::Avg;
  default:
    return std::nullopt;
  }
}

/// The element type a reduction accumulates in: the wider of its input's and
/// its result's (upstream lets them differ, e.g. f32 -> f64), and for
/// integers NCCL lacks (i16) the next one it has.
Type hp::accumulatorType(Type input, Type result) {
  Type in = getElementTypeOrSelf(input), out = getElementTypeOrSelf(result);
  Type acc =
      in.getIntOrFloatBitWidth() > out.getIntOrFloatBitWidth() ? in : out;
  if (getNCCLDataType(acc) >= 0)
    return acc;
  if (auto i = dyn_cast<IntegerType>(acc); i && i.getWidth() < 64)
    return IntegerType::get(acc.getContext(), i.getWidth() <= 32 ? 32 : 64);
  return acc;
}

/// An error unless NCCL has a data type for `type`'s elements.
static LogicalResult checkNCCLType(Operation *op, Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || getNCCLDataType(shaped.getElementType()) >= 0)
    return success();
  return op->emitOpError() << "element type " << shaped.getElementType()
                           << " has no NCCL data type";
}

/// The element types a collective moves or reduces (in its accumulator
/// type), and its reduction, have NCCL equivalents.
static LogicalResult checkElementTypes(Operation *op) {
  if (isa<shard::AllReduceOp, shard::ReduceOp, shard::ReduceScatterOp>(op)) {
    Type in = getElementTypeOrSelf(op->getOperand(0).getType());
    Type out = getElementTypeOrSelf(op->getResult(0).getType());
    if (!in.isIntOrFloat() || !out.isIntOrFloat())
      return op->emitOpError() << "reduces " << in << " into " << out
                               << "; NCCL reduces integers and floats only";
    if (failed(checkNCCLType(
            op, RankedTensorType::get({}, accumulatorType(in, out)))))
      return failure();
  } else if (auto halo = dyn_cast<shard::UpdateHaloOp>(op)) {
    // Its halo sizes are not data.
    if (failed(checkNCCLType(op, halo.getDestination().getType())))
      return failure();
  } else {
    for (Type t : op->getOperandTypes())
      if (failed(checkNCCLType(op, t)))
        return failure();
  }
  auto reduction = op->getAttrOfType<shard::ReductionKindAttr>("reduction");
  if (reduction && !toRedOp(reduction.getValue()))
    return op->emitOpError()
           << "reduction '"
           << shard::stringifyReductionKind(reduction.getValue())
           << "' has no NCCL equivalent";
  return success();
}

/// Axis lists in range and without repeats (upstream's verifiers leave
/// these unchecked).
static LogicalResult checkAxes(Operation *op, FlatSymbolRefAttr gridName,
                               ArrayRef<ArrayRef<int16_t>> lists) {
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, gridName);
  if (!grid)
    return success(); // the symbol verifier reports it
  llvm::SmallDenseSet<int16_t> seen;
  for (ArrayRef<int16_t> list : lists)
    for (int16_t a : list) {
      if (a < 0 || a >= grid.getRank())
        return op->emitOpError()
               << "splits along grid axis " << a << ", but @"
               << grid.getSymName() << " has " << grid.getRank() << " axes";
      if (!seen.insert(a).second)
        return op->emitOpError() << "lists grid axis " << a << " twice";
    }
  return success();
}

/// A (lower, upper) halo pair, not negative, per split dim.
static LogicalResult checkUpdateHalo(shard::UpdateHaloOp op) {
  SmallVector<ArrayRef<int16_t>> lists;
  for (shard::GridAxesAttr axes : op.getSplitAxes().getAxes())
    lists.push_back(axes.asArrayRef());
  if (failed(checkAxes(op, op.getGridAttr(), lists)))
    return failure();
  auto type = cast<ShapedType>(op.getDestination().getType());
  int64_t splitDims = 0;
  for (auto [d, axes] : llvm::enumerate(op.getSplitAxes().getAxes()))
    if (!axes.empty() && static_cast<int64_t>(d) < type.getRank())
      ++splitDims;
  int64_t halos = op.getStaticHaloSizes().size();
  if (halos != 2 * splitDims)
    return op.emitOpError()
           << "has " << halos << " halo sizes for " << splitDims
           << " split dims; it needs a (lower, upper) pair per split dim";
  for (int64_t size : op.getStaticHaloSizes())
    if (!ShapedType::isDynamic(size) && size < 0)
      return op.emitOpError() << "has a negative halo size " << size;
  return success();
}

/// A static split dim divides into one block per group member.
static LogicalResult checkAllToAll(shard::AllToAllOp op) {
  int64_t split = op.getSplitAxis().getSExtValue();
  int64_t size = op.getInput().getType().getDimSize(split);
  auto grid =
      SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, op.getGridAttr());
  int64_t n = shard::collectiveProcessGroupSize(op.getGridAxes(), grid);
  if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(n) &&
      size % n != 0)
    return op.emitOpError()
           << "splits dim " << split << " of size " << size << " into " << n
           << " blocks, one per group member; the size must be a multiple "
              "of the group size";
  return success();
}

/// What hp cannot lower, reported where it is before anything is
/// rewritten; the patterns take the rest as given.
LogicalResult hp::checkNCCLLowerable(Operation *op) {
  if (auto n = dyn_cast<shard::NeighborsLinearIndicesOp>(op))
    if (failed(checkAxes(op, n.getGridAttr(), {n.getSplitAxes()})))
      return failure();
  if (isa_and_present<shard::ShardDialect>(op->getDialect()) &&
      !isa<shard::GridOp>(op) && failed(checkElementTypes(op)))
    return failure();
  if (auto r = dyn_cast<shard::RecvOp>(op); r && !r.getSource())
    return op->emitOpError("needs a source to lower to ncclRecv");
  if (auto h = dyn_cast<shard::UpdateHaloOp>(op))
    return checkUpdateHalo(h);
  if (auto a = dyn_cast<shard::AllToAllOp>(op))
    return checkAllToAll(a);
  return hp::checkShardQuery(op);
}
