//===- FuseElementwiseProducers.cpp - elementwise chains as one op --------===//
//
// Upstream's linalg-fuse-elementwise-ops also propagates reshapes through
// the ops it meets (fusion by expansion): a matmul followed by the
// expand_shape that splits heads becomes a 5-loop generic with two output
// dims, which no BLAS call takes. hp wants only the elementwise part: a
// producer whose every loop is parallel runs inside its consumer, one pass
// over memory with no intermediate tensor; contractions stay contractions.
//
//===----------------------------------------------------------------------===//

#include "hp/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hp {
#define GEN_PASS_DEF_FUSEELEMENTWISEPRODUCERS
#include "hp/Conversion/Passes.h.inc"
} // namespace hp

using namespace mlir;

namespace {

/// Whether the producer of `use` runs inside its consumer: it has no other
/// use (else it would be computed once per consumer) and the consumer is
/// not a contraction. Inside one (the rotary embedding of q inside q k^T)
/// the producer would run again for every element of the other operand's
/// free loops, and the contraction would no longer be the multiply-add a
/// BLAS takes. Consumers that broadcast a producer otherwise take it, as
/// upstream's fusion does: hp.torch relies on that to keep an i1 mask
/// inside the ops that read it.
bool fusesIntoConsumer(OpOperand *use) {
  Operation *producer = use->get().getDefiningOp();
  auto consumer = dyn_cast<linalg::LinalgOp>(use->getOwner());
  return producer && producer->hasOneUse() && consumer &&
         !linalg::isaContractionOpInterface(consumer);
}

struct FuseElementwiseProducersPass
    : hp::impl::FuseElementwiseProducersBase<FuseElementwiseProducersPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 fusesIntoConsumer);
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
