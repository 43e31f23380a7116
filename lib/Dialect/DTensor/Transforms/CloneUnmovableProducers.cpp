//===- CloneUnmovableProducers.cpp - one copy of a mask per consumer ------===//
//
// A value a DTensor cannot hold (an i1 mask: NCCL does not move i1) makes
// dtensor-propagate run its whole region replicated. Importers fuse
// elementwise chains so that such values live inside one op's body, but
// upstream's fusion only fuses a producer into its single consumer: a causal
// mask shared by every layer of a model stays a value between ops. Giving
// each consumer its own copy of the side-effect-free ops that compute it
// (recomputing a mask is cheap, moving it impossible) lets fusion take each
// copy into its consumer.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORCLONEUNMOVABLEPRODUCERS
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;

namespace {

/// Whether every result of `op` is a tensor no DTensor can hold.
bool producesOnlyUnmovable(Operation *op) {
  if (op->getNumResults() == 0)
    return false;
  return llvm::all_of(op->getResultTypes(), [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor &&
           !hp::dtensor::isMovableElementType(tensor.getElementType());
  });
}

struct DTensorCloneUnmovableProducersPass
    : hp::dtensor::impl::DTensorCloneUnmovableProducersBase<
          DTensorCloneUnmovableProducersPass> {
  void runOnOperation() override {
    getOperation()->walk([](Block *block) {
      // Consumers first: a copy's operands gain uses, and their producers,
      // earlier in the block, are visited after it.
      SmallVector<Operation *> ops;
      for (Operation &op : llvm::reverse(*block))
        ops.push_back(&op);
      for (Operation *op : ops) {
        if (!producesOnlyUnmovable(op) || !isMemoryEffectFree(op))
          continue;
        SmallVector<OpOperand *> uses;
        for (OpResult r : op->getResults())
          for (OpOperand &use : r.getUses())
            uses.push_back(&use);
        // The first use keeps the original; every other use gets a copy
        // right before its user (in the user's block, so it dominates).
        for (OpOperand *use : llvm::drop_begin(uses)) {
          Operation *user = use->getOwner();
          Operation *anchor = block->findAncestorOpInBlock(*user);
          if (!anchor)
            continue;
          OpBuilder b(anchor);
          Operation *copy = b.clone(*op);
          use->set(
              copy->getResult(cast<OpResult>(use->get()).getResultNumber()));
        }
      }
    });
  }
};

} // namespace
