//===- StridedCopyToLinalg.cpp - strided memref.copy as linalg.copy -------===//
//
// A copy between contiguous buffers is one memcpy on any target; a copy of a
// slice is a loop nest. Expressing the latter as linalg.copy lets the GPU
// pipeline map it to a kernel instead of leaving a host loop over device
// memory.
//
//===----------------------------------------------------------------------===//

#include "hp/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace hp {
#define GEN_PASS_DEF_CONVERTSTRIDEDCOPYTOLINALG
#include "hp/Conversion/Passes.h.inc"
} // namespace hp

using namespace mlir;

namespace {

struct StridedCopyToLinalg : OpRewritePattern<memref::CopyOp> {
  StridedCopyToLinalg(MLIRContext *context, bool keepContiguous)
      : OpRewritePattern(context), keepContiguous(keepContiguous) {}

  LogicalResult matchAndRewrite(memref::CopyOp op,
                                PatternRewriter &rewriter) const override {
    auto source = cast<MemRefType>(op.getSource().getType());
    auto target = cast<MemRefType>(op.getTarget().getType());
    if (source.getLayout().isIdentity() && target.getLayout().isIdentity())
      return rewriter.notifyMatchFailure(op, "contiguous copy");
    // What finalize-memref-to-llvm lowers to one memcpy.
    if (keepContiguous && memref::isStaticShapeAndContiguousRowMajor(source) &&
        memref::isStaticShapeAndContiguousRowMajor(target))
      return rewriter.notifyMatchFailure(op, "one contiguous block");
    rewriter.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(),
                                                op.getTarget());
    return success();
  }

  bool keepContiguous;
};

struct ConvertStridedCopyToLinalgPass
    : hp::impl::ConvertStridedCopyToLinalgBase<ConvertStridedCopyToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<StridedCopyToLinalg>(&getContext(), keepContiguous);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
