//===- Passes.td - dtensor transformation passes -----------*- tablegen -*-===//

#ifndef HP_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD
#define HP_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"
include "hp/Dialect/DTensor/Transforms/PlanningOptions.td"

// What the strategy chooser weighs: shared by the pass that chooses and
// leaves its choice in the IR and the pass that chooses (where the IR does
// not say) and rewrites.
// The warnings of the pass that rewrites (dtensor-apply-strategies) and of
// dtensor-propagate, which runs it.
defvar GatherWarningOptions = [
    Option<"warnGatherBytes", "warn-gather-bytes", "uint64_t",
           /*default=*/"67108864",
           "Warn when a redistribute gathers a whole tensor of at least this "
           "many bytes on every rank, naming the op that forced it (0: never)">,
    Option<"warnGatherNamedArgs", "warn-gather-named-args", "bool",
           /*default=*/"false",
           "Warn whatever its size when a redistribute gathers a whole "
           "function argument that has a `dtensor.arg_name` (hp.torch names "
           "the parameters and buffers so), naming it and the op that forced "
           "it">,
];

defvar ChooserOptions = !listconcat(PlanCostOptions, [
    Option<"flopBytes", "flop-bytes", "double", /*default=*/"4.5e-4",
           "Bytes of communication worth one flop of compute (default: an "
           "H100's NVLink bytes per dense bf16 flop)">,
    Option<"printStrategies", "print-strategies", "bool", /*default=*/"false",
           "Remark each op's strategy and flops, each redistribute's cause "
           "and plan, and the region's cost, bound and greedy cost">,
    Option<"maxTableSize", "max-table-size", "int64_t", /*default=*/"4194304",
           "Largest table (entries, 1 to 2^24) exact variable elimination "
           "may build; above it the choice is a window search with a lower "
           "bound">,
    Option<"paramMemoryWeight", "param-memory-weight", "double",
           /*default=*/"4",
           "The cost of each byte a redistribute adds to a rank's piece of a "
           "named argument (a parameter: `dtensor.arg_name`, also through "
           "transposes and reshapes), on top of the bytes it moves: a "
           "gathered weight stays whole on every rank, every step (0: none)">,
]);

def DTensorChooseStrategies : Pass<"dtensor-choose-strategies"> {
  let summary = "Choose a strategy for every op of each "
                "dtensor.global_region and leave it in the IR";
  let description = [{
    The first half of `dtensor-propagate`: gives every op of a
    `dtensor.global_region` body that propagation places a strategy, chosen
    to minimise the cost `dtensor-propagate` describes, and records it as a
    `dtensor.strategy` attribute (`#dtensor.strategy<operand placements ->
    result placements, loops = [...]>`). The region is left as it was
    otherwise: the choice can be read, tested with FileCheck, edited by hand
    or by another tool, and `dtensor-apply-strategies` then rewrites by it.

    Annotations already present follow the rule both passes share: a
    `dtensor.strategy` is a decision. It must be one of the op's strategies
    on the region's mesh (otherwise an error names the op), and it is kept:
    the pass chooses only for the ops without one, the others taking theirs
    as given (a user can pin one op and let the chooser place the rest).
    Running the pass again therefore changes nothing; to choose afresh
    (with other options, say), remove the annotations first. An annotation
    on an op that takes none (a constant, `dtensor.constrain`, a
    `dtensor.local_region`) is an error.

    Ops that run replicated in front of the region (constants,
    `tensor.empty`, scalar code) get no strategy; a region that must run
    replicated as a whole (a value no DTensor can hold) gets none either,
    with a remark naming the value. `print-strategies` remarks each op's
    strategy and the region's cost, its lower bound where the choice is not
    proven optimal, and the cost of torch's greedy choice.

    ```mlir
    %mm = linalg.matmul {dtensor.strategy = #dtensor.strategy<[[replicate],
        [shard<1>], [shard<1>]] -> [[shard<1>]], loops = [1]>}
        ins(%gx, %gw : ...) outs(%e : ...) -> tensor<8x32xf32>
    ```
  }];
  let options = ChooserOptions;
  let dependentDialects = ["::hp::dtensor::DTensorDialect"];
}

def DTensorApplyStrategies : Pass<"dtensor-apply-strategies"> {
  let summary = "Rewrite each dtensor.global_region into local regions by "
                "its ops' dtensor.strategy";
  let description = [{
    The second half of `dtensor-propagate`: rewrites a
    `dtensor.global_region` whose ops carry a `dtensor.strategy` (as
    `dtensor-choose-strategies` leaves them) into validate view: one
    `dtensor.local_region` per op on local tensors and a
    `dtensor.redistribute` wherever a value's placements change. Each
    annotation is checked, not trusted: it must be one of the op's
    strategies (the rule `dtensor-choose-strategies` describes). An op the
    region places that carries none is an error located at it; the pass
    never chooses.

    A region that must run replicated as a whole (a value no DTensor can
    hold) becomes maximal runs of its ops in one replicated local region
    each; an annotation in it is an error. `print-strategies` remarks each
    redistribute's cause and plan, and the number of ops and redistributes.
  }];
  let options = !listconcat(PlanCostOptions, [
    Option<"printStrategies", "print-strategies", "bool", /*default=*/"false",
           "Remark each redistribute's cause and plan, and the region's "
           "number of ops and redistributes">,
  ], GatherWarningOptions);
  let dependentDialects = ["::hp::dtensor::DTensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DTensorPropagate : Pass<"dtensor-propagate"> {
  let summary = "Choose a placement for every value of each "
                "dtensor.global_region and rewrite it into local regions";
  let description = [{
    Gives every op of a `dtensor.global_region` body a strategy (placements
    for its tensor operands and results), chosen to minimise the planner's
    cost of every redistribute plus `flop-bytes` times each op's flops per
    device, and rewrites the region into validate view: one
    `dtensor.local_region` per op on local tensors and a
    `dtensor.redistribute` wherever a value's placements change.
    `hp-partition` runs it first. It is `dtensor-choose-strategies` then
    `dtensor-apply-strategies` (each option goes to the halves that have
    it), with every option checked before either runs. docs/Propagation.md
    explains the strategies, the objective and the algorithm.

    - Structured ops (every `linalg` op: indexing maps and iterator types,
      read from upstream's `ShardingInterface` where registered) shard at most
      one loop per mesh axis: a parallel loop gives `shard<k>` to the
      operands and results whose map has it alone at position k; a reduction
      loop gives its results `partial<op>` from the body's combiner. A body
      linear in some operands passes `partial<sum>` through. Elementwise ops
      on tensors (`arith`, `math`) are structured ops with identity maps.
    - Shape ops (`tensor.expand_shape`, `collapse_shape`, `extract_slice`,
      `insert_slice`, `pad`, `concat`) keep the dims they do not cut split.
    - Constants, `tensor.empty` and scalar code run replicated in front of
      the region; a local chunk of them is free.
    - `linalg.softmax` splits any dim but the one it normalises.
    - Anything else runs replicated, with a remark naming it, unless a
      `StrategyOpInterface` model gives it strategies (the rules above are
      such models: docs/Propagation.md, "Open op rules").
    - `dtensor.constrain` and the boundary's placements are fixed; a
      `dtensor.local_region` in the body keeps its declared layouts.

    `param-memory-weight` prices the growth of a parameter's piece (a
    function argument with a `dtensor.arg_name`). A parameter's
    `dtensor.fsdp_axes = array<i64: ...>` names the mesh axes that split it
    only to store it (FSDP, ZeRO-3: every step gathers it along them, as
    torch's `fully_shard` does): its piece is weighed as if gathered along
    them, so FSDP's gather is priced by its bytes alone while a gather along
    any other axis still pays for memory. Each named axis must split the
    argument (`shard` or `strided_shard`); an empty list, or the attribute
    on an unnamed argument, is an error of the dialect's verifier (wherever
    the attribute appears), and on a non-DTensor argument an error of this
    pass.

    A `dtensor.strategy` already on an op is a decision, as
    `dtensor-choose-strategies` says: checked against the op's strategies,
    then kept, the chooser placing only the ops without one.

    The choice is exact (variable elimination) unless a table would exceed
    `max-table-size` entries; then it is a window search started from
    torch's greedy choice and from a relaxation (the far uses of values
    dropped) whose exact minimum is a lower bound, and `print-strategies`
    reports the gap to that bound. It is never worse than greedy.

    ```mlir
    %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<8x16xf32, @tp, [replicate]>,
        !dtensor.tensor<16x32xf32, @tp, [shard<1>]>) -> !dtensor.tensor<8x32xf32, @tp, [shard<1>]> {
    ^bb0(%gx: tensor<8x16xf32>, %gw: tensor<16x32xf32>):
      %e = tensor.empty() : tensor<8x32xf32>
      %mm = linalg.matmul ins(%gx, %gw : tensor<8x16xf32>, tensor<16x32xf32>)
                          outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
      dtensor.yield %mm : tensor<8x32xf32>
    }
    // becomes: the matmul's column loop sharded, nothing moved but the free
    // local chunk of the empty init
    %c = dtensor.redistribute %e0 : ... [replicate] -> ... [shard<1>]
    %y = dtensor.local_region on @tp args(%x as "a0", %w as "a1", %c as "a2")
        out_placements = [[shard<1>]] : ... {
    ^bb0(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>, %o: tensor<8x8xf32>):
      %m = linalg.matmul ins(%a, %b : ...) outs(%o : tensor<8x8xf32>) -> tensor<8x8xf32>
      dtensor.yield %m : tensor<8x8xf32>
    }
    ```

    Not supported yet, with an error: a `dtensor.local_region` nested in
    another op of the body (an `scf.for`, say) rather than at its top level.
  }];
  let options = !listconcat(ChooserOptions, GatherWarningOptions);
  let dependentDialects = ["::hp::dtensor::DTensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DTensorLowerScans : Pass<"dtensor-lower-scans"> {
  let summary = "Lower dtensor.scan on local tensors to a loop";
  let description = [{
    Every `dtensor.scan` becomes a loop nest on tensors that
    bufferization makes in place: the other dims outside, the scan's dim
    innermost, carrying the running value (in the carried type, from the
    row's `init` or the kind's identity) and writing each element, rounded
    to the element type, once. Linear in time and memory; a float sum adds
    in index order, as torch's sequential kernel does. `hp-lower-to-cpu`
    runs it before bufferization, after partitioning (a scan split across
    ranks is already its local scan and the pieces' totals).

    ```mlir
    %c = dtensor.scan sum %x dim = 0 : tensor<8xf32>
    // becomes
    %r:2 = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero, %t = %empty) -> (f64, tensor<8xf32>) {
      %v = tensor.extract %x[%i] : tensor<8xf32>
      %w = arith.extf %v : f32 to f64
      %s = arith.addf %acc, %w : f64
      %n = arith.truncf %s : f64 to f32
      %u = tensor.insert %n into %t[%i] : tensor<8xf32>
      scf.yield %s, %u : f64, tensor<8xf32>
    }
    ```

    With `gpu`, a scan is refused with a located error instead:
    `hp-lower-to-gpu` has no kernel for it yet (a host loop over device
    memory would copy every element).
  }];
  let options = [
    Option<"gpu", "gpu", "bool", /*default=*/"false",
           "Refuse scans (the GPU target has no kernel for them)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DTensorLowerSorts : Pass<"dtensor-lower-sorts"> {
  let summary = "Lower dtensor.sort on local tensors to a radix sort";
  let description = [{
    Every `dtensor.sort` becomes a least-significant-digit radix sort of
    each row on tensors. Each element has a 64-bit key whose unsigned order
    is torch's order: an integer's sign bit flipped, a float's
    sign-magnitude bits made unsigned (both zeros one key, every NaN the
    largest), inverted for `descending`. One read of each row counts every
    byte of its keys (256 counts per byte of the element, which no pass
    changes); then one pass per byte, lowest first, is a counting sort of
    the row by that byte: take the byte's counts' exclusive prefix, place
    each element at its byte's next position. Each pass is stable, so the
    sort is: equal elements (and NaNs) keep their order. The first pass
    reads the input (an element's position is its own), the last writes
    the results; the passes before the last write two scratch pairs of
    tensors (values, positions) in turn, pass k + 2 rewriting pass k's, so
    bufferization copies nothing. Time and memory linear in the input (4
    passes for 32-bit elements, 8 for 64-bit, 1 for booleans). Positions
    travel between passes in 32 bits where a row's static length fits them
    (less memory for the passes' scattered writes); the last pass writes
    them as i64.

    torch's topk is a sort whose values and indices are read only by slices
    of their first k along the sorted dim (every other dim whole, and
    `tensor.dim` of those). For k up to 64 and below the row's length, such
    a sort becomes a selection instead: one pass over each row keeping the
    first k elements so far in order (an element that comes strictly before
    the last kept one, by the same keys, enters at its place after the
    kept ones it does not come before: ties keep their order, as in the
    stable sort), in k-sized results that replace the slices. About one
    step per element on a row in no particular order; k per element on a
    row already in order. `hp-lower-to-cpu`
    runs it beside `dtensor-lower-scans`, before bufferization.

    With `gpu`, a sort is refused with a located error instead, as
    `dtensor-lower-scans` refuses scans.
  }];
  let options = [
    Option<"gpu", "gpu", "bool", /*default=*/"false",
           "Refuse sorts (the GPU target has no kernel for them)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def DTensorExpandLocalRegions : Pass<"dtensor-expand-local-regions"> {
  let summary = "Inline local regions and local calls between to_local and from_local";
  let description = [{
    Every `dtensor.local_region` becomes, in order: a `dtensor.redistribute`
    for each DTensor operand whose declared placement differs (only with
    `redistribute_inputs`), a `dtensor.to_local` per DTensor operand, the
    inlined body, and a `dtensor.from_local` per wrapped output. Non-DTensor
    operands, unwrapped outputs (no DTensor operand, no `out_placements`, a
    `none` entry) and yielded DTensors pass through unchanged.

    A `dtensor.local_call` becomes the same, with a `func.call` of the local
    function in place of the inlined body.

    ```mlir
    %r = dtensor.local_region on @m args(%x as "x") in_placements = {x = [replicate]}
        out_placements = [shard<0>] redistribute_inputs
        : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]> {...}
    // becomes
    %0 = dtensor.redistribute %x : ... [shard<0>] -> ... [replicate]
    %1 = dtensor.to_local %0 : ... -> tensor<8xf32>
    ... inlined body ...
    %r = dtensor.from_local %y : tensor<4xf32> -> !dtensor.tensor<8xf32, @m, [shard<0>]>
    ```
  }];
  let dependentDialects = ["::hp::dtensor::DTensorDialect"];
}

def DTensorCheckContracts : Pass<"dtensor-check-contracts"> {
  let summary = "Refuse replicate claims that a local region's body breaks";
  let description = [{
    For every `dtensor.local_region` that wraps its outputs (and is not
    `unchecked`), finds the mesh axes each yielded value may vary over
    (`hp/Dialect/DTensor/Analysis/Variance.h`): a value varies over axis a
    if it depends on an argument whose layout splits a or leaves it
    partial, on `axis_index` of a, or on an all_to_all, shift or
    reduce_scatter over a; all_gather and all_reduce over a make it
    invariant over a; every other op, call and region (with the conditions
    that select what it yields) propagates the union.

    Declaring `replicate` over an axis the value varies over is an error
    that names the axis and where the variation comes from, and suggests
    `partial<sum>` when a contraction over a dim split along that axis made
    it. Every hp pipeline runs this pass first. Like JAX's `check_vma`, and
    unlike torch's `local_map` and hyper_parallel, which trust the
    declaration.
  }];
  let dependentDialects = ["::hp::dtensor::DTensorDialect"];
}

def DTensorCloneUnmovableProducers : Pass<"dtensor-clone-unmovable-producers"> {
  let summary = "Give every consumer of a value a DTensor cannot hold its own "
                "copy of the ops computing it";
  let description = [{
    A tensor whose element type NCCL cannot move (an `i1` mask) cannot be a
    DTensor, so a `dtensor.global_region` whose body has one between ops
    runs replicated. Elementwise fusion puts such values inside one op's
    body, but only for a producer with a single consumer; a causal mask
    shared by every layer of a model stays between ops. This pass leaves the
    producing op to one use and gives every other use its own copy of it (ops free of memory
    effects whose results are all such tensors: a `linalg` op on tensors, a
    constant, `tensor.empty`), right before the user, repeating for the
    copy's operands, so that `linalg-fuse-elementwise-ops` then fuses each
    copy into its consumer. `hp.torch` runs it before fusion.

    ```mlir
    %mask = linalg.generic ... -> tensor<16x16xi1>
    %a = linalg.generic ins(%mask, %x ...)   // layer 1's masked_fill
    %b = linalg.generic ins(%mask, %y ...)   // layer 2's
    // becomes: %mask for one of them, a copy right before the other
    ```
  }];
}

def DTensorWidenBoolTensors : Pass<"dtensor-widen-bool-tensors"> {
  let summary = "Hold every i1 tensor between ops as i8, so that a DTensor "
                "can hold it";
  let description = [{
    NCCL moves bytes, not bits, so a DTensor cannot hold `i1`; a mask left
    between two ops (the "is any key unmasked" reduction of SDPA's safe
    softmax, a mask several consumers read, the boolean masks transformers
    builds) would make `dtensor-propagate` run its whole region replicated.
    This pass holds each such tensor as `i8` (0 or 1): a `linalg.generic`
    producing one yields `arith.extui` of the bit it computed, one reading
    it reads `arith.trunci` of its block argument (or of a `tensor.extract`
    in its body), `linalg.fill`, `transpose`, `broadcast`, `copy` and
    constants are rebuilt on bytes, and ops that only move elements
    (`tensor.empty`, reshapes, slices, `concat`, `cast`) change type. Block
    arguments (a function's signature) stay `i1`: their uses read an
    `arith.extui` copy. An op it does not know reads `arith.trunci` of the
    tensor and its `i1` results are widened after it. Nothing grows: an
    `i1` element takes a byte in memory anyway. `hp.torch` runs it after
    elementwise fusion.

    ```mlir
    %m = linalg.generic ... outs(%e : tensor<4x8xi1>) { ... linalg.yield %bit : i1 }
    // becomes
    %m = linalg.generic ... outs(%e : tensor<4x8xi8>) {
      ... %b = arith.extui %bit : i1 to i8
      linalg.yield %b : i8 }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def DTensorGlobalize : Pass<"dtensor-globalize", "::mlir::ModuleOp"> {
  let summary = "Turn functions on plain tensors annotated with placements "
                "into global-view DTensor functions";
  let description = [{
    The way in for frontends (`hp.torch`, or any importer producing
    `func.func` on tensors): annotations in the style of Shardy's
    `sdy.sharding` say where values live, and this pass builds hp's global
    view from them. Each `func.func` carrying `dtensor.mesh = @mesh`:

    - gets DTensor argument and result types on that mesh, with the
      placements of the argument or result attribute `dtensor.placements`
      (an array of placements), replicated where there is none; arguments
      and results that are not tensors of static shape and of a type a
      DTensor holds pass through (the dialect's `isPlaceableTensorType`,
      which `dtensor-propagate` follows too), and placements on one are an
      error;
    - has its body moved into one `dtensor.global_region` on the mesh;
    - turns each result carrying `dtensor.constrain = [placements]` into a
      `dtensor.constrain` of the returned value, read by every other use of
      it (pins on one value chain in result order), and drops that result:
      an importer marks inner values (a submodule's output) by returning
      them.

    ```mlir
    func.func @f(%x: tensor<8x16xf32>,
                 %w: tensor<16x32xf32> {dtensor.placements = [#dtensor.shard<1>]})
        -> (tensor<8x32xf32>, tensor<8x32xf32> {dtensor.constrain = [#dtensor.shard<1>]})
        attributes {dtensor.mesh = @tp} { ... return %y, %h : ... }
    // becomes
    func.func @f(%x: !dtensor.tensor<8x16xf32, @tp, [replicate]>,
                 %w: !dtensor.tensor<16x32xf32, @tp, [shard<1>]>)
        -> !dtensor.tensor<8x32xf32, @tp, [replicate]> {
      %r = dtensor.global_region on @tp args(%x, %w) : ... {
      ^bb0(%gx: tensor<8x16xf32>, %gw: tensor<16x32xf32>):
        ... %hc = dtensor.constrain %h [shard<1>] : tensor<8x32xf32> ...
        dtensor.yield %y : tensor<8x32xf32>
      }
      return %r : ...
    }
    ```
    Errors name the function and the argument or result: a mesh that does
    not exist, placements that do not fit the tensor, a pin on an argument,
    a body of more than one block.
  }];
  let dependentDialects = ["::hp::dtensor::DTensorDialect"];
}

def DTensorAddDriver : Pass<"dtensor-add-driver", "::mlir::ModuleOp"> {
  let summary = "Add @main, which reads a function's arguments from files, "
                "calls it and writes its results";
  let description = [{
    Makes a program that `hp-runner` runs as it is: `@main` (no arguments,
    no results) calls the function `entry` with arguments read from the
    runtime's tensor files and writes its results back
    (docs/Runtime.md, "Arguments and results as files"). A DTensor argument
    `k` that some mesh axis splits is read by blocks: each rank computes its
    block's offsets and sizes from its coordinate (`dtensor.axis_index`) by
    the layout model (torch.chunk pieces; nested, strided, uneven and empty
    splits alike), allocates its local tensor and fills it with
    `hp_read_tensor_block(k, address, dims, rank, element bytes)` (`dims`:
    per dim the global size, the offset and the size), so no rank holds a
    whole split parameter; a `partial` placement's zeros are added after
    by a `dtensor.redistribute` from `replicate`, nothing moved. Any other
    argument is read whole with `hp_read_tensor(k, address, bytes)`
    (`$HP_TENSOR_DIR/arg<k>.bin`). Each DTensor result is
    redistributed to `replicate`, and `hp_write_tensor(k, address, bytes)`
    writes result `k` (rank 0, `result<k>.bin`). Plain tensor arguments and
    results travel as they are.

    With `repeat` > 1, `@main` calls `entry` once to warm up, then
    `repeat - 1` times between two readings of `rtclock` (MLIR's runner
    utilities), writes the results of the last call and, as one more result
    (`result<n>.bin`, n the number of results), the seconds per call as one
    f64.

    With `session-inputs=K` (K >= 0), `@main` serves calls until its client
    stops it (docs/Runtime.md, "Sessions"): the arguments from K on (the
    parameters) are read once, then each call that `hp_session_next()`
    announces reads arguments 0 to K-1 from that call's directory, calls
    `entry`, writes the results there and reports itself done with
    `hp_session_done()`; `hp_session_next()` = -1 ends the loop.
    `state-args=a,b state-results=r,s` keeps arguments a and b resident:
    the loop carries them, each call's results r and s (redistributed to
    the arguments' placements) are the next call's a and b, and are not
    written; `hp_session_next()` = -2 asks for them, written as result
    files r and s of that request's directory.
    `extra-entries=prefill,...` serves other functions on the same ranks,
    parameters and state: each must end with the entry's shared arguments
    (those from K on, same types), its arguments before them are read per
    call, and its results at `state-results` must have the entry's types.
    A call runs the function `hp_session_entry(count)` names (0: `entry`,
    i: the i-th extra entry; an `scf.index_switch`).

    ```mlir
    func.func @forward(%x: !dtensor.tensor<2x4xf32, @tp, [shard<1>]>)
        -> !dtensor.tensor<2x4xf32, @tp, [shard<1>]>
    // gets
    func.func private @hp_read_tensor_block(i64, i64, i64, i64, i64)
    func.func private @hp_write_tensor(i64, i64, i64)
    func.func @main() {
      %i = dtensor.axis_index @tp "d0" : index
      %off = arith.muli %i, %c2 : index          // columns 2i, 2i + 1
      %in0 = memref.alloc() : memref<2x2xf32>
      %dims = memref.alloca() : memref<6xi64>    // [2, 0, 2, 4, %off, 2]; %pd its address
      call @hp_read_tensor_block(%c0, %p, %pd, %c2, %c4) : (i64, i64, i64, i64, i64) -> ()
      %t0 = bufferization.to_tensor %in0 restrict : memref<2x2xf32> to tensor<2x2xf32>
      %a0 = dtensor.from_local %t0 : ... -> !dtensor.tensor<2x4xf32, @tp, [shard<1>]>
      %o = call @forward(%a0) : ...
      ... redistribute to replicate, to_local, materialize into a buffer,
      call @hp_write_tensor(%c0, %q, %c32) ...
    }
    ```
    Errors name the function, argument or result: no function `entry` with a
    body, a `@main` already there, an argument or result that is not a
    statically shaped tensor (or DTensor) of whole bytes, runtime functions
    declared with other types, `session-inputs` above the argument count or
    with `repeat`.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"forward\"",
           "The function @main calls">,
    Option<"repeat", "repeat", "int64_t", /*default=*/"1",
           "Calls of the function (> 1: timed, seconds per call written "
           "as one more result)">,
    Option<"sessionInputs", "session-inputs", "int64_t", /*default=*/"-1",
           "Serve calls (a session) whose first K arguments change per call; "
           "the others are read once (-1: one call)">,
    ListOption<"stateArgs", "state-args", "int64_t",
               "Session arguments kept on the ranks and updated by each "
               "call (resident state)">,
    ListOption<"stateResults", "state-results", "int64_t",
               "For each of state-args, the result that is its next value">,
    ListOption<"extraEntries", "extra-entries", "std::string",
               "Other functions a session serves (the request names one), "
               "ending with the entry's shared arguments">,
  ];
  let dependentDialects = ["::hp::dtensor::DTensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def DTensorDropLayoutAttrs : Pass<"dtensor-drop-layout-attrs"> {
  let summary = "Remove dtensor.* attributes so that upstream tools take the output";
  let description = [{
    Removes every discardable attribute in the `dtensor.` namespace: the
    `dtensor.sharding` argument and result attributes of functions
    (including `llvm.func`) and `dtensor.axis_names` / `dtensor.devices` on
    grids. `hp-lower-to-cpu` and `hp-lower-to-gpu` end with it unless
    `keep-layout-attrs` is set, so their output is pure LLVM dialect that
    `mlir-translate --mlir-to-llvmir` accepts as is.
  }];
}

def DTensorPrintLayouts : Pass<"dtensor-print-layouts"> {
  let summary = "Draw which device holds which block of each DTensor";
  let description = [{
    Like torch's `visualize_sharding` and JAX's
    `jax.debug.visualize_array_sharding`: for every DTensor function argument
    and op result of rank 1 or 2 with a static shape, a remark draws the
    global tensor as a grid of blocks (row and column ranges), each cell
    naming the devices (linear mesh indices) that hold it. Uneven and empty
    blocks show as they are; partial placements are marked. Meshes of more
    than 256 devices get a one-line summary. The IR is unchanged.

    ```
    remark: layout of !dtensor.tensor<10x8xf32, @m, [shard<0>, shard<1>]>:
      rows \ cols  0-3     4-7
      0-4           dev 0   dev 1
      5-9           dev 2   dev 3
    ```
  }];
  let dependentDialects = ["::hp::dtensor::DTensorDialect"];
}

#endif // HP_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD
