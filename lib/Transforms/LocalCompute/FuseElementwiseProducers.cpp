//===- FuseElementwiseProducers.cpp - elementwise chains as one op --------===//
//
// Upstream's linalg-fuse-elementwise-ops also propagates reshapes through
// the ops it meets (fusion by expansion): a matmul followed by the
// expand_shape that splits heads becomes a 5-loop generic with two output
// dims, which no BLAS call takes. hp wants only the elementwise part: a
// producer whose every loop is parallel runs inside its consumer, one pass
// over memory with no intermediate tensor; contractions stay contractions.
// A transpose feeding a contraction (torch's `x @ W.T` for every Linear) is
// read through its permutation instead of copied: the contraction indexes
// the untransposed operand, and the BLAS call takes it by strides.
//
//===----------------------------------------------------------------------===//

#include "hp/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hp {
#define GEN_PASS_DEF_FUSEELEMENTWISEPRODUCERS
#include "hp/Transforms/Passes.h.inc"
} // namespace hp

using namespace mlir;

namespace {

/// Whether `op` only moves elements: a generic with one input whose body
/// yields it unchanged, every loop parallel, both operands indexed by
/// permutations (a transpose, or a copy).
bool isPermutedCopy(Operation *op) {
  auto g = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumLoops() != g.getNumParallelLoops())
    return false;
  auto yield = cast<linalg::YieldOp>(g.getBody()->getTerminator());
  if (yield.getNumOperands() != 1 ||
      yield.getOperand(0) != g.getBody()->getArgument(0))
    return false;
  return llvm::all_of(g.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isPermutation(); });
}

/// Whether the producer of `use` runs inside its consumer: it has no other
/// use (else it would be computed once per consumer) and the consumer is
/// not a contraction, unless the producer only permutes (then the
/// contraction reads the untransposed operand, nothing runs again). Inside one
/// (the rotary embedding of q inside q k^T) the producer would run again for
/// every element of the other operand's free loops, and the contraction would
/// no longer be the multiply-add a BLAS takes. Consumers that broadcast a
/// producer otherwise take it, as upstream's fusion does: hp.torch relies on
/// that to keep an i1 mask inside the ops that read it.
bool fusesIntoConsumer(OpOperand *use) {
  Operation *producer = use->get().getDefiningOp();
  auto consumer = dyn_cast<linalg::LinalgOp>(use->getOwner());
  return producer && producer->hasOneUse() && consumer &&
         (!linalg::isaContractionOpInterface(consumer) ||
          isPermutedCopy(producer));
}

/// Makes generics of each transpose whose one use is a contraction, and of
/// that contraction, so that elementwise fusion (generic into generic)
/// folds the permutation into the contraction's indexing map.
void generalizeTransposedContractions(Operation *root) {
  SmallVector<linalg::TransposeOp> transposes;
  root->walk([&](linalg::TransposeOp t) {
    if (!t->hasOneUse() || !t.hasPureTensorSemantics())
      return;
    OpOperand &use = *t->getUses().begin();
    auto consumer = dyn_cast<linalg::LinalgOp>(use.getOwner());
    // Fusion takes inputs only; a transposed init stays as it is.
    if (consumer && consumer.isDpsInput(&use) &&
        consumer.hasPureTensorSemantics() &&
        linalg::isaContractionOpInterface(consumer))
      transposes.push_back(t);
  });
  IRRewriter rewriter(root->getContext());
  for (linalg::TransposeOp t : transposes) {
    Operation *consumer = *t->getUsers().begin();
    if (!isa<linalg::GenericOp>(consumer)) {
      rewriter.setInsertionPoint(consumer);
      (void)linalg::generalizeNamedOp(rewriter,
                                      cast<linalg::LinalgOp>(consumer));
    }
    rewriter.setInsertionPoint(t);
    (void)linalg::generalizeNamedOp(rewriter, t);
  }
}

struct FuseElementwiseProducersPass
    : hp::impl::FuseElementwiseProducersBase<FuseElementwiseProducersPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    generalizeTransposedContractions(getOperation());
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, fusesIntoConsumer);
    if (propagateReshapes) {
      // Upstream's reshape propagation, as linalg-fuse-elementwise-ops runs
      // it: expand_shape and collapse_shape move through linalg ops (which
      // gain loops), so a producer and consumer split by a reshape fuse.
      auto oneUse = [](OpOperand *use) {
        Operation *producer = use->get().getDefiningOp();
        return producer && producer->hasOneUse();
      };
      linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, oneUse);
      tensor::populateBubbleUpExpandShapePatterns(patterns);
      affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
      linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
      tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
      tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
      context->getLoadedDialect<linalg::LinalgDialect>()
          ->getCanonicalizationPatterns(patterns);
    }
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
