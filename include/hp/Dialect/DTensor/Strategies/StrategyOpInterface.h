//===- StrategyOpInterface.h - how an op may run on a mesh ------*- C++ -*-===//
//
// The interface that gives an op of a global program its strategies, and
// the one entry the passes call (deriveStrategies). The models hp attaches
// are registered by StrategyModels.h.
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_STRATEGIES_STRATEGYOPINTERFACE_H
#define HP_DIALECT_DTENSOR_STRATEGIES_STRATEGYOPINTERFACE_H

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Utils/StrategyChooser.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

#include <string>
#include <vector>

#include "hp/Dialect/DTensor/Strategies/StrategyOpInterface.h.inc"

namespace hp::dtensor {

/// The tensor values an op of a global program reads: its ranked tensor
/// operands, then tensors its regions use from above, in order. A
/// strategy's `operands` follow this list.
llvm::SmallVector<mlir::Value> strategyOperands(mlir::Operation *op);

/// The strategies of `op` on a mesh of `meshShape`: its StrategyOpInterface's
/// where the op has one and the rule applies. `fallback` is set (and the
/// only strategy is the replicated one) otherwise, with the reason in `why`.
std::vector<propagation::Strategy>
deriveStrategies(mlir::Operation *op, llvm::ArrayRef<int64_t> meshShape,
                 bool &fallback, std::string &why);

} // namespace hp::dtensor

#endif // HP_DIALECT_DTENSOR_STRATEGIES_STRATEGYOPINTERFACE_H
