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

/// What the local body sees for the operand `arg`: a DTensor is first
/// redistributed to the placements its declaration gives (when those
/// differ), then taken to its local type; anything else passes as it is.
Value enterLocal(PatternRewriter &rewriter, Location loc, Value arg,
                 Type localType, llvm::function_ref<ArrayAttr()> declared) {
  auto type = dyn_cast<DTensorType>(arg.getType());
  if (!type)
    return arg;
  Value global = arg;
  ArrayAttr placements = declared();
  if (placements && placements != type.getPlacements())
    global = RedistributeOp::create(rewriter, loc,
                                    type.withPlacements(placements), global);
  return ToLocalOp::create(rewriter, loc, localType, global);
}

/// The op's results from what the local body gives: a result whose type
/// differs from its local value wraps it with from_local.
SmallVector<Value> leaveLocal(PatternRewriter &rewriter, Location loc,
                              ValueRange locals, ValueRange results) {
  SmallVector<Value> values;
  for (auto [local, result] : llvm::zip_equal(locals, results)) {
    if (local.getType() == result.getType())
      values.push_back(local);
    else
      values.push_back(
          FromLocalOp::create(rewriter, loc, result.getType(), local));
  }
  return values;
}

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
    for (auto [i, arg] : llvm::enumerate(op.getArgs()))
      entryValues.push_back(
          enterLocal(rewriter, loc, arg, body.getArgument(i).getType(),
                     [&] { return op.getDeclaredInPlacements(i); }));

    auto yield = cast<YieldOp>(body.getTerminator());
    rewriter.inlineBlockBefore(&body, op, entryValues);
    rewriter.setInsertionPoint(op);
    SmallVector<Value> results =
        leaveLocal(rewriter, loc, yield.getValues(), op.getResults());
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
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        op, op.getCalleeAttr());
    if (!callee)
      return rewriter.notifyMatchFailure(op, "no callee");
    FunctionType type = callee.getFunctionType();
    Location loc = op.getLoc();
    // The callee names its arguments; in_placements is keyed by those names.
    auto declared = [&](unsigned i) -> ArrayAttr {
      auto name = callee.getArgAttrOfType<StringAttr>(
          i, LocalCallOp::getArgNameAttrName());
      if (!name || !op.getInPlacementsAttr())
        return {};
      return dyn_cast_or_null<ArrayAttr>(
          op.getInPlacementsAttr().get(name.getValue()));
    };
    SmallVector<Value> operands;
    for (auto [i, arg] : llvm::enumerate(op.getArgs()))
      operands.push_back(enterLocal(rewriter, loc, arg, type.getInput(i),
                                    [&] { return declared(i); }));
    auto call = func::CallOp::create(rewriter, loc, callee, operands);
    rewriter.replaceOp(
        op, leaveLocal(rewriter, loc, call.getResults(), op.getResults()));
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
