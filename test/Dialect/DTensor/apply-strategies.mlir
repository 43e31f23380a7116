// dtensor-apply-strategies: the region rewritten by its ops' annotations
// (as dtensor-choose-strategies leaves them, or a user writes them), and
// each of its options. The costs in the plans are checked by hand: an
// all_gather of 16x8 f32 (512 B) over 4 ranks moves 3/4 of it, 384 B, plus
// latency-bytes (65536 by default) per collective, the bytes times the
// axis weight.
// RUN: hp-opt %s -dtensor-apply-strategies | FileCheck %s
// RUN: hp-opt %s -dtensor-apply-strategies=print-strategies --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: hp-opt %s -dtensor-apply-strategies="print-strategies latency-bytes=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAT0
// RUN: hp-opt %s -dtensor-apply-strategies="print-strategies axis-weights=2" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=WEIGHT
// RUN: hp-opt %s -dtensor-apply-strategies="warn-gather-bytes=512" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: hp-opt %s -dtensor-apply-strategies="warn-gather-bytes=513" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWARN --allow-empty
// RUN: hp-opt %s -dtensor-apply-strategies="warn-gather-bytes=0 warn-gather-named-args" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAMED
// RUN: not hp-opt %s -dtensor-apply-strategies="axis-weights=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADW

dtensor.mesh @tp shape = [4] names = ["tp"]

// The matmul and the addf on row blocks: the init's rows are a free local
// chunk, the result is gathered at the boundary; nothing is chosen and the
// annotations are gone.
// CHECK-LABEL: func.func @rows
// CHECK: %[[C:.*]] = dtensor.redistribute %{{.*}} : !dtensor.tensor<16x8xf32, @tp, [replicate]> -> !dtensor.tensor<16x8xf32, @tp, [shard<0>]>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x32xf32>, tensor<32x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<4x8xf32>
// CHECK: dtensor.redistribute %{{.*}} : !dtensor.tensor<16x8xf32, @tp, [shard<0>]> -> !dtensor.tensor<16x8xf32, @tp, [replicate]>
// CHECK-NOT: dtensor.strategy
// PRINT: remark: redistribute 'tensor<16x8xf32>' [R] -> [S(0)] for operand #2 of 'linalg.matmul': cost=0.000000e+00 collectives=0 steps=[chunk(axes=[0], dim=0
// PRINT: remark: redistribute 'tensor<16x8xf32>' [S(0)] -> [R] for result #0 of the region: cost=6.592000e+04 collectives=1 steps=[all_gather(axes=[0], dim=0
// PRINT: remark: dtensor-apply-strategies: 2 ops, 2 redistributes
// LAT0: remark: redistribute 'tensor<16x8xf32>' [S(0)] -> [R] for result #0 of the region: cost=3.840000e+02
// WEIGHT: remark: redistribute 'tensor<16x8xf32>' [S(0)] -> [R] for result #0 of the region: cost=6.630400e+04
// WARN: warning: gathers the whole 'tensor<16x8xf32>' (512 B) on every rank for result #0 of the region (warn-gather-bytes=512)
// NOWARN-NOT: warning
func.func @rows(%x: !dtensor.tensor<16x32xf32, @tp, [shard<0>]>,
                %w: !dtensor.tensor<32x8xf32, @tp, [replicate]>)
    -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x, %w)
      : (!dtensor.tensor<16x32xf32, @tp, [shard<0>]>, !dtensor.tensor<32x8xf32, @tp, [replicate]>)
     -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  ^bb0(%gx: tensor<16x32xf32>, %gw: tensor<32x8xf32>):
    %e = tensor.empty() : tensor<16x8xf32>
    %mm = linalg.matmul {dtensor.strategy = #dtensor.strategy<[[shard<0>], [replicate], [shard<0>]] -> [[shard<0>]], loops = [0]>}
        ins(%gx, %gw : tensor<16x32xf32>, tensor<32x8xf32>) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
    %a = arith.addf %mm, %mm {dtensor.strategy = #dtensor.strategy<[[shard<0>], [shard<0>]] -> [[shard<0>]], loops = [0]>} : tensor<16x8xf32>
    dtensor.yield %a : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @tp, [replicate]>
}

// A named argument (a parameter) annotated to be used whole: the gather
// is named (warn-gather-named-args), whatever its size (64 B).
// NAMED: warning: gathers the whole 'p' ('tensor<16xf32>', 64 B) on every rank for operand #0 of 'arith.addf' (warn-gather-named-args)
func.func @named(%p: !dtensor.tensor<16xf32, @tp, [shard<0>]> {dtensor.arg_name = "p"})
    -> !dtensor.tensor<16xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%p) : (!dtensor.tensor<16xf32, @tp, [shard<0>]>) -> !dtensor.tensor<16xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<16xf32>):
    %a = arith.addf %g, %g {dtensor.strategy = #dtensor.strategy<[[replicate], [replicate]] -> [[replicate]], loops = [-1]>} : tensor<16xf32>
    dtensor.yield %a : tensor<16xf32>
  }
  return %y : !dtensor.tensor<16xf32, @tp, [replicate]>
}

// BADW: error: dtensor-apply-strategies: axis-weights must be finite numbers above 0, got 0
