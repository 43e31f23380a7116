//===- Pipelines.cpp - hp pass pipelines ----------------------------------===//

#include "hp/Pipelines/Pipelines.h"

#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "hp/Conversion/Passes.h"
#include "hp/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Program.h"

using namespace mlir;

namespace hp {
namespace {
/// hp-partition's passes, for any pipeline's planning options.
template <typename Derived>
void addPartitionPasses(OpPassManager &pm,
                        const hp::PlanningOptions<Derived> &options) {
  // Function-local passes run per function: smaller worklists, better
  // locality, and parallel on several cores.
  OpPassManager &perFunction = pm.nest<func::FuncOp>();
  dtensor::DTensorPropagateOptions propagate;
  propagate.latencyBytes = options.latencyBytes;
  propagate.axisWeights = llvm::to_vector(options.axisWeights);
  propagate.flopBytes = options.flopBytes;
  propagate.paramMemoryWeight = options.paramMemoryWeight;
  propagate.printStrategies = options.printStrategies;
  propagate.warnGatherBytes = options.warnGatherBytes;
  perFunction.addPass(dtensor::createDTensorPropagate(propagate));
  perFunction.addPass(dtensor::createDTensorCheckContracts());
  perFunction.addPass(dtensor::createDTensorExpandLocalRegions());
  perFunction.addPass(createCanonicalizerPass());
  ConvertDTensorToShardOptions convert;
  convert.latencyBytes = options.latencyBytes;
  convert.axisWeights = llvm::to_vector(options.axisWeights);
  convert.printPlans = options.printPlans;
  convert.verifyPlans = options.verifyPlans;
  convert.printTotals = options.printTotals;
  pm.addPass(createConvertDTensorToShard(convert));
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
}

/// Partition, collectives to NCCL, one-shot bufferization with buffer
/// hoisting and ownership-based deallocation: what both targets share.
template <typename Derived>
void addBufferizedSPMDPasses(OpPassManager &pm,
                             const hp::PlanningOptions<Derived> &options,
                             bool gpu) {
  addPartitionPasses(pm, options);
  pm.addPass(createConvertShardToNCCL());
  // Scans and sorts (each rank's piece) as loops on tensors, made in place
  // below.
  dtensor::DTensorLowerScansOptions scans;
  scans.gpu = gpu;
  pm.addPass(dtensor::createDTensorLowerScans(scans));
  dtensor::DTensorLowerSortsOptions sorts;
  sorts.gpu = gpu;
  pm.addPass(dtensor::createDTensorLowerSorts(sorts));
  // Elementwise arith on tensors (common in local-region bodies) is not
  // bufferizable as is.
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createDecomposeAggregatedOps());
  // A producer with one elementwise consumer runs inside it: one pass over
  // memory, no intermediate buffer.
  pm.addNestedPass<func::FuncOp>(createFuseElementwiseProducers());

  // Callers pass their buffers to functions without copying them first.
  pm.addPass(createReadOnlyFunctionArguments());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // Collectives write fresh buffers, so loops carrying their results yield
  // new allocations.
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Identity layouts that bufferization claimed by a cast hold only for some
  // sizes; NCCL needs contiguous buffers. Now the real layouts are known.
  pm.addNestedPass<func::FuncOp>(createCopyUnprovenIdentityCasts());
  pm.addNestedPass<func::FuncOp>(createNCCLContiguousBuffers());
  // A collective's result buffer is allocated where the collective runs;
  // out of loops it is allocated once instead of every iteration.
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferHoistingPass());
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Each buffer is freed after its last use instead of at the end of its
  // block (a training step's peak memory). On GPUs a kernel or collective
  // queued on a stream may still read it.
  if (!gpu)
    pm.addPass(createFreeBuffersAfterLastUse());
  // Every buffer now exists: refuse (or check at run time) sizes whose
  // byte count the LLVM lowering would let wrap around.
  pm.addPass(createCheckAllocationSizes());
}
} // namespace
} // namespace hp

void hp::buildPartitionPipeline(OpPassManager &pm,
                                const PartitionPipelineOptions &options) {
  addPartitionPasses(pm, options);
}

void hp::buildLowerToCPUPipeline(OpPassManager &pm,
                                 const hp::PartitionPipelineOptions &options) {
  addBufferizedSPMDPasses(pm, options, /*gpu=*/false);
  // Contractions to a BLAS before the rest of linalg becomes loops.
  pm.addPass(createConvertLinalgToBLAS());
  // Copies of slices (arguments taken from a redistribute's view) as
  // vectorized loops rather than MLIR's element-by-element memrefCopy; one
  // contiguous block stays a memcpy.
  ConvertStridedCopyToLinalgOptions copies;
  copies.keepContiguous = true;
  pm.addNestedPass<func::FuncOp>(createConvertStridedCopyToLinalg(copies));
  // The rest of linalg as vector-register loops where the vectorizer can.
  pm.addNestedPass<func::FuncOp>(createVectorizeLinalgOnBuffers());
  // Then down to the LLVM dialect, in this order. Vector lowering
  // (vector.print of small integers, multi-dim transfers) creates arith and
  // ub ops, so it goes before their conversions; what LLVM has no intrinsic
  // for (erf: exact GELU; atan, cbrt, ...) calls the C library, which every
  // rank's process has loaded.
  pm.addPass(createConvertVectorToSCFPass());
  using PassFactory = std::unique_ptr<Pass> (*)();
  for (PassFactory create : std::initializer_list<PassFactory>{
           createConvertLinalgToLoopsPass, createSCFToControlFlowPass,
           memref::createExpandStridedMetadataPass, createLowerAffinePass,
           hp::createConvertNCCLToLLVM,
           createFinalizeMemRefToLLVMConversionPass,
           createConvertVectorToLLVMPass, createArithToLLVMConversionPass,
           createConvertMathToLLVMPass, createConvertMathToLibmPass,
           createUBToLLVMConversionPass, createConvertFuncToLLVMPass,
           createConvertControlFlowToLLVMPass, createConvertIndexToLLVMPass,
           createReconcileUnrealizedCastsPass})
    pm.addPass(create());
  if (!options.keepLayoutAttrs)
    pm.addPass(dtensor::createDTensorDropLayoutAttrs());
  pm.addPass(createCheckLoweredToLLVM());
}

void hp::buildLowerToGPUPipeline(OpPassManager &pm,
                                 const LowerToGPUPipelineOptions &options) {
  addBufferizedSPMDPasses(pm, options, /*gpu=*/true);
  // Contractions whose layout fits call cuBLAS on the rank's stream.
  if (options.cublas) {
    ConvertLinalgToBLASOptions blas;
    blas.target = "gpu";
    pm.addPass(createConvertLinalgToBLAS(blas));
  }
  // The rest of the local computation runs as kernels: every linalg op
  // becomes a parallel loop nest mapped to blocks and threads.
  pm.addNestedPass<func::FuncOp>(createConvertStridedCopyToLinalg());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  // Tiles become blocks and the points of a tile its threads; fixed tile
  // bounds with an in-bounds guard keep the block size static for uneven
  // shapes.
  pm.addNestedPass<func::FuncOp>(
      createParallelLoopTilingPass({16, 16}, /*noMinMaxBounds=*/true));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createGpuKernelOutliningPass());
  ConvertMemRefToGPUOptions memory;
  memory.entryPoint = options.entryPoint;
  pm.addPass(createConvertMemRefToGPU(memory));
  // gpu-to-llvm lowers only the asynchronous forms of alloc/memcpy/dealloc;
  // they are all issued on the rank's one stream, which NCCL shares.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createConvertNCCLToLLVM());

  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.chip;
  nvvm.cubinFeatures = options.features;
  nvvm.cubinFormat = options.format;
  // gpu-module-to-binary assembles cubins with the toolkit's ptxas; without
  // it, PTX is embedded and the driver compiles it when the module loads.
  if (options.format == "auto")
    nvvm.cubinFormat = llvm::sys::findProgramByName("ptxas") ? "fatbin" : "isa";
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
  if (!options.keepLayoutAttrs)
    pm.addPass(dtensor::createDTensorDropLayoutAttrs());
}

namespace {
/// A module pipeline added to a pass manager anchored on any op: at the
/// top level that op is the module, but nested
/// (`builtin.module(any(hp-partition))`) it is each function, and a pass
/// manager holding module passes is never scheduled there: the pipeline
/// would be skipped without a word. This op-agnostic pass runs the pipeline
/// on a module and is an error anywhere else. (Not registered: a dumped
/// pipeline shows it, but cannot be parsed back.)
struct ModulePipelinePass
    : public PassWrapper<ModulePipelinePass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ModulePipelinePass)
  ModulePipelinePass(llvm::StringRef name, OpPassManager pipeline)
      : name(name.str()), pipeline(std::move(pipeline)) {}
  ModulePipelinePass(const ModulePipelinePass &other)
      : PassWrapper(other), name(other.name), pipeline(other.pipeline) {}

  llvm::StringRef getArgument() const override { return name; }
  void getDependentDialects(DialectRegistry &registry) const override {
    pipeline.getDependentDialects(registry);
  }
  void runOnOperation() override {
    Operation *op = getOperation();
    if (isa<ModuleOp>(op)) {
      if (failed(runPipeline(pipeline, op)))
        signalPassFailure();
      return;
    }
    op->emitError() << "'" << name
                    << "' runs on a whole module (builtin.module), not on '"
                    << op->getName()
                    << "' (nested under 'any'): write 'builtin.module(" << name
                    << ")' or '" << name << "'";
    signalPassFailure();
  }

  std::string name;
  OpPassManager pipeline;
};

/// Registers a pipeline that runs on a whole module: convert-dtensor-to-shard
/// and the lowering passes are module passes, and adding one to a pass
/// manager nested on another op is a fatal error inside MLIR. Such a nesting
/// (`func.func(hp-partition)`) is refused here, through the parser's error
/// handler, so every entry point reports it as a pipeline error.
template <typename Options>
void registerModulePipeline(llvm::StringRef arg, llvm::StringRef description,
                            void (*builder)(OpPassManager &, const Options &)) {
  std::string name = arg.str();
  registerPassPipeline(
      arg, description,
      [builder, name](
          OpPassManager &pm, llvm::StringRef optionsText,
          llvm::function_ref<LogicalResult(const llvm::Twine &)> errorHandler)
          -> LogicalResult {
        llvm::StringRef anchor = pm.getOpAnchorName();
        if (anchor != ModuleOp::getOperationName() &&
            anchor != OpPassManager::getAnyOpAnchorName())
          return errorHandler("'" + name +
                              "' runs on a whole module (builtin.module), "
                              "not nested on '" +
                              anchor + "': write 'builtin.module(" + name +
                              ")' or '" + name + "'");
        Options options;
        if (failed(options.parseFromString(optionsText)))
          return errorHandler("invalid options for '" + name + "': '" +
                              optionsText + "'");
        if (anchor != OpPassManager::getAnyOpAnchorName()) {
          builder(pm, options);
          return success();
        }
        OpPassManager modulePipeline(ModuleOp::getOperationName());
        builder(modulePipeline, options);
        pm.addPass(std::make_unique<ModulePipelinePass>(
            name, std::move(modulePipeline)));
        return success();
      },
      [](llvm::function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(Options());
      });
}
} // namespace

void hp::registerHPPipelines() {
  registerModulePipeline<PartitionPipelineOptions>(
      "hp-partition",
      "Lower dtensor IR to SPMD code on local tensors with shard collectives",
      buildPartitionPipeline);
  registerModulePipeline<PartitionPipelineOptions>(
      "hp-lower-to-cpu",
      "Lower dtensor IR to the LLVM dialect with NCCL calls, for CPU ranks",
      buildLowerToCPUPipeline);
  registerModulePipeline<LowerToGPUPipelineOptions>(
      "hp-lower-to-gpu",
      "Lower dtensor IR to the LLVM dialect with NCCL calls and NVVM kernels, "
      "for GPU ranks",
      buildLowerToGPUPipeline);
}
