//===- StrategyModels.h - hp's strategy rules for upstream ops --*- C++ -*-===//

#ifndef HP_DIALECT_DTENSOR_STRATEGIES_STRATEGYMODELS_H
#define HP_DIALECT_DTENSOR_STRATEGIES_STRATEGYMODELS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace hp::dtensor {

/// Attaches StrategyOpInterface to linalg's structured ops (and
/// linalg.softmax), to the arith and math ops (elementwise on tensors) and
/// to tensor's shape ops (expand_shape, collapse_shape, extract_slice,
/// insert_slice, pad, concat) and to dtensor.scan and dtensor.sort, as each
/// dialect loads.
void registerStrategyModels(mlir::DialectRegistry &registry);

} // namespace hp::dtensor

#endif // HP_DIALECT_DTENSOR_STRATEGIES_STRATEGYMODELS_H
