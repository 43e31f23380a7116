//===- Pipelines.h - hp pass pipelines --------------------------*- C++ -*-===//

#ifndef HP_PIPELINES_PIPELINES_H
#define HP_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace hp {

/// Options of `hp-partition`; they are passed to dtensor-lower-redistribute.
struct PartitionPipelineOptions
    : mlir::PassPipelineOptions<PartitionPipelineOptions> {
  Option<uint64_t> latencyBytes{
      *this, "latency-bytes",
      llvm::cl::desc("Per-collective latency in equivalent bytes"),
      llvm::cl::init(65536)};
  ListOption<double> axisWeights{
      *this, "axis-weights",
      llvm::cl::desc("Bandwidth cost multiplier per mesh axis")};
  Option<bool> printPlans{*this, "print-plans",
                          llvm::cl::desc("Remark each redistribute plan"),
                          llvm::cl::init(false)};
};

/// DESIGN.md §2 down to SPMD + shard: expand local regions, canonicalize,
/// lower redistributes, partition, canonicalize.
void buildPartitionPipeline(mlir::OpPassManager &pm,
                            const PartitionPipelineOptions &options);

/// `hp-partition`, then collectives to NCCL calls, bufferization and the
/// CPU lowering to the LLVM dialect, ready for hp-runner or mlir-translate.
void buildLowerToCPUPipeline(mlir::OpPassManager &pm,
                             const PartitionPipelineOptions &options);

/// Registers `hp-partition` and `hp-lower-to-cpu` with the pass registry.
void registerHPPipelines();

} // namespace hp

#endif // HP_PIPELINES_PIPELINES_H
