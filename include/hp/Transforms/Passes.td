//===- Passes.td - hp passes that are not conversions ------*- tablegen -*-===//
//
// Passes that rewrite within dialects (local compute, NCCL buffers) or only
// check and decompose before lowering; the conversions between dialects are
// in hp/Conversion/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef HP_TRANSFORMS_PASSES_TD
#define HP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def NCCLContiguousBuffers : Pass<"nccl-contiguous-buffers"> {
  let summary = "Stage every NCCL buffer that is not provably contiguous";
  let description = [{
    Runs after one-shot bufferization, on the buffers `convert-shard-to-nccl`
    handed over with a fully dynamic layout. Looking through `memref.cast`s
    to the most precise layout of each buffer operand of an `nccl` op:

    * a provably contiguous buffer (identity layout, or static strides that
      are the row-major products of the sizes inside them) is used directly;
    * any other buffer is copied into a fresh contiguous allocation before
      the op (`linalg.copy`), and for a buffer NCCL writes, copied back
      after it.

    A strided buffer is never cast to an identity layout.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def CopyUnprovenIdentityCasts : Pass<"copy-unproven-identity-casts"> {
  let summary = "Replace memref.casts to an identity layout that hold only for some sizes by copies";
  let description = [{
    Runs right after one-shot bufferization. Bufferization satisfies an
    identity-layout type (a function result under
    `function-boundary-type-conversion=identity-layout-map`, a
    `to_buffer`) from a strided buffer with a `memref.cast` whenever no
    static stride contradicts it, although with a dynamic size the cast
    holds only for some run-time sizes:
    `memref<2x2x?xi64, strided<[6, 3, 1]>>` to `memref<2x2x?xi64>` is right
    only when the last size is 3. Each such cast whose source is not
    provably contiguous becomes an allocation and a `linalg.copy`, when its
    users only read it or hand it on (return, call); otherwise it gets a
    warning.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def ReadOnlyFunctionArguments
    : Pass<"read-only-function-arguments", "::mlir::ModuleOp"> {
  let summary = "Let bufferization never write into a function's tensor "
                "arguments";
  let description = [{
    Marks every tensor argument of every function with a body
    `bufferization.writable = false` (an argument that already says
    `bufferization.writable` keeps its value). A function on tensors has
    value semantics: it reads its arguments. Left writable, one-shot
    bufferization computes an elementwise op in place in the argument's
    buffer, so every caller that still needs the value copies it before the
    call (a driver calling `@forward` in a loop copies every argument every
    step). Read-only, the function writes into a buffer of its own (one
    copy at most, inside it, where an op reads and writes one operand) and
    callers pass their buffers as they are. `hp-lower-to-cpu` and
    `hp-lower-to-gpu` run it before bufferizing.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def FuseElementwiseProducers : Pass<"fuse-elementwise-producers"> {
  let summary = "Fuse elementwise linalg producers into their consumers, "
                "contractions excepted";
  let description = [{
    A `linalg.generic` on tensors whose loops are all parallel runs inside
    its consumer (upstream's elementwise fusion patterns) when its result
    has one use and the consumer is not a contraction: a chain of pointwise
    ops is one pass over memory with no intermediate tensor. A producer of
    a contraction's operand stays apart: fused, it would run again for
    every element of the other operand's free loops (the rotary embedding
    of `q` inside `q k^T`), and the contraction would no longer be the
    multiply-add that `convert-linalg-to-blas` sends to a BLAS. A producer
    that only permutes (a `linalg.transpose`, torch's `W.T` in every
    `nn.Linear`) is the exception: the contraction reads the untransposed
    operand through the permuted indexing map, so no transposed copy is
    made (a BLAS takes the operand by strides); both become generics for
    that.

    By default reshapes stay where they are, so a matmul followed by the
    `expand_shape` that splits attention heads stays a matmul.
    `propagate-reshapes` adds upstream's reshape propagation (fusion by
    expansion, as `linalg-fuse-elementwise-ops` does): `hp.torch` runs it
    that way on what torch-mlir imports, before placements are chosen, and
    `hp-lower-to-cpu` / `hp-lower-to-gpu` run it without after
    partitioning. `convert-linalg-to-blas` takes the multi-dim contractions
    the propagation makes.

    ```mlir
    %s = linalg.generic ... ins(%a, %b) { addf }    // one use
    %r = linalg.generic ... ins(%s, %c) { mulf }
    // becomes one linalg.generic ins(%a, %b, %c) { addf, mulf }
    ```
  }];
  let options = [
    Option<"propagateReshapes", "propagate-reshapes", "bool",
           /*default=*/"false",
           "Also move expand_shape / collapse_shape through linalg ops "
           "(upstream's fusion by expansion)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::tensor::TensorDialect"];
}

def VectorizeLinalgOnBuffers : Pass<"vectorize-linalg-on-buffers"> {
  let summary = "Tile structured ops on buffers by the vector register and "
                "vectorize each tile";
  let description = [{
    What `convert-linalg-to-blas` leaves (elementwise chains, reductions,
    broadcasts, transposes, fills) becomes loops whose innermost body works
    on whole vector registers instead of one element: each `linalg` op on
    buffers is tiled through upstream's `TilingInterface`, its innermost
    loop by the lanes of one `register-bits` register of its widest element
    type (16 f32 for 512 bits) and every other loop by 1; the innermost
    tile loop is peeled (upstream's loop peeling), so the full tiles work on
    static views with plain loads and stores and only the partial last tile
    of an uneven or dynamic extent runs under a mask, never a scalar
    remainder loop. An innermost reduction loop combines its tiles lane by
    lane into a vector accumulator carried by the tile loop, and one vector
    reduction after the loop folds it into the output element, read and
    written once per row. Ops whose operands do not all read the innermost
    loop contiguously or not at all (a transpose: a strided gather, whose
    masked lowering reads past the end of a buffer) and ops the vectorizer
    refuses (a body reading tensors with `tensor.extract`, `i1` or `index`
    elements) are left for `convert-linalg-to-loops`. The vectorizer's masks,
    multi-reductions and permuted transfers are then lowered to the forms
    `convert-vector-to-llvm` takes; a masked reduction becomes a `select` of
    the reduction's identity and an unmasked reduction (upstream's masked
    `maximumf` lowering uses `-denorm_min`, not `-inf`). Transcendentals on
    vectors (exp, expm1, log, log1p, log2, tanh, erf) become upstream's f32
    polynomial approximations (a few ulp from libm) instead of one libm call
    per lane, and `fpowi` on vectors becomes multiplications (LLVM's powi
    takes a scalar exponent); scalar math keeps its exact lowering.
    `hp-lower-to-cpu` runs it after `convert-linalg-to-blas`.

    ```mlir
    linalg.generic ... ins(%a, %b : memref<4x100xf32>, memref<4x100xf32>)
                       outs(%c : memref<4x100xf32>) { addf }
    // becomes
    scf.for %i = 0 to 4 {
      scf.for %j = 0 to 96 step 16 {   // full tiles: memref<1x16xf32> views
        %x = vector.transfer_read %a[%i, %j] ... : vector<16xf32>
        ... arith.addf : vector<16xf32> ... vector.transfer_write ...
      }
      scf.for %j = 96 to 100 step 16 { // the last tile, 4 lanes
        %m = vector.create_mask %c4 : vector<16xi1>
        %x = vector.transfer_read %a[%i, %j], %pad, %m ...
        ... vector.transfer_write ... %m
      }
    }
    ```
  }];
  let options = [
    Option<"registerBits", "register-bits", "int64_t", "512",
           "Width of one vector register in bits (512: AVX-512, the "
           "development machine; 256: AVX2)">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def DecomposeAggregatedOps : Pass<"decompose-aggregated-ops"> {
  let summary = "Expand linalg ops that stand for several (softmax) into them";
  let description = [{
    Every op on tensors with upstream's `AggregatedOpInterface`
    (`linalg.softmax`) becomes the ops it stands for (a max reduction, a subtraction and `exp`,
    a sum reduction, a division), which bufferize and lower like any other
    linalg op. Both hp lowering pipelines run it on tensors, before
    bufferization; one on buffers is left as it is (and `hp-lower-to-cpu`
    then reports it). A softmax of anything but floats (integers, index,
    complex: it verifies upstream, but has no -inf to start its max from) is
    refused with a diagnostic.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect"];
}

def CheckLoweredToLLVM : Pass<"check-lowered-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Fail on any op a lowering left outside the LLVM dialect";
  let description = [{
    The last pass of `hp-lower-to-cpu`: every op must be in the LLVM
    dialect (or be the module), so that `mlir-translate` and hp-runner get a
    program they can translate. Each op left over is an error naming it
    (`'linalg.foo' has no lowering to LLVM in this pipeline`), instead of an
    output that fails later in translation.
  }];
}

def FreeBuffersAfterLastUse : Pass<"free-buffers-after-last-use"> {
  let summary = "Free each buffer right after the last use of it or a view "
                "of it";
  let description = [{
    Upstream's ownership-based deallocation frees a block's buffers at the
    end of the block. A training step is one block: every temporary (each
    layer's all-gathered weights under FSDP, each activation's gradient)
    would live until the step returns, and the step's peak memory would be
    the sum of them all. This pass moves each `memref.dealloc` of an
    allocation (an op with an `Allocate` effect on it) in the dealloc's own
    block to just after the last op of that block that uses the buffer or
    any view of it (upstream's `BufferViewFlowAnalysis`: subviews, casts,
    reshapes, values through region branches and calls; a use inside a
    region, such as an `scf.for` body or an `nccl.group`, counts as its
    op's).

    A use-after-free would be a silent wrong number, so a dealloc stays
    where it is whenever the analysis may not see every reader: a view
    escapes the block (a use outside it or by its terminator) or is used
    after the dealloc; a user takes the address as a value of another type
    (`memref.extract_aligned_pointer_as_index`, as a driver does to hand a
    buffer to `hp_write_tensor`; `memref.extract_strided_metadata`; an
    `unrealized_conversion_cast`), makes a buffer or tensor the analysis
    does not count as a view (`memref.transpose`, `bufferization.to_tensor`),
    or a result of a type that may hold an address; stores the buffer as a
    value; frees it; or may use it after returning (`gpu`, `async`, `omp`,
    `llvm` and `ptr` ops, `memref.dma_start`). A buffer that is not a fresh
    allocation of the block (a call's result, a block argument) stays too.
    Calls are assumed not to keep a buffer past their return, as
    ownership-based deallocation assumes. `hp-lower-to-cpu` runs it after
    deallocation; `hp-lower-to-gpu` does not: a GPU buffer may still be read
    by a kernel or a collective queued on a stream.
  }];
}

def SplitIndependentDeallocs : Pass<"split-independent-deallocs"> {
  let summary = "Free each buffer no other may alias by a dealloc of its own";
  let description = [{
    Ownership-based deallocation ends each block with one
    `bufferization.dealloc` of every buffer the block owns, retaining the
    values it yields. A training step is one block of hundreds of buffers,
    and upstream's `buffer-deallocation-simplification` (and the
    canonicalizer before it) compare them pair by pair: quadratic in the
    buffers, which made lowering grow quadratically with a model's depth.
    This pass finds, once per operand, the allocations it may be a view of
    (upstream's `BufferViewFlowAnalysis`: views, `arith.select`, region
    branches such as `scf.if` and loop arguments): `memref.alloc` /
    `memref.alloca` results, each its own allocation, and the function's
    arguments, all taken as one (a caller may pass one buffer twice). A
    memref none of whose allocations another memref or a retained value of
    the op may be a view of is taken out into a `bufferization.dealloc` of
    its own, with its condition and nothing retained: distinct allocations
    never alias, so it is freed exactly when the whole op would free it. A
    memref of exactly one fresh allocation that no other memref shares,
    whose retained values are all of exactly that allocation, is dropped:
    the op would not free it, and those values' results become its
    condition. Whether any other retained value is owned depends only on
    the memrefs that stay. An op with an operand of unknown allocations (a
    call's result) is left as it is. Linear in each op.

    Not in `hp-lower-to-cpu` / `hp-lower-to-gpu` yet. Run between
    ownership-based deallocation and the simplification, it splits a
    training step's own deallocs (a 4-layer step's 6 ops of hundreds of
    buffers become over a thousand single ones), but the lowering time of
    an 8-layer step stayed at 33 s: the three deallocs left in the driver's
    step loop (117 retained values each, the step's results, which are
    call results of unknown allocations) and upstream's module-wide alias
    queries dominate. It joins the pipelines with a rule for call results
    (a callee that returns fresh, distinct allocations).
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def CheckAllocationSizes : Pass<"check-allocation-sizes", "::mlir::ModuleOp"> {
  let summary = "Refuse buffers whose size in bytes overflows 64 bits";
  let description = [{
    Upstream's lowering of `memref.alloc`, `memref.alloca` and
    `memref.realloc` multiplies the sizes and the element size in 64 bits
    without an overflow check: `memref<4611686018427387904xf32>` (2^64
    bytes) would allocate 0 bytes and run. Both hp lowering pipelines run
    this pass after bufferization. A static shape whose size in bytes
    exceeds 2^63 - 1 (also of a `memref.global`) is an error at the op
    (which bufferization gives the location of the tensor op it came
    from). An allocation with dynamic sizes gets a run-time check
    (`cf.assert`, one extended multiplication per dynamic size) that ends
    the program with the op's location instead of allocating a wrapped
    size.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect"];
}

#endif // HP_TRANSFORMS_PASSES_TD
