//===- ElementwiseModels.cpp - the strategies of arith and math ops -------===//
//
// An elementwise op on tensors of one shape is a structured op with identity
// maps and only parallel loops; the ops partial sums pass through are those
// linearityOf names (sums, differences, products by small constants, ...).
//
//===----------------------------------------------------------------------===//

#include "Models.h"

#include "hp/Dialect/DTensor/Strategies/StrategyOpInterface.h"
#include "hp/Dialect/DTensor/Strategies/StrategyRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace hp::dtensor;
using namespace hp::dtensor::strategies;

/// An elementwise op on tensors of one shape: identity maps, all parallel.
static std::optional<Structure> elementwiseStructure(Operation *op) {
  if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
      op->getNumRegions() != 0)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  for (Value v : op->getOperands()) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || t.getShape() != type.getShape())
      return std::nullopt;
  }
  Structure s;
  s.loopSizes.assign(type.getShape().begin(), type.getShape().end());
  s.iterators.assign(type.getRank(), utils::IteratorType::parallel);
  AffineMap id =
      AffineMap::getMultiDimIdentityMap(type.getRank(), op->getContext());
  s.operandMaps.assign(op->getNumOperands(), id);
  s.initOf.assign(op->getNumOperands(), -1);
  s.resultMaps = {id};
  s.combiners = {std::nullopt};
  int64_t n = op->getNumOperands();
  for (int64_t mask = 1; mask < (int64_t(1) << n); ++mask) {
    SmallVector<Linearity> in;
    SmallVector<bool> set;
    for (int64_t i = 0; i < n; ++i) {
      set.push_back((mask >> i) & 1);
      in.push_back(set.back() ? Linearity::Linear : Linearity::Const);
    }
    if (linearityOf(op, in) == Linearity::Linear)
      s.linearSets.push_back(set);
  }
  return s;
}

namespace {

template <typename OpT>
struct ElementwiseModel
    : StrategyOpInterface::ExternalModel<ElementwiseModel<OpT>, OpT> {
  LogicalResult getStrategies(Operation *op, ArrayRef<int64_t> meshShape,
                              std::vector<Strategy> &strategies,
                              std::string &why) const {
    std::optional<Structure> s = elementwiseStructure(op);
    if (!s) {
      why = "no sharding rule for this op";
      return failure();
    }
    strategies = structuredStrategies(*s, meshShape);
    return success();
  }
};

/// The model on each of `OpTs` that is elementwise.
template <typename... OpTs> void attachElementwise(MLIRContext *ctx) {
  auto one = [&](auto tag) {
    using OpT = typename decltype(tag)::type;
    if constexpr (OpT::template hasTrait<OpTrait::Elementwise>())
      OpT::template attachInterface<ElementwiseModel<OpT>>(*ctx);
  };
  (one(llvm::type_identity<OpTs>()), ...);
}

} // namespace

void strategies::registerElementwiseModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attachElementwise<
#define GET_OP_LIST
#include "mlir/Dialect/Arith/IR/ArithOps.cpp.inc"
        >(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attachElementwise<
#define GET_OP_LIST
#include "mlir/Dialect/Math/IR/MathOps.cpp.inc"
        >(ctx);
  });
}
