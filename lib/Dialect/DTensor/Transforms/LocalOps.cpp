//===- LocalOps.cpp - an op of a global region made local -----------------===//

#include "LocalOps.h"

#include "hp/Dialect/DTensor/Strategies/StrategyOpInterface.h"
#include "hp/Dialect/DTensor/Strategies/StrategyRules.h"
#include "hp/Dialect/DTensor/Transforms/RankPiece.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace hp::dtensor;
using propagation::Placements;
using strategies::TableRead;
using strategies::tableReadOf;

namespace hp::dtensor::detail {

/// rankPiece (RankPiece.h) with both values materialised, in that order.
std::pair<Value, Value> rankPieceValues(OpBuilder &b, Location loc,
                                        int64_t size, ArrayRef<int64_t> axes,
                                        const MeshInfo &mesh,
                                        FlatSymbolRefAttr meshName) {
  auto [offset, length] = rankPiece(b, loc, size, axes, mesh, meshName);
  Value o = getValueOrCreateConstantIndexOp(b, loc, offset);
  return {o, getValueOrCreateConstantIndexOp(b, loc, length)};
}

/// `offset + index` for each linalg.index of a loop that `s` shards, the
/// offset being this rank's start of the loop (the layout model's piece),
/// except the indices in `local` (reads of a table split alike).
void correctIndices(OpBuilder &b, linalg::LinalgOp op, const Strategy &s,
                    ArrayRef<int64_t> loopSizes, const MeshInfo &mesh,
                    FlatSymbolRefAttr meshName,
                    const llvm::DenseSet<Operation *> &local) {
  SmallVector<linalg::IndexOp> indices;
  op->walk([&](linalg::IndexOp i) {
    if (!local.contains(i))
      indices.push_back(i);
  });
  OpBuilder::InsertionGuard outerGuard(b);
  b.setInsertionPoint(op);
  for (linalg::IndexOp index : indices) {
    int64_t loop = index.getDim();
    SmallVector<int64_t> axes;
    for (auto [m, l] : llvm::enumerate(s.loops))
      if (l == loop)
        axes.push_back(m);
    if (axes.empty() || loop >= static_cast<int64_t>(loopSizes.size()))
      continue;
    Value offset =
        rankPieceValues(b, op.getLoc(), loopSizes[loop], axes, mesh, meshName)
            .first;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(index);
    Value shifted = arith::AddIOp::create(b, index.getLoc(), index, offset);
    index.getResult().replaceAllUsesExcept(shifted, shifted.getDefiningOp());
  }
}

/// Erases `v`'s defining op, and then its operands' (in the same block),
/// while they are unused and free of side effects.
void eraseDeadChain(Value v) {
  SmallVector<Operation *> work;
  if (Operation *def = v.getDefiningOp())
    work.push_back(def);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!op->use_empty() || !isMemoryEffectFree(op))
      continue;
    SmallVector<Value> operands(op->getOperands());
    Block *block = op->getBlock();
    op->erase();
    for (Value operand : operands)
      if (Operation *def = operand.getDefiningOp();
          def && def->getBlock() == block)
        work.push_back(def);
  }
}

/// The reads of the split tables (TableRead) in `clone`, the local op of
/// `op` under `s`, whose tensor operands `tensors` became `args`: a dim
/// split alike with the loop that indexes it reads a linalg.index of its own,
/// returned in `local` for correctIndices to leave local; a dim split by
/// rows reads the rows this rank holds, at the index less its piece's
/// offset, and yields 0 for the others (the result is a partial sum).
void localizeTableReads(OpBuilder &b, Operation *op, Operation *clone,
                        const Strategy &s, ArrayRef<Value> tensors,
                        ValueRange args, const MeshInfo &mesh,
                        FlatSymbolRefAttr meshName,
                        llvm::DenseSet<Operation *> &local) {
  int64_t own = llvm::count_if(op->getOperandTypes(),
                               [](Type t) { return isa<RankedTensorType>(t); });
  for (int64_t t = own, e = tensors.size(); t < e; ++t) {
    std::optional<TableRead> read = tableReadOf(op, tensors[t]);
    if (!read)
      continue;
    tensor::ExtractOp extract;
    clone->walk([&](tensor::ExtractOp x) {
      if (x.getTensor() == args[t])
        extract = x;
    });
    if (!extract)
      continue;
    auto global = cast<RankedTensorType>(tensors[t].getType());
    for (auto [k, loop] : llvm::enumerate(read->loopOf)) {
      SmallVector<int64_t> axes;
      for (auto [m, p] : llvm::enumerate(s.operands[t]))
        if (p.kind == plan::Placement::Shard &&
            p.dim == static_cast<int64_t>(k))
          axes.push_back(m);
      if (axes.empty())
        continue;
      Location loc = extract.getLoc();
      OpBuilder::InsertionGuard guard(b);
      if (s.loops[axes.front()] != Strategy::kNoLoop) {
        b.setInsertionPoint(extract);
        auto index = linalg::IndexOp::create(b, loc, loop);
        local.insert(index);
        OpOperand &operand = extract.getIndicesMutable()[k];
        Value shared = operand.get(); // the loop's index, cast or wrapped
        operand.set(index.getResult());
        eraseDeadChain(shared);
        continue;
      }
      b.setInsertionPoint(clone);
      auto [offset, length] = rankPieceValues(
          b, clone->getLoc(), global.getDimSize(k), axes, mesh, meshName);
      b.setInsertionPoint(extract);
      Value zeroIndex = arith::ConstantIndexOp::create(b, loc, 0);
      Value row =
          arith::SubIOp::create(b, loc, extract.getIndices()[k], offset);
      Value above = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                          row, zeroIndex);
      Value below =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row, length);
      Value held = arith::AndIOp::create(b, loc, above, below);
      extract.getIndicesMutable()[k].set(
          arith::SelectOp::create(b, loc, held, row, zeroIndex));
      b.setInsertionPointAfter(extract);
      Type element = extract.getType();
      Value zero =
          arith::ConstantOp::create(b, loc, element, b.getZeroAttr(element));
      Value kept = arith::SelectOp::create(b, loc, held, extract, zero);
      extract.getResult().replaceAllUsesExcept(kept, kept.getDefiningOp());
    }
  }
}

/// Replaces every constraint under `op` by its input: on the replicated
/// values of an op without a rule it pins nothing.
void stripConstraints(Operation *op) {
  op->walk([](ConstrainOp c) {
    c.replaceAllUsesWith(c.getInput());
    c.erase();
  });
}

/// `op` rebuilt on local `operands` where its attributes hold sizes that a
/// split changes (reshapes, slices); null for ops a clone serves.
Operation *rebuildWithLocalSizes(OpBuilder &b, Operation *op, const Strategy &s,
                                 ValueRange operands,
                                 TypeRange localResultTypes) {
  auto isShard = [](const plan::Placement &p) {
    return p.kind == plan::Placement::Shard;
  };
  bool split = llvm::any_of(
      s.results, [&](const Placements &p) { return llvm::any_of(p, isShard); });
  // Ops whose attributes hold sizes are rebuilt, the others cloned.
  bool holdsSizes =
      isa<tensor::ExpandShapeOp, tensor::ExtractSliceOp, tensor::InsertSliceOp>(
          op);
  if (!split || !holdsSizes)
    return nullptr;
  Location loc = op->getLoc();
  // Uncut dims a strategy splits take the local source's size.
  auto localSizes = [&](Value source, ArrayRef<OpFoldResult> sizes,
                        ArrayRef<plan::Placement> placements) {
    SmallVector<OpFoldResult> local(sizes);
    for (const plan::Placement &p : placements)
      if (isShard(p))
        local[p.dim] = tensor::getMixedSize(b, loc, source, p.dim);
    return local;
  };
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op))
    return tensor::ExpandShapeOp::create(b, loc, localResultTypes.front(),
                                         operands.front(),
                                         e.getReassociationIndices());
  // Slices with a split have static offsets, sizes and strides (Strategies).
  if (auto x = dyn_cast<tensor::ExtractSliceOp>(op))
    return tensor::ExtractSliceOp::create(
        b, loc, operands.front(), x.getMixedOffsets(),
        localSizes(operands.front(), x.getMixedSizes(), s.results.front()),
        x.getMixedStrides());
  auto ins = cast<tensor::InsertSliceOp>(op);
  return tensor::InsertSliceOp::create(
      b, loc, operands[0], operands[1], ins.getMixedOffsets(),
      localSizes(operands[0], ins.getMixedSizes(), s.operands.front()),
      ins.getMixedStrides());
}

} // namespace hp::dtensor::detail
