//===- Pipelines.cpp - hp pass pipelines ----------------------------------===//

#include "hp/Pipelines/Pipelines.h"

#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void hp::buildPartitionPipeline(OpPassManager &pm,
                                const PartitionPipelineOptions &options) {
  // Function-local passes run per function: smaller worklists, better
  // locality, and parallel on several cores.
  OpPassManager &perFunction = pm.nest<func::FuncOp>();
  perFunction.addPass(dtensor::createDTensorExpandLocalRegions());
  perFunction.addPass(createCanonicalizerPass());
  dtensor::DTensorLowerRedistributeOptions lower;
  lower.latencyBytes = options.latencyBytes;
  lower.axisWeights = llvm::to_vector(options.axisWeights);
  lower.printPlans = options.printPlans;
  pm.addPass(dtensor::createDTensorLowerRedistribute(lower));
  pm.addPass(dtensor::createDTensorPartition());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
}

void hp::registerHPPipelines() {
  PassPipelineRegistration<PartitionPipelineOptions>(
      "hp-partition",
      "Lower dtensor IR to SPMD code on local tensors with shard collectives",
      buildPartitionPipeline);
}
