//===- DecomposeAggregatedOps.cpp - softmax into its parts ----------------===//
//
// hp's lowerings handle linalg ops with indexing maps; an aggregated op
// (linalg.softmax) has none of its own, but says how to build it from ops
// that do.
//
//===----------------------------------------------------------------------===//

#include "hp/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace hp {
#define GEN_PASS_DEF_DECOMPOSEAGGREGATEDOPS
#include "hp/Transforms/Passes.h.inc"
} // namespace hp

using namespace mlir;

namespace {
struct DecomposeAggregatedOpsPass
    : hp::impl::DecomposeAggregatedOpsBase<DecomposeAggregatedOpsPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> ops;
    // The decompositions build tensor ops.
    getOperation()->walk([&](linalg::AggregatedOpInterface op) {
      auto dps = dyn_cast<DestinationStyleOpInterface>(op.getOperation());
      if (!dps || dps.hasPureTensorSemantics())
        ops.push_back(op);
    });
    for (linalg::AggregatedOpInterface op : ops) {
      // Upstream's softmax verifier accepts any element type, but its
      // decomposition asks for a float's -inf and crashes on integers.
      if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op.getOperation())) {
        Type element = softmax.getInputOperandType().getElementType();
        if (!isa<FloatType>(element)) {
          softmax.emitOpError("needs a floating-point element type, got ")
              << element;
          return signalPassFailure();
        }
      }
      OpBuilder b(op);
      FailureOr<SmallVector<Value>> parts = op.decomposeOperation(b);
      if (failed(parts)) {
        op->emitOpError("cannot be decomposed into linalg ops");
        return signalPassFailure();
      }
      op->replaceAllUsesWith(*parts);
      op->erase();
    }
  }
};
} // namespace
