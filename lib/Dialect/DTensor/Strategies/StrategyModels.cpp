//===- StrategyModels.cpp - hp's strategy rules for upstream ops ----------===//

#include "hp/Dialect/DTensor/Strategies/StrategyModels.h"

#include "Models.h"

void hp::dtensor::registerStrategyModels(mlir::DialectRegistry &registry) {
  strategies::registerLinalgModels(registry);
  strategies::registerElementwiseModels(registry);
  strategies::registerTensorModels(registry);
  strategies::registerScanModel(registry);
  strategies::registerSortModel(registry);
}
