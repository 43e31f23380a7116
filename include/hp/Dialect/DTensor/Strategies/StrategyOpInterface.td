//===- StrategyOpInterface.td - how an op may run on a mesh -*- tablegen -*-===//

#ifndef HP_DIALECT_DTENSOR_STRATEGIES_STRATEGYOPINTERFACE_TD
#define HP_DIALECT_DTENSOR_STRATEGIES_STRATEGYOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def DTensor_StrategyOpInterface : OpInterface<"StrategyOpInterface"> {
  let cppNamespace = "::hp::dtensor";
  let description = [{
    How an op of a `dtensor.global_region` may run on a mesh: its
    strategies, each a placement per mesh axis for every tensor the op reads
    (`strategyOperands`: its ranked tensor operands, then the tensors its
    regions use from above) and every tensor result, the loop (or result
    dim) it splits per axis, and the flops one device performs.
    `dtensor-choose-strategies` picks one of them per op, and
    `dtensor-apply-strategies` checks an annotation against them.

    hp attaches it by external models to linalg's structured ops, to
    `arith` and `math` ops on tensors, and to `tensor`'s shape ops
    (`registerStrategyModels`, which `registerAllHPDialects` and the passes
    call). An op of any dialect gets a rule by attaching a model; an op
    without one runs replicated, with a remark. StrategyRules.h has the
    building blocks the models share (per-axis options combined over the
    mesh, the structured-op rule).
  }];
  let methods = [
    InterfaceMethod<[{
        Appends the op's strategies on a mesh of `meshShape` to
        `strategies`, the all-replicate one first. Fails, with the reason in
        `why`, when the rule does not apply to this op (its shapes or body);
        the op then runs replicated.
      }],
      "::mlir::LogicalResult", "getStrategies",
      (ins "::llvm::ArrayRef<int64_t>":$meshShape,
           "std::vector<::hp::dtensor::propagation::Strategy> &":$strategies,
           "std::string &":$why)>,
    InterfaceMethod<[{
        What the op computes on this rank's pieces under strategy `s`, built
        at `b`'s insertion point in the `dtensor.local_region` that
        `dtensor-apply-strategies` makes for it on mesh `meshName`: the values
        the region yields for its tensor results. `local` is the op already
        cloned onto the local operands. Most ops' pieces are independent and
        yield `local`'s results (the default); an op whose split needs other
        ranks' pieces (a scan split along its dim) adds the collectives here.
      }],
      "::llvm::SmallVector<::mlir::Value>", "buildLocalResults",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Operation *":$local,
           "const ::hp::dtensor::propagation::Strategy &":$s,
           "const ::hp::dtensor::MeshInfo &":$mesh,
           "::mlir::FlatSymbolRefAttr":$meshName),
      /*methodBody=*/[{}], /*defaultImplementation=*/[{
        return ::llvm::SmallVector<::mlir::Value>(local->getResults());
      }]>,
  ];
}

#endif // HP_DIALECT_DTENSOR_STRATEGIES_STRATEGYOPINTERFACE_TD
