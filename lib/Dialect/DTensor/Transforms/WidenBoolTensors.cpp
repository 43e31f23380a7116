//===- WidenBoolTensors.cpp - i1 tensors between ops held as i8 -----------===//
//
// NCCL moves bytes, not bits, so a DTensor cannot hold i1, and a mask left
// between two ops (the reduction over an i1 tensor in SDPA's safe softmax,
// a mask several consumers read) would make dtensor-propagate run its whole
// region replicated. This pass holds every such tensor as i8 (0 or 1):
// producers yield `arith.extui` of the bit they computed, consumers read
// `arith.trunci` of what they get, both inside the linalg bodies, and ops
// that only move elements (reshapes, slices, transposes, `tensor.empty`)
// change type, as does a sort (false before true is 0 before 1). An i1
// element occupies a byte in memory anyway, so nothing grows.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORWIDENBOOLTENSORS
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;

namespace {

bool isBoolTensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && tensor.getElementType().isInteger(1);
}

RankedTensorType withElement(Type t, Type element) {
  return cast<RankedTensorType>(t).clone(element);
}

/// Ops that only move elements or make a tensor to write into: their i1
/// operands and results become i8 unchanged.
bool isElementAgnostic(Operation *op) {
  return isa<tensor::EmptyOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::ConcatOp,
             tensor::CastOp>(op);
}

class Widener {
public:
  explicit Widener(MLIRContext *ctx) : rewriter(ctx) {}

  /// Gives each i1 block argument's uses an i8 copy.
  void widenArguments(Block &block) {
    rewriter.setInsertionPointToStart(&block);
    for (BlockArgument arg : block.getArguments())
      if (isBoolTensor(arg.getType()) && !arg.use_empty())
        widenAfter(arg, arg.getLoc());
  }

  /// Rewrites `op`, whose operands that were i1 tensors are i8 by now
  /// (producers come first), so that its i1 tensor results are i8 too.
  void visit(Operation *op) {
    if (!readsWidened(op) && !llvm::any_of(op->getResultTypes(), isBoolTensor))
      return;
    if (isElementAgnostic(op) && allBoolOperandsWidened(op)) {
      for (OpResult r : op->getResults())
        if (isBoolTensor(r.getType())) {
          r.setType(withElement(r.getType(), rewriter.getI8Type()));
          widened.insert(r);
        }
      return;
    }
    if (auto c = dyn_cast<arith::ConstantOp>(op))
      if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()))
        return widenConstant(c, dense);
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      return widenGeneric(generic);
    if (isa<linalg::FillOp, linalg::TransposeOp, linalg::BroadcastOp,
            linalg::CopyOp>(op) &&
        allBoolOperandsWidened(op))
      return rebuild(op);
    if (auto sort = dyn_cast<hp::dtensor::SortOp>(op);
        sort && allBoolOperandsWidened(op))
      return widenSort(sort);
    narrowAround(op);
  }

private:
  /// Whether `op` reads a widened value: as an operand, or (a gather) by a
  /// `tensor.extract` in its body.
  bool readsWidened(Operation *op) {
    auto isWidened = [&](Value v) { return widened.contains(v); };
    if (llvm::any_of(op->getOperands(), isWidened))
      return true;
    if (!isa<linalg::GenericOp>(op))
      return false;
    return op
        ->walk([&](tensor::ExtractOp e) {
          return isWidened(e.getTensor()) ? WalkResult::interrupt()
                                          : WalkResult::advance();
        })
        .wasInterrupted();
  }

  /// Whether every operand of `op` that was an i1 tensor is i8 now.
  bool allBoolOperandsWidened(Operation *op) {
    return llvm::none_of(op->getOperandTypes(), isBoolTensor);
  }

  void widenAfter(Value v, Location loc) {
    auto wide = arith::ExtUIOp::create(
        rewriter, loc, withElement(v.getType(), rewriter.getI8Type()), v);
    rewriter.replaceAllUsesExcept(v, wide, wide);
    widened.insert(wide);
  }

  void widenConstant(arith::ConstantOp c, DenseElementsAttr dense) {
    auto bytes = dense.mapValues(rewriter.getI8Type(),
                                 [](const APInt &v) { return v.zext(8); });
    rewriter.setInsertionPoint(c);
    auto wide = arith::ConstantOp::create(rewriter, c.getLoc(), bytes);
    rewriter.replaceOp(c, wide);
    widened.insert(wide);
  }

  /// A named linalg op that copies or fills elements, built again on its
  /// i8 operands (its implicit body has the element types in it).
  void rebuild(Operation *op) {
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    Operation *wide;
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      Value byte = arith::ExtUIOp::create(rewriter, loc, rewriter.getI8Type(),
                                          fill.getInputs()[0]);
      wide = linalg::FillOp::create(rewriter, loc, byte, fill.getOutputs()[0]);
    } else if (auto t = dyn_cast<linalg::TransposeOp>(op)) {
      wide = linalg::TransposeOp::create(rewriter, loc, t.getInput(),
                                         t.getInit(), t.getPermutation());
    } else if (auto b = dyn_cast<linalg::BroadcastOp>(op)) {
      wide = linalg::BroadcastOp::create(rewriter, loc, b.getInput(),
                                         b.getInit(), b.getDimensions());
    } else {
      auto c = cast<linalg::CopyOp>(op);
      wide = linalg::CopyOp::create(rewriter, loc, c.getInputs()[0],
                                    c.getOutputs()[0]);
    }
    rewriter.replaceOp(op, wide->getResults());
    for (Value r : wide->getResults())
      widened.insert(r);
  }

  /// A sort of booleans as a sort of their bytes: 0 before 1 is false
  /// before true, and ties keep their order in both.
  void widenSort(hp::dtensor::SortOp sort) {
    rewriter.setInsertionPoint(sort);
    auto wide = hp::dtensor::SortOp::create(
        rewriter, sort.getLoc(), sort.getInput().getType(),
        sort.getIndices().getType(), sort.getInput(), sort.getDimAttr(),
        sort.getDescendingAttr());
    rewriter.replaceOp(sort, wide->getResults());
    widened.insert(wide.getValues());
  }

  /// Block arguments of widened operands read `trunci`, yields of i1
  /// results write `extui`, and `tensor.extract` of a widened tensor in the
  /// body (a gather) narrows what it reads.
  void widenGeneric(linalg::GenericOp generic) {
    Location loc = generic.getLoc();
    Block &body = generic.getRegion().front();
    rewriter.setInsertionPointToStart(&body);
    for (OpOperand &operand : generic->getOpOperands()) {
      BlockArgument arg = body.getArgument(operand.getOperandNumber());
      if (!widened.contains(operand.get()) || !arg.getType().isInteger(1))
        continue;
      arg.setType(rewriter.getI8Type());
      auto bit =
          arith::TruncIOp::create(rewriter, loc, rewriter.getI1Type(), arg);
      rewriter.replaceAllUsesExcept(arg, bit, bit);
    }
    body.walk([&](tensor::ExtractOp extract) {
      if (!widened.contains(extract.getTensor()))
        return;
      extract.getResult().setType(rewriter.getI8Type());
      rewriter.setInsertionPointAfter(extract);
      auto bit = arith::TruncIOp::create(rewriter, loc, rewriter.getI1Type(),
                                         extract.getResult());
      rewriter.replaceAllUsesExcept(extract.getResult(), bit, bit);
    });
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    rewriter.setInsertionPoint(yield);
    for (OpResult r : generic->getResults()) {
      if (!isBoolTensor(r.getType()))
        continue;
      unsigned i = r.getResultNumber();
      OpOperand &init = generic.getDpsInitsMutable()[i];
      if (!widened.contains(init.get())) {
        // An init that is i1 for another reason keeps the op narrow.
        continue;
      }
      yield->setOperand(i, arith::ExtUIOp::create(rewriter, loc,
                                                  rewriter.getI8Type(),
                                                  yield->getOperand(i)));
      r.setType(withElement(r.getType(), rewriter.getI8Type()));
      widened.insert(r);
    }
    // Any result still i1 (its init was not widened) is widened after it.
    rewriter.setInsertionPointAfter(generic);
    for (OpResult r : generic->getResults())
      if (isBoolTensor(r.getType()) && !r.use_empty())
        widenAfter(r, loc);
  }

  /// An op this pass does not know reads i1 again (an `arith.trunci` on the
  /// tensor before it) and its i1 results are widened after it.
  void narrowAround(Operation *op) {
    rewriter.setInsertionPoint(op);
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      if (!widened.contains(v))
        continue;
      operand.set(arith::TruncIOp::create(
          rewriter, op->getLoc(),
          withElement(v.getType(), rewriter.getI1Type()), v));
    }
    rewriter.setInsertionPointAfter(op);
    for (OpResult r : op->getResults())
      if (isBoolTensor(r.getType()) && !r.use_empty())
        widenAfter(r, op->getLoc());
  }

  IRRewriter rewriter;
  /// Values this pass made i8 that were i1.
  llvm::DenseSet<Value> widened;
};

struct DTensorWidenBoolTensorsPass
    : hp::dtensor::impl::DTensorWidenBoolTensorsBase<
          DTensorWidenBoolTensorsPass> {
  void runOnOperation() override {
    // Ops in order, producers first; the bodies of linalg ops work on
    // scalars and are rewritten with their op.
    SmallVector<Operation *> ops;
    SmallVector<Block *> blocks;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          if (!isa<linalg::LinalgOp>(op))
            blocks.push_back(&block);
      if (op != getOperation())
        ops.push_back(op);
      return isa<linalg::LinalgOp>(op) ? WalkResult::skip()
                                       : WalkResult::advance();
    });
    Widener widener(&getContext());
    for (Block *block : blocks)
      widener.widenArguments(*block);
    for (Operation *op : ops)
      widener.visit(op);
  }
};

} // namespace
