//===- CollectiveTotals.cpp - what partitioned IR moves -------------------===//

#include "hp/Analysis/CollectiveTotals.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using hp::dtensor::plan::Collective;

/// The bytes of a statically shaped tensor of integers or floats; none
/// otherwise. An i1 takes a byte, as NCCL moves it.
static std::optional<double> bytesOf(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return std::nullopt;
  Type element = shaped.getElementType();
  if (!element.isIntOrFloat())
    return std::nullopt;
  return static_cast<double>(shaped.getNumElements()) *
         ((element.getIntOrFloatBitWidth() + 7) / 8);
}

/// The ranks in `op`'s group: the product of its grid's sizes on its axes
/// (1 when the grid is missing or the sizes are dynamic: nothing provable
/// moves).
template <typename OpT>
static int64_t groupSizeOf(OpT op, SymbolTableCollection &symbols) {
  shard::GridOp grid = shard::getGridOrNull(op, op.getGridAttr(), symbols);
  if (!grid)
    return 1;
  ArrayRef<int64_t> shape = grid.getShape();
  int64_t n = 1;
  for (int16_t axis : op.getGridAxes()) {
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size()) ||
        ShapedType::isDynamic(shape[axis]))
      return 1;
    n *= shape[axis];
  }
  return n;
}

hp::CollectiveTotals hp::collectiveTotals(Operation *root) {
  CollectiveTotals totals;
  SymbolTableCollection symbols;
  root->walk([&](Operation *op) {
    std::optional<Collective> kind;
    int64_t n = 1;
    auto of = [&](Collective k) {
      return [&, k](auto typed) {
        kind = k;
        n = groupSizeOf(typed, symbols);
      };
    };
    llvm::TypeSwitch<Operation *>(op)
        .Case<shard::AllGatherOp>(of(Collective::AllGather))
        .Case<shard::AllReduceOp>(of(Collective::AllReduce))
        .Case<shard::ReduceScatterOp>(of(Collective::ReduceScatter))
        .Case<shard::AllToAllOp>(of(Collective::AllToAll))
        .Case<shard::ShiftOp>(of(Collective::Shift))
        .Case<shard::SendOp>(of(Collective::Send))
        .Case<shard::RecvOp>(of(Collective::Recv))
        .Case<shard::BroadcastOp>(of(Collective::Broadcast))
        .Case<shard::GatherOp>(of(Collective::Gather))
        .Case<shard::ScatterOp>(of(Collective::Scatter))
        .Case<shard::ReduceOp>(of(Collective::Reduce));
    if (!kind)
      return;
    bool pointToPoint = *kind == Collective::Shift ||
                        *kind == Collective::Send || *kind == Collective::Recv;
    if (n <= 1 && !pointToPoint)
      return;
    ++totals.counts[static_cast<int>(*kind)];
    if (!totals.bytes || *kind == Collective::Recv)
      return;
    // Each formula reads one side: an all_gather its result, the rest their
    // operand.
    bool ofResult = *kind == Collective::AllGather;
    std::optional<double> sized = bytesOf(
        ofResult ? op->getResult(0).getType() : op->getOperand(0).getType());
    if (!sized) {
      totals.bytes.reset();
      return;
    }
    *totals.bytes += dtensor::plan::bytesSent(*kind, n, ofResult ? 0 : *sized,
                                              ofResult ? *sized : 0);
  });
  return totals;
}
