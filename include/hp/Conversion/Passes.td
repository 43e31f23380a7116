//===- Passes.td - hp conversion passes --------------------*- tablegen -*-===//

#ifndef HP_CONVERSION_PASSES_TD
#define HP_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertShardToNCCL : Pass<"convert-shard-to-nccl", "::mlir::ModuleOp"> {
  let summary = "Lower upstream shard collectives to nccl ops on buffers";
  let description = [{
    Every `shard` collective on tensors becomes an `nccl` op on contiguous
    memrefs, bridged with `bufferization.to_buffer` / `to_tensor` so that
    one-shot bufferization can run afterwards. NCCL concatenates and splits
    along the leading dimension in rank order, so a gather, scatter or split
    axis that is not leading is transposed into and out of a staging tensor.
    Communicators are `nccl.comm @grid axes = [...]` in the collective's
    `grid_axes` order. `shard.process_multi_index` and
    `process_linear_index` become `nccl.comm_rank` of the whole-grid
    communicator. The input may come from hp's passes or from upstream
    `shard-partition`. An element type or reduction NCCL lacks is reported.
  }];
  let dependentDialects = [
    "::hp::nccl::NCCLDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ConvertNCCLToLLVM : Pass<"convert-nccl-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower nccl ops to calls of the NCCL C API";
  let description = [{
    Each collective becomes one call of the NCCL 2.28 C API (`ncclAllGather`,
    `ncclReduceScatter`, `ncclAllReduce`, `ncclAlltoAll`, `ncclBroadcast`,
    `ncclSend`, `ncclRecv`, `ncclGroupStart`/`End`) with its data type and
    reduction enums, followed by a check of its result. `nccl.comm` becomes a
    call of the runtime's `hpNcclComm`, which creates each (grid, axes)
    communicator once per process. Memrefs must be contiguous; the buffer
    pointer is the aligned pointer plus offset.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // HP_CONVERSION_PASSES_TD
