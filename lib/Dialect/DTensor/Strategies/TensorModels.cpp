//===- TensorModels.cpp - the strategies of tensor's shape ops ------------===//
//
// A shape op (expand_shape, collapse_shape, extract_slice, insert_slice,
// pad, concat) keeps split the dims it does not cut, and passes partial sums
// through where it fills nothing in; its strategies' `loops` hold the result
// dim split per axis.
//
//===----------------------------------------------------------------------===//

#include "Models.h"

#include "hp/Dialect/DTensor/Strategies/StrategyOpInterface.h"
#include "hp/Dialect/DTensor/Strategies/StrategyRules.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace hp::dtensor;
using namespace hp::dtensor::strategies;
using Placement = plan::Placement;

namespace {

/// A dim a shape op may keep split: the dim of each operand that carries it
/// into result dim `resultDim`, and the size that must split evenly for the
/// pieces to line up (0: any split).
struct SplitDim {
  SmallVector<int64_t> operandDims;
  int64_t resultDim;
  int64_t evenSize = 0;
};

/// What a shape op lets through: the dims it does not cut, and partial sums
/// (the op moves data, so it is linear) where it fills nothing in.
struct ShapeRule {
  SmallVector<SplitDim> dims;
  bool partialSums = false;
};

static std::optional<ShapeRule> shapeRuleOf(Operation *op) {
  ShapeRule rule;
  auto uncut = [](ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                  ArrayRef<int64_t> strides, int64_t d, int64_t full) {
    return offsets[d] == 0 && sizes[d] == full && strides[d] == 1;
  };
  // A group's split is carried by its first dim that is not 1 (unit dims
  // in front of it add nothing: [64] into [1, 64]). Where the dims after
  // the carrier are all 1 too, the group only adds or drops unit dims and
  // its pieces line up however it is split (uneven, empty).
  auto carrierOf = [](RankedTensorType expanded, ReassociationIndicesRef g) {
    const int64_t *d = llvm::find_if(
        g, [&](int64_t d) { return expanded.getDimSize(d) != 1; });
    return d == g.end() ? g.front() : *d;
  };
  auto evenSizeOf = [](RankedTensorType expanded, ReassociationIndicesRef g,
                       int64_t carrier) {
    bool unitInner = llvm::all_of(g, [&](int64_t d) {
      return d <= carrier || expanded.getDimSize(d) == 1;
    });
    return unitInner ? 0 : expanded.getDimSize(carrier);
  };
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op)) {
    for (auto [i, group] : llvm::enumerate(e.getReassociationIndices())) {
      int64_t carrier = carrierOf(e.getResultType(), group);
      rule.dims.push_back({{static_cast<int64_t>(i)},
                           carrier,
                           evenSizeOf(e.getResultType(), group, carrier)});
    }
    rule.partialSums = true;
    return rule;
  }
  if (auto c = dyn_cast<tensor::CollapseShapeOp>(op)) {
    for (auto [j, group] : llvm::enumerate(c.getReassociationIndices())) {
      int64_t carrier = carrierOf(c.getSrcType(), group);
      rule.dims.push_back({{carrier},
                           static_cast<int64_t>(j),
                           evenSizeOf(c.getSrcType(), group, carrier)});
    }
    rule.partialSums = true;
    return rule;
  }
  // Slices with dynamic offsets, sizes or strides read index values of the
  // body; they run replicated rather than be rebuilt around them.
  if (auto s = dyn_cast<tensor::ExtractSliceOp>(op)) {
    RankedTensorType src = s.getSourceType();
    if (s.getResultType().getRank() != src.getRank() ||
        !s.getOffsets().empty() || !s.getSizes().empty() ||
        !s.getStrides().empty())
      return std::nullopt;
    for (int64_t d = 0; d < src.getRank(); ++d)
      if (uncut(s.getStaticOffsets(), s.getStaticSizes(), s.getStaticStrides(),
                d, src.getDimSize(d)))
        rule.dims.push_back({{d}, d});
    rule.partialSums = true;
    return rule;
  }
  if (auto s = dyn_cast<tensor::InsertSliceOp>(op)) {
    RankedTensorType src = s.getSourceType(), dst = s.getDestType();
    if (src.getRank() != dst.getRank() || !s.getOffsets().empty() ||
        !s.getSizes().empty() || !s.getStrides().empty())
      return std::nullopt;
    for (int64_t d = 0; d < dst.getRank(); ++d)
      if (src.getDimSize(d) == dst.getDimSize(d) &&
          uncut(s.getStaticOffsets(), s.getStaticSizes(), s.getStaticStrides(),
                d, dst.getDimSize(d)))
        rule.dims.push_back({{d, d}, d});
    rule.partialSums = true;
    return rule;
  }
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    // A padding value that reads its index along a split dim would see the
    // local index there.
    Block &body = pad.getRegion().front();
    for (int64_t d = 0, e = pad.getSourceType().getRank(); d < e; ++d)
      if (pad.getStaticLow()[d] == 0 && pad.getStaticHigh()[d] == 0 &&
          body.getArgument(d).use_empty())
        rule.dims.push_back({{d}, d});
    return rule; // the padding value is not a partial sum
  }
  if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
    int64_t n = concat.getInputs().size();
    for (int64_t d = 0, e = concat.getResultType().getRank(); d < e; ++d)
      if (d != static_cast<int64_t>(concat.getDim()))
        rule.dims.push_back({SmallVector<int64_t>(n, d), d});
    rule.partialSums = true;
    return rule;
  }
  return std::nullopt;
}

/// A shape op's strategies; `loops` holds the result dim split per axis.
static std::vector<Strategy> shapeStrategies(const ShapeRule &rule,
                                             ArrayRef<int64_t> meshShape,
                                             int64_t numOperands) {
  SmallVector<AxisOption> options;
  for (const SplitDim &split : rule.dims) {
    AxisOption o;
    o.loop = split.resultDim;
    for (int64_t d : split.operandDims)
      o.operands.push_back(Placement::shard(d));
    o.results.push_back(Placement::shard(split.resultDim));
    options.push_back(std::move(o));
  }
  if (rule.partialSums) {
    AxisOption o;
    Placement sum = Placement::partial(ReduceOp::Sum);
    o.operands.assign(numOperands, sum);
    o.results.assign(1, sum);
    options.push_back(std::move(o));
  }
  std::vector<Strategy> all = combineAxisOptions(
      meshShape, numOperands, 1, options, [](const Strategy &) { return 0.0; });
  // Reshapes split a group's outer dim only where the pieces line up.
  std::vector<Strategy> kept;
  for (Strategy &s : all) {
    bool even = true;
    for (const SplitDim &split : rule.dims) {
      if (split.evenSize == 0)
        continue;
      int64_t parts = 1;
      for (auto [m, dim] : llvm::enumerate(s.loops))
        if (dim == split.resultDim)
          parts *= meshShape[m];
      even &= split.evenSize % parts == 0;
    }
    if (even)
      kept.push_back(std::move(s));
  }
  return kept;
}

template <typename OpT>
struct ShapeModel : StrategyOpInterface::ExternalModel<ShapeModel<OpT>, OpT> {
  LogicalResult getStrategies(Operation *op, ArrayRef<int64_t> meshShape,
                              std::vector<Strategy> &strategies,
                              std::string &why) const {
    std::optional<ShapeRule> rule;
    if (op->getNumResults() == 1)
      rule = shapeRuleOf(op);
    if (!rule) {
      why = "no sharding rule for this op";
      return failure();
    }
    strategies = shapeStrategies(*rule, meshShape, strategyOperands(op).size());
    return success();
  }
};

template <typename... OpTs> void attachShape(MLIRContext *ctx) {
  (OpTs::template attachInterface<ShapeModel<OpTs>>(*ctx), ...);
}

} // namespace

void strategies::registerTensorModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    attachShape<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
                tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::PadOp,
                tensor::ConcatOp>(ctx);
  });
}
