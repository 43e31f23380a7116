//===- Passes.td - dtensor transformation passes -----------*- tablegen -*-===//

#ifndef HP_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD
#define HP_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DTensorPropagate : Pass<"dtensor-propagate"> {
  let summary = "Place the values of every dtensor.global_region and rewrite it "
                "into local regions";
  let description = [{
    Rewrites each `dtensor.global_region` into validate view: per group of
    ops a `dtensor.local_region`, and `dtensor.redistribute` where a value's
    placements change. `hp-partition` runs it first.

    This version gives every op the replicated strategy (every operand
    `replicate`, which is right for any op): a maximal run of ops between
    constraints and local regions becomes one local_region on whole tensors.
    `dtensor.constrain` redistributes its value to the placements it names;
    a `dtensor.local_region` in the body gets its operands redistributed to
    its `in_placements` and its results laid out as its `out_placements`
    say; each result is redistributed to its result type's placements (a
    local chunk from replicate). The numbers are the single-device
    program's; sharded strategies chosen by cost are not implemented yet.

    ```mlir
    %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [shard<0>]>)
        -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
    ^bb0(%g: tensor<8xf32>):
      %d = arith.addf %g, %g : tensor<8xf32>
      dtensor.yield %d : tensor<8xf32>
    }
    // becomes
    %r = dtensor.redistribute %x : ... [shard<0>] -> ... [replicate]
    %l = dtensor.local_region on @tp args(%r as "a0") out_placements = [[replicate]] : ... {
    ^bb0(%a: tensor<8xf32>):
      %d = arith.addf %a, %a : tensor<8xf32>
      dtensor.yield %d : tensor<8xf32>
    }
    %y = dtensor.redistribute %l : ... [replicate] -> ... [shard<0>]
    ```

    Not supported yet, with an error: a `dtensor.local_region` nested in
    another op of the body (an `scf.for`, say) rather than at its top level.
  }];
  let dependentDialects = ["::hp::dtensor::DTensorDialect"];
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
