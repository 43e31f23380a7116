//===- PlanAttrs.cpp - dtensor attributes as the planner's values ---------===//

#include "hp/Dialect/DTensor/Planning/PlanAttrs.h"

using namespace mlir;
using namespace hp::dtensor;

SmallVector<plan::Placement, 4> hp::dtensor::toPlanPlacements(ArrayAttr list) {
  return llvm::map_to_vector<4>(
      list.getAsRange<PlacementAttrInterface>(), [](PlacementAttrInterface p) {
        if (std::optional<int64_t> factor = p.getStridedSplitFactor())
          return plan::Placement::stridedShard(*p.getShardedDim(), *factor);
        if (std::optional<int64_t> dim = p.getShardedDim())
          return plan::Placement::shard(*dim);
        if (std::optional<ReduceOp> op = p.getPendingReduceOp())
          return plan::Placement::partial(*op);
        return plan::Placement::replicate();
      });
}

ArrayAttr hp::dtensor::toPlacementsAttr(MLIRContext *ctx,
                                        ArrayRef<plan::Placement> placements) {
  SmallVector<Attribute> attrs;
  for (const plan::Placement &p : placements) {
    switch (p.kind) {
    case plan::Placement::Replicate:
      attrs.push_back(ReplicateAttr::get(ctx));
      break;
    case plan::Placement::Shard:
      attrs.push_back(ShardAttr::get(ctx, p.dim));
      break;
    case plan::Placement::StridedShard:
      attrs.push_back(StridedShardAttr::get(ctx, p.dim, p.splitFactor));
      break;
    case plan::Placement::Partial:
      attrs.push_back(PartialAttr::get(ctx, p.reduceOp));
      break;
    }
  }
  return ArrayAttr::get(ctx, attrs);
}

plan::Problem hp::dtensor::planTensor(ShapedType type,
                                      ArrayRef<int64_t> meshShape) {
  plan::Problem problem;
  problem.globalShape.assign(type.getShape().begin(), type.getShape().end());
  problem.meshShape.assign(meshShape.begin(), meshShape.end());
  problem.elementBytes =
      std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
  if (auto i = dyn_cast<IntegerType>(type.getElementType()))
    problem.arithmetic = i.isUnsigned() ? plan::Arithmetic::UnsignedInt
                                        : plan::Arithmetic::SignedInt;
  return problem;
}

StrategyAttr hp::dtensor::toStrategyAttr(MLIRContext *ctx,
                                         const propagation::Strategy &s) {
  auto lists = [&](ArrayRef<propagation::Placements> placements) {
    return ArrayAttr::get(
        ctx, llvm::map_to_vector(placements, [&](const auto &p) -> Attribute {
          return toPlacementsAttr(ctx, p);
        }));
  };
  return StrategyAttr::get(ctx, lists(s.operands), lists(s.results), s.loops);
}

propagation::Strategy hp::dtensor::fromStrategyAttr(StrategyAttr attr) {
  propagation::Strategy s;
  for (Attribute list : attr.getOperands())
    s.operands.push_back(toPlanPlacements(cast<ArrayAttr>(list)));
  for (Attribute list : attr.getResults())
    s.results.push_back(toPlanPlacements(cast<ArrayAttr>(list)));
  s.loops.assign(attr.getLoops().begin(), attr.getLoops().end());
  return s;
}
