//===- PlanningOptions.td - the planner's cost options -----*- tablegen -*-===//
//
// The cost-model options of every pass that plans redistributes
// (dtensor-propagate, convert-dtensor-to-shard), declared once. The
// pipelines' PlanningOptions (hp/Pipelines/Pipelines.h) take their defaults
// from the generated option structs.
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_TRANSFORMS_PLANNINGOPTIONS_TD
#define HP_DIALECT_DTENSOR_TRANSFORMS_PLANNINGOPTIONS_TD

include "mlir/Pass/PassBase.td"

defvar PlanCostOptions = [
  Option<"latencyBytes", "latency-bytes", "uint64_t", /*default=*/"65536",
         "Per-collective latency (alpha) in equivalent bytes; 0 minimises "
         "bytes only">,
  ListOption<"axisWeights", "axis-weights", "double",
             "Bandwidth cost multiplier per mesh axis (default 1 each)">,
];

#endif // HP_DIALECT_DTENSOR_TRANSFORMS_PLANNINGOPTIONS_TD
