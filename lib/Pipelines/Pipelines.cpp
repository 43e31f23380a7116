//===- Pipelines.cpp - hp pass pipelines ----------------------------------===//

#include "hp/Pipelines/Pipelines.h"

#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "hp/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
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

void hp::buildLowerToCPUPipeline(OpPassManager &pm,
                                 const PartitionPipelineOptions &options) {
  buildPartitionPipeline(pm, options);
  pm.addPass(createConvertShardToNCCL());
  // Elementwise arith on tensors (common in local-region bodies) is not
  // bufferizable as is.
  pm.addPass(createConvertElementwiseToLinalgPass());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // Collectives write fresh buffers, so loops carrying their results yield
  // new allocations.
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // A collective's result buffer is allocated where the collective runs;
  // out of loops it is allocated once instead of every iteration.
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferHoistingPass());
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  pm.addPass(createConvertBufferizationToMemRefPass());

  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertNCCLToLLVM());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void hp::registerHPPipelines() {
  PassPipelineRegistration<PartitionPipelineOptions>(
      "hp-partition",
      "Lower dtensor IR to SPMD code on local tensors with shard collectives",
      buildPartitionPipeline);
  PassPipelineRegistration<PartitionPipelineOptions>(
      "hp-lower-to-cpu",
      "Lower dtensor IR to the LLVM dialect with NCCL calls, for CPU ranks",
      buildLowerToCPUPipeline);
}
