//===- InitAllDialects.cpp - register every hp dialect --------------------===//

#include "hp/InitAllDialects.h"

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Strategies/StrategyModels.h"
#include "hp/Dialect/NCCL/IR/NCCL.h"

#include "mlir/IR/DialectRegistry.h"

void hp::registerAllHPDialects(mlir::DialectRegistry &registry) {
  registry.insert<hp::dtensor::DTensorDialect, hp::nccl::NCCLDialect>();
  hp::dtensor::registerStrategyModels(registry);
}
