//===- Pipelines.h - hp pass pipelines --------------------------*- C++ -*-===//

#ifndef HP_PIPELINES_PIPELINES_H
#define HP_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace hp {

/// The redistribute-planning options shared by every hp pipeline; they are
/// passed to dtensor-propagate and convert-dtensor-to-shard (whose cost
/// options are declared once, PlanningOptions.td). `Derived` is the
/// pipeline's own options struct (PassPipelineOptions is CRTP).
template <typename Derived>
struct PlanningOptions : mlir::PassPipelineOptions<Derived> {
  using OptionsBase = mlir::detail::PassOptions;
  OptionsBase::Option<uint64_t> latencyBytes{
      *this, "latency-bytes",
      llvm::cl::desc("Per-collective latency in equivalent bytes"),
      llvm::cl::init(65536)};
  OptionsBase::ListOption<double> axisWeights{
      *this, "axis-weights",
      llvm::cl::desc("Bandwidth cost multiplier per mesh axis")};
  OptionsBase::Option<bool> printPlans{
      *this, "print-plans", llvm::cl::desc("Remark each redistribute plan"),
      llvm::cl::init(false)};
  OptionsBase::Option<bool> printTotals{
      *this, "print-totals",
      llvm::cl::desc("Remark the redistributes, collectives and bytes per "
                     "rank planned"),
      llvm::cl::init(false)};
  OptionsBase::Option<bool> verifyPlans{
      *this, "verify-plans",
      llvm::cl::desc("Check every redistribute plan by simulation"),
      llvm::cl::init(false)};
  OptionsBase::Option<double> flopBytes{
      *this, "flop-bytes",
      llvm::cl::desc("dtensor-propagate: bytes of communication worth one "
                     "flop"),
      llvm::cl::init(4.5e-4)};
  OptionsBase::Option<double> paramMemoryWeight{
      *this, "param-memory-weight",
      llvm::cl::desc("dtensor-propagate: the cost of each byte a "
                     "redistribute adds to a rank's piece of a parameter "
                     "(0: none)"),
      llvm::cl::init(4)};
  OptionsBase::Option<bool> printStrategies{
      *this, "print-strategies",
      llvm::cl::desc("dtensor-propagate: remark each op's strategy and each "
                     "redistribute's cause"),
      llvm::cl::init(false)};
  OptionsBase::Option<uint64_t> warnGatherBytes{
      *this, "warn-gather-bytes",
      llvm::cl::desc("dtensor-propagate: warn when a whole tensor of at least "
                     "this many bytes is gathered (0: never)"),
      llvm::cl::init(67108864)};
};

/// Options of `hp-partition` and `hp-lower-to-cpu`.
struct PartitionPipelineOptions : PlanningOptions<PartitionPipelineOptions> {
  Option<bool> keepLayoutAttrs{
      *this, "keep-layout-attrs",
      llvm::cl::desc("hp-lower-to-cpu: keep the dtensor.sharding attributes "
                     "on the LLVM functions (for launchers; upstream "
                     "mlir-translate refuses them)"),
      llvm::cl::init(false)};
};

/// Down to SPMD + shard: expand local regions, canonicalize,
/// convert-dtensor-to-shard, canonicalize.
void buildPartitionPipeline(mlir::OpPassManager &pm,
                            const PartitionPipelineOptions &options);

/// `hp-partition`, then collectives to NCCL calls, bufferization and the
/// CPU lowering to the LLVM dialect, ready for hp-runner or mlir-translate.
void buildLowerToCPUPipeline(mlir::OpPassManager &pm,
                             const PartitionPipelineOptions &options);

/// Options of `hp-lower-to-gpu`: the partition options and the CUDA target.
struct LowerToGPUPipelineOptions : PlanningOptions<LowerToGPUPipelineOptions> {
  Option<bool> keepLayoutAttrs{
      *this, "keep-layout-attrs",
      llvm::cl::desc("Keep the dtensor.sharding attributes on the LLVM "
                     "functions (upstream mlir-translate refuses them)"),
      llvm::cl::init(false)};
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("CUDA architecture of the kernels"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("PTX features of the kernels"),
                               llvm::cl::init("+ptx80")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel binary format: auto (fatbin when the toolkit's "
                     "ptxas is on PATH, else isa), isa (PTX, JIT-compiled "
                     "by the driver), bin (cubin) or fatbin"),
      llvm::cl::init("auto")};
  Option<std::string> entryPoint{
      *this, "entry-point",
      llvm::cl::desc("Function whose buffer arguments and results are in "
                     "host memory"),
      llvm::cl::init("main")};
  Option<bool> cublas{
      *this, "cublas",
      llvm::cl::desc("Contractions whose layout fits call cuBLAS (loaded at "
                     "run time); false makes them kernels like any linalg "
                     "op, for machines without cuBLAS"),
      llvm::cl::init(true)};
};

/// The shared SPMD lowering, then local computation as NVVM kernels, every
/// buffer in device memory (NCCL reads and writes device pointers) and the
/// host side to the LLVM dialect calling the mgpu* runtime ABI.
void buildLowerToGPUPipeline(mlir::OpPassManager &pm,
                             const LowerToGPUPipelineOptions &options);

/// Registers `hp-partition`, `hp-lower-to-cpu` and `hp-lower-to-gpu`.
void registerHPPipelines();

} // namespace hp

#endif // HP_PIPELINES_PIPELINES_H
