//===- ExpandLocalRegions.cpp - local_region -> to_local/body/from_local --===//

#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSOREXPANDLOCALREGIONS
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;

namespace {

/// Relies on the verifier: block argument types are the local types,
/// declared placements differ only with redistribute_inputs, and a result
/// whose type differs from its yielded value is a wrapped tensor.
struct ExpandLocalRegion : OpRewritePattern<LocalRegionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LocalRegionOp op,
                                PatternRewriter &rewriter) const override {
    // In a global_region its operands are global values whose layouts
    // dtensor-propagate sets; it is expanded once propagation rewrote it.
    if (op.isGlobalView())
      return rewriter.notifyMatchFailure(op, "in a global_region");
    Location loc = op.getLoc();
    Block &body = op.getBodyBlock();
    SmallVector<Value> entryValues;
    for (auto [i, arg] : llvm::enumerate(op.getArgs())) {
      auto type = dyn_cast<DTensorType>(arg.getType());
      if (!type) {
        entryValues.push_back(arg);
        continue;
      }
      Value global = arg;
      ArrayAttr declared = op.getDeclaredInPlacements(i);
      if (declared && declared != type.getPlacements())
        global = RedistributeOp::create(rewriter, loc,
                                        type.withPlacements(declared), global);
      entryValues.push_back(ToLocalOp::create(
          rewriter, loc, body.getArgument(i).getType(), global));
    }

    auto yield = cast<YieldOp>(body.getTerminator());
    rewriter.inlineBlockBefore(&body, op, entryValues);
    rewriter.setInsertionPoint(op);
    SmallVector<Value> results;
    for (auto [yielded, result] :
         llvm::zip_equal(yield.getValues(), op.getResults())) {
      if (yielded.getType() == result.getType())
        results.push_back(yielded);
      else
        results.push_back(
            FromLocalOp::create(rewriter, loc, result.getType(), yielded));
    }
    rewriter.eraseOp(yield);
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// local_call -> [redistribute] + to_local + func.call + from_local, by the
/// local_region rules with the callee's signature as the local one.
struct ExpandLocalCall : OpRewritePattern<LocalCallOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LocalCallOp op,
                                PatternRewriter &rewriter) const override {
    auto callee =
        SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(op, op.getCalleeAttr());
    if (!callee)
      return rewriter.notifyMatchFailure(op, "no callee");
    FunctionType type = callee.getFunctionType();
    Location loc = op.getLoc();
    SmallVector<Value> operands;
    for (auto [i, arg] : llvm::enumerate(op.getArgs())) {
      auto dtensor = dyn_cast<DTensorType>(arg.getType());
      if (!dtensor) {
        operands.push_back(arg);
        continue;
      }
      Value global = arg;
      auto name = callee.getArgAttrOfType<StringAttr>(
          i, LocalCallOp::getArgNameAttrName());
      ArrayAttr declared;
      if (name && op.getInPlacementsAttr())
        declared = dyn_cast_or_null<ArrayAttr>(
            op.getInPlacementsAttr().get(name.getValue()));
      if (declared && declared != dtensor.getPlacements())
        global = RedistributeOp::create(rewriter, loc,
                                        dtensor.withPlacements(declared), global);
      operands.push_back(
          ToLocalOp::create(rewriter, loc, type.getInput(i), global));
    }
    auto call = func::CallOp::create(rewriter, loc, callee, operands);
    SmallVector<Value> results;
    for (auto [local, result] :
         llvm::zip_equal(call.getResults(), op.getResults())) {
      if (local.getType() == result.getType())
        results.push_back(local);
      else
        results.push_back(
            FromLocalOp::create(rewriter, loc, result.getType(), local));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct DTensorExpandLocalRegionsPass
    : hp::dtensor::impl::DTensorExpandLocalRegionsBase<
          DTensorExpandLocalRegionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateExpandLocalRegionsPatterns(patterns);
    // A post-order walk expands nested regions first and folds nothing else.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace

void hp::dtensor::populateExpandLocalRegionsPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ExpandLocalRegion, ExpandLocalCall>(patterns.getContext());
}
