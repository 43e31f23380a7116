//===- Passes.td - hp conversion passes --------------------*- tablegen -*-===//

#ifndef HP_CONVERSION_PASSES_TD
#define HP_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"
include "hp/Dialect/DTensor/Transforms/PlanningOptions.td"

def ConvertDTensorToShard : Pass<"convert-dtensor-to-shard", "::mlir::ModuleOp"> {
  let summary = "Lower dtensor IR to SPMD code on local tensors with shard collectives";
  let description = [{
    One dialect conversion, run after `dtensor-expand-local-regions`. Its type
    converter maps every DTensor to the local tensor one rank holds. It
    replaces:

    * each `dtensor.mesh` by a `shard.grid` of the same name, axis names and
      a non-default device list kept as `dtensor.axis_names` (an array of
      strings) and `dtensor.devices` (a `DenseI64ArrayAttr`);
    * each `dtensor.redistribute` by its cost-optimal plan
      (docs/RedistributePlanning.md) emitted as upstream `shard` collectives
      and tensor ops on the local tensor; uneven splits are packed into equal
      slots for a collective and unpacked afterwards;
    * `dtensor.to_local` / `from_local` by the local value itself;
    * the axis-named collectives and `axis_index` by the `shard` op of the
      same name, the listed axis order becoming `grid_axes`;
    * DTensor arguments and results of functions, calls, returns and `scf`
      control flow by local tensors; each former DTensor boundary keeps its
      layout as `dtensor.sharding = #dtensor.sharding<@mesh, [..], global = [..]>`.

    Afterwards no dtensor op or type remains. With `verify-plans` every plan
    is first run through the plan checker, which simulates it from the
    layout's and the collectives' definitions; a plan it refuses is an error
    that prints the plan, and nothing is emitted.

    `hp-opt --mlir-pass-statistics` reports three counts: `redistributes`
    (planned), `collectives` (in the plans) and `bytes-per-rank` (bytes one
    rank sends, summed over the plans). Debian's LLVM is built without
    `LLVM_ENABLE_STATS`, which makes MLIR's `Pass::Statistic` a no-op (and a
    different object layout in code built without NDEBUG), so hp declares no
    `Statistic` members: hp-opt collects these counts itself and appends
    them to MLIR's report. Other drivers (upstream `mlir-opt` with the
    plugin) do not show them; `print-totals` gives the same totals as a
    remark in any driver.
  }];
  let options = !listconcat(PlanCostOptions, [
    Option<"printPlans", "print-plans", "bool", /*default=*/"false",
           "Emit a remark with each plan and its cost">,
    Option<"printTotals", "print-totals", "bool", /*default=*/"false",
           "Emit a remark with the number of redistributes and collectives "
           "and the bytes per rank planned in the module">,
    Option<"verifyPlans", "verify-plans", "bool", /*default=*/"false",
           "Check every plan by simulation before emitting it">,
  ]);
  let dependentDialects = [
    "::hp::dtensor::DTensorDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::shard::ShardDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ConvertShardToNCCL : Pass<"convert-shard-to-nccl", "::mlir::ModuleOp"> {
  let summary = "Lower upstream shard collectives to nccl ops on buffers";
  let description = [{
    Every `shard` collective on tensors becomes an `nccl` op on contiguous
    memrefs, bridged with `bufferization.to_buffer` / `to_tensor` so that
    one-shot bufferization can run afterwards. NCCL concatenates and splits
    along the leading dimension in rank order, so a gather, scatter or split
    axis that is not leading is transposed into and out of a staging tensor.
    Communicators are `nccl.comm @grid axes = [...]` in the collective's
    `grid_axes` order. `shard.process_linear_index` becomes `nccl.comm_rank`
    of the whole-grid communicator; `process_multi_index` is lowered to it
    by upstream's pattern. The input may come from hp's
    passes or from upstream `shard-partition`: every op of the 22.x `shard`
    dialect is handled (docs/Passes.md has the table). It is one dialect
    conversion: no `shard` op is left afterwards, and `!shard.sharding`
    values are dropped by its type converter, from signatures, calls and
    returns too. Each `shard.grid` a communicator names becomes the
    `nccl.grid` of that name, with the shape and the verified
    `dtensor.devices` list the runtime needs; any other grid is erased. `update_halo` exchanges halos with the
    split-axis neighbours in one `nccl.group` per split dim; reductions
    whose result element type differs accumulate in the wider type; the
    grid and sharding queries become index arithmetic. What hp cannot lower (an element
    type or reduction NCCL lacks, an all_to_all split not divisible by its
    group, a halo list without a pair per split dim, a sharding value an op
    needs at run time) is a located error, before anything is rewritten.
    On a grid with dynamic axes, group sizes come from the communicator
    (`nccl.comm_size`) at run time.
  }];
  let dependentDialects = [
    "::hp::nccl::NCCLDialect",
    "::mlir::affine::AffineDialect",
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
    communicator once per process; the `nccl.grid` it names becomes LLVM
    globals (name, shape, device list) and is erased. Memrefs must be contiguous; the buffer
    pointer is the aligned pointer plus offset.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ConvertStridedCopyToLinalg
    : Pass<"convert-strided-copy-to-linalg", "::mlir::func::FuncOp"> {
  let summary = "Rewrite copies between strided views as linalg.copy";
  let description = [{
    A `memref.copy` whose source or target has a non-identity layout (a
    slice of a buffer, as bufferization emits for `tensor.extract_slice`
    feeding a collective or a function call) becomes `linalg.copy`. In the
    GPU pipeline such a copy then becomes a kernel like any other linalg op,
    whereas a copy of a whole contiguous buffer stays a `memref.copy` and
    later a `gpu.memcpy`. On CPUs (`keep-contiguous`), a copy both of whose
    sides are provably one contiguous block (static sizes and strides, any
    offset) stays a `memref.copy`, which becomes one `memcpy`; the rest are
    vectorized like any linalg op instead of the element-by-element
    `memrefCopy` of MLIR's runtime.
  }];
  let options = [
    Option<"keepContiguous", "keep-contiguous", "bool", /*default=*/"false",
           "Leave copies between statically contiguous views (one memcpy) "
           "as memref.copy">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def ConvertLinalgToBLAS : Pass<"convert-linalg-to-blas", "::mlir::ModuleOp"> {
  let summary = "Call a BLAS (CPU) or cuBLAS (GPU) for f32 and f64 "
                "contractions on buffers";
  let description = [{
    Every linalg op on memrefs whose body multiplies its two inputs and adds
    the product to its init, with f32 or f64 elements, projected-permutation
    indexing maps and every loop a batch (A, B, C), m (A, C), n (B, C) or k
    (A, B; a reduction) loop, at least one k loop and one m or n loop, and
    at most 10 loops (`linalg.matmul`, `batch_matmul`, `matvec`, `vecmat`,
    and generics with several loops of a kind: an attention projection with
    heads and head dims), becomes one call of hp's runtime: `hp_contract_f32`
    / `hp_contract_f64` on CPUs, `hp_gpu_contract_f32` / `..._f64` with
    `target=gpu`. The operands go as unranked memrefs, then the number of
    loops and two i64 words holding, for each loop, the dim of A, B and C it
    indexes (`include/hp/Runtime/ContractionPlan.h`: 4 bits each, dim + 1,
    0 for none; 12 bits per loop, 5 loops per word). At run time the runtime
    merges loops of one kind that are one contiguous range in every operand,
    runs the largest m, n and k loops a BLAS accepts as one gemm (oneDNN's
    sgemm and OpenBLAS's dgemm on CPUs, cuBLAS on the rank's stream on GPUs;
    a transposed operand passes the transpose flag, not a copy; a
    column-major C computes C^T) and loops over the rest. On CPUs a gemm no
    BLAS takes runs as a plain loop in the runtime; on GPUs only
    contractions whose static sizes and strides already fit a BLAS are
    converted, the others stay linalg ops and become kernels. Other element
    types (integers, f16, bf16), other bodies and shapes stay linalg ops, as
    do contractions whose output is a view of the same buffer as an input (a
    BLAS reads its inputs before writing, loops do not). A program function
    that holds an entry point's name is an error.

    ```mlir
    linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%c : memref<8x6xf32>)
    // becomes (loops m, n, k: A dims 0, -, 1; B -, 1, 0; C 0, 1, -)
    %ca = memref.cast %a : memref<8x4xf32> to memref<*xf32>
    ...
    %loops = arith.constant 3 : i64
    %w0 = arith.constant 304218369 : i64   // 0x12220101
    %w1 = arith.constant 0 : i64
    func.call @hp_contract_f32(%ca, %cb, %cc, %loops, %w0, %w1) : (...) -> ()
    ```
    `hp-lower-to-cpu` runs it after bufferization, `hp-lower-to-gpu` with
    `target=gpu` before the rest of linalg becomes kernels. `HP_CPU_THREADS`
    (default 1: one thread per rank, as torch under torchrun) sets the
    threads the CPU libraries use.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "Where the program runs: 'cpu' (oneDNN / OpenBLAS) or 'gpu' "
           "(cuBLAS)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def ConvertMemRefToGPU : Pass<"convert-memref-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Put every buffer in device memory (after kernel outlining)";
  let description = [{
    For the GPU pipeline, after bufferization and kernel outlining:
    `memref.alloc`/`dealloc` become `gpu.alloc`/`gpu.dealloc` (device
    memory), `memref.copy` becomes `gpu.memcpy`, and constant globals are
    copied to the device where they are used. The entry function's memref
    arguments are copied to the device on entry and its memref results back
    to host memory before it returns; those are the only host/device copies
    of data that stays in buffers. Buffers that only host code touches
    (element loads and stores, `memref.dim`, deallocation, and calls to
    functions that do the same, such as the bookkeeping of ownership-based
    deallocation) and constants read only on the host stay in host memory.
    Host code that still loads or stores an element of a device buffer (a
    scalar check, `tensor.extract`) goes through a host copy of that buffer.
  }];
  let options = [
    Option<"entryPoint", "entry-point", "std::string", /*default=*/"\"main\"",
           "Function whose buffer arguments/results are host memory (must exist unless main)">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

#endif // HP_CONVERSION_PASSES_TD
