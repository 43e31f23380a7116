//===- Passes.td - dtensor transformation passes -----------*- tablegen -*-===//

#ifndef HP_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD
#define HP_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DTensorExpandLocalRegions : Pass<"dtensor-expand-local-regions"> {
  let summary = "Inline local regions between to_local and from_local";
  let description = [{
    Every `dtensor.local_region` becomes, in order: a `dtensor.redistribute`
    for each DTensor operand whose declared placement differs (only with
    `redistribute_inputs`), a `dtensor.to_local` per DTensor operand, the
    inlined body, and a `dtensor.from_local` per wrapped output. Non-DTensor
    operands, unwrapped outputs (no DTensor operand, no `out_placements`, a
    `none` entry) and yielded DTensors pass through unchanged.

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

def DTensorLowerRedistribute : Pass<"dtensor-lower-redistribute", "::mlir::ModuleOp"> {
  let summary = "Lower redistributes to cost-optimal shard collectives";
  let description = [{
    Plans every `dtensor.redistribute` as the cheapest sequence of steps
    (all_gather, reduce_scatter, all_reduce, all_to_all on one or several mesh
    axes; local chunk, zeroing, identity) under the cost model of
    `docs/RedistributePlanning.md`, and emits it as
    `to_local` + upstream `shard` collectives and tensor ops + `from_local`.
    Uneven splits are padded to the largest chunk for the collective and
    sliced back afterwards.

    Every `dtensor.mesh` becomes a `shard.grid` of the same name; axis names
    and a non-default device list travel as the discardable attributes
    `dtensor.axis_names` and `dtensor.devices`. dtensor ops keep naming the
    mesh symbol, which now resolves to the grid.
  }];
  let options = [
    Option<"latencyBytes", "latency-bytes", "uint64_t", /*default=*/"65536",
           "Per-collective latency (alpha) in equivalent bytes; 0 minimises "
           "bytes only">,
    ListOption<"axisWeights", "axis-weights", "double",
               "Bandwidth cost multiplier per mesh axis (default 1 each)">,
    Option<"printPlans", "print-plans", "bool", /*default=*/"false",
           "Emit a remark with each plan and its cost">,
  ];
  let dependentDialects = [
    "::hp::dtensor::DTensorDialect",
    "::mlir::shard::ShardDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
  ];
}

def DTensorPartition : Pass<"dtensor-partition", "::mlir::ModuleOp"> {
  let summary = "Rewrite functions to SPMD form on local tensors";
  let description = [{
    Runs after `dtensor-expand-local-regions` and `dtensor-lower-redistribute`,
    when DTensor values remain only at function boundaries and in
    `to_local`/`from_local` pairs. Every function then takes and returns
    local tensors; each former DTensor argument and result carries a
    `dtensor.sharding = #dtensor.sharding<@mesh, [placements], global = [..]>`
    attribute so launchers know how to feed each rank. Remaining
    `dtensor.mesh` ops become `shard.grid`. Afterwards no dtensor op or type
    remains; anything that cannot be partitioned is reported with its location.
  }];
  let dependentDialects = [
    "::hp::dtensor::DTensorDialect",
    "::mlir::shard::ShardDialect",
    "::mlir::func::FuncDialect",
  ];
}

#endif // HP_DIALECT_DTENSOR_TRANSFORMS_PASSES_TD
