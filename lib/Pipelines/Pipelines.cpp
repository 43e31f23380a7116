//===- Pipelines.cpp - hp pass pipelines ----------------------------------===//

#include "hp/Pipelines/Pipelines.h"

#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void hp::buildPartitionPipeline(OpPassManager &pm,
                                const PartitionPipelineOptions &options) {
  pm.addPass(dtensor::createDTensorExpandLocalRegions());
  pm.addPass(createCanonicalizerPass());
  dtensor::DTensorLowerRedistributeOptions lower;
  lower.latencyBytes = options.latencyBytes;
  lower.axisWeights = llvm::to_vector(options.axisWeights);
  lower.printPlans = options.printPlans;
  pm.addPass(dtensor::createDTensorLowerRedistribute(lower));
  pm.addPass(dtensor::createDTensorPartition());
  pm.addPass(createCanonicalizerPass());
}

void hp::registerHPPipelines() {
  PassPipelineRegistration<PartitionPipelineOptions>(
      "hp-partition",
      "Lower dtensor IR to SPMD code on local tensors with shard collectives",
      buildPartitionPipeline);
}
