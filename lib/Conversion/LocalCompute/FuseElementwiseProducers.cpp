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

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hp {
#define GEN_PASS_DEF_FUSEELEMENTWISEPRODUCERS
#include "hp/Conversion/Passes.h.inc"
} // namespace hp

using namespace mlir;

namespace {

struct FuseElementwiseProducersPass
    : hp::impl::FuseElementwiseProducersBase<FuseElementwiseProducersPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // A producer with one use: fusing one with several would compute it
    // once per consumer.
    linalg::populateElementwiseOpsFusionPatterns(patterns, [](OpOperand *use) {
      Operation *producer = use->get().getDefiningOp();
      return producer && producer->hasOneUse();
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
