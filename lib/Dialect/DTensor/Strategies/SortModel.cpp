//===- SortModel.cpp - the strategies of dtensor.sort ---------------------===//
//
// A sort keeps its rows whole: any other dim may be split, and each rank
// sorts its rows; the sorted dim is as a reduction with no combiner, which
// no strategy splits. Values and indices are laid out alike.
//
//===----------------------------------------------------------------------===//

#include "Models.h"

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Strategies/StrategyOpInterface.h"
#include "hp/Dialect/DTensor/Strategies/StrategyRules.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace hp::dtensor;
using namespace hp::dtensor::strategies;

namespace {

struct SortModel : StrategyOpInterface::ExternalModel<SortModel, SortOp> {
  LogicalResult getStrategies(Operation *op, ArrayRef<int64_t> meshShape,
                              std::vector<Strategy> &strategies,
                              std::string &) const {
    auto sort = cast<SortOp>(op);
    auto type = cast<RankedTensorType>(sort.getInput().getType());
    int64_t rank = type.getRank();
    int64_t dim = sort.getDimAttr().getInt();
    Structure s;
    s.loopSizes.assign(type.getShape().begin(), type.getShape().end());
    s.iterators.assign(rank, utils::IteratorType::parallel);
    s.iterators[dim] = utils::IteratorType::reduction;
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, op->getContext());
    s.operandMaps = {id};
    s.resultMaps = {id, id};
    s.initOf = {-1};
    s.combiners = {std::nullopt, std::nullopt};
    // A radix sort: every element's digits counted in one read, then per 8
    // bits of the element a pass that places each element.
    unsigned width = type.getElementType().getIntOrFloatBitWidth();
    s.flopsPerPoint = 1 + llvm::divideCeil(width, 8);
    strategies = structuredStrategies(s, meshShape);
    return success();
  }
};

} // namespace

void strategies::registerSortModel(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, DTensorDialect *) {
    SortOp::attachInterface<SortModel>(*ctx);
  });
}
