//===- Models.h - the strategy models, dialect by dialect -------*- C++ -*-===//
//
// Private to the library: StrategyModels.cpp registers them all.
//
//===----------------------------------------------------------------------===//

#ifndef HP_LIB_DIALECT_DTENSOR_STRATEGIES_MODELS_H
#define HP_LIB_DIALECT_DTENSOR_STRATEGIES_MODELS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace hp::dtensor::strategies {

void registerLinalgModels(mlir::DialectRegistry &registry);
void registerElementwiseModels(mlir::DialectRegistry &registry);
void registerTensorModels(mlir::DialectRegistry &registry);
void registerScanModel(mlir::DialectRegistry &registry);
void registerSortModel(mlir::DialectRegistry &registry);

} // namespace hp::dtensor::strategies

#endif // HP_LIB_DIALECT_DTENSOR_STRATEGIES_MODELS_H
