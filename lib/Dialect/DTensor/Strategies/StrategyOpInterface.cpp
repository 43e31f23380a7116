//===- StrategyOpInterface.cpp - how an op may run on a mesh --------------===//

#include "hp/Dialect/DTensor/Strategies/StrategyOpInterface.h"
#include "hp/Dialect/DTensor/Strategies/StrategyRules.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace hp::dtensor;
using propagation::Strategy;

#include "hp/Dialect/DTensor/Strategies/StrategyOpInterface.cpp.inc"

SmallVector<Value> hp::dtensor::strategyOperands(Operation *op) {
  SmallVector<Value> tensors;
  for (Value v : op->getOperands())
    if (isa<RankedTensorType>(v.getType()))
      tensors.push_back(v);
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  for (Value v : above)
    if (isa<RankedTensorType>(v.getType()))
      tensors.push_back(v);
  return tensors;
}

/// Whether every tensor the op reads or writes is ranked and static.
static bool allStatic(Operation *op) {
  auto isStatic = [](Type t) {
    if (isa<UnrankedTensorType>(t))
      return false;
    auto r = dyn_cast<RankedTensorType>(t);
    return !r || r.hasStaticShape();
  };
  return llvm::all_of(op->getOperandTypes(), isStatic) &&
         llvm::all_of(op->getResultTypes(), isStatic);
}

std::vector<Strategy> hp::dtensor::deriveStrategies(Operation *op,
                                                    ArrayRef<int64_t> meshShape,
                                                    bool &fallback,
                                                    std::string &why) {
  fallback = false;
  int64_t numOperands = strategyOperands(op).size();
  int64_t numResults = llvm::count_if(
      op->getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); });
  bool capturesTensors =
      numOperands !=
      static_cast<int64_t>(llvm::count_if(op->getOperandTypes(), [](Type t) {
        return isa<RankedTensorType>(t);
      }));
  auto model = dyn_cast<StrategyOpInterface>(op);
  if (!allStatic(op)) {
    why = "a dynamic shape";
  } else if (numResults != static_cast<int64_t>(op->getNumResults())) {
    why = capturesTensors ? "a region that reads tensors from above"
                          : "results that are not tensors";
  } else if (model) {
    std::vector<Strategy> strategies;
    if (succeeded(model.getStrategies(meshShape, strategies, why)))
      return strategies;
  } else {
    why = capturesTensors ? "a region that reads tensors from above"
                          : "no sharding rule for this op";
  }
  fallback = true;
  return {strategies::replicatedStrategy(op, numOperands, meshShape)};
}
