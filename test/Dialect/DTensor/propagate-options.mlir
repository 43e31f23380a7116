// The options of dtensor-propagate, and hp-partition passing them on.
// RUN: hp-opt %s -dtensor-propagate=print-strategies --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: hp-opt %s -hp-partition=print-strategies --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: hp-opt %s -dtensor-propagate="flop-bytes=0" | FileCheck %s --check-prefix=FREE
// RUN: hp-opt %s -dtensor-propagate="flop-bytes=1000" | FileCheck %s --check-prefix=DEAR
// RUN: hp-opt %hp_src_root/examples/global_dp_tp_mlp.mlir -dtensor-propagate="print-strategies latency-bytes=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAT0
// RUN: hp-opt %hp_src_root/examples/global_dp_tp_mlp.mlir -dtensor-propagate="print-strategies latency-bytes=100000000" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAT8
// RUN: hp-opt %hp_src_root/examples/global_dp_tp_mlp.mlir -dtensor-propagate="print-strategies axis-weights=1,100" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=WEIGHTS
// RUN: hp-opt %s -hp-partition="print-strategies flop-bytes=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: hp-opt %hp_src_root/examples/global_tp_mlp.mlir -dtensor-propagate="warn-gather-bytes=1" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFILL --allow-empty
// RUN: hp-opt %s -dtensor-propagate="warn-gather-bytes=512" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: hp-opt %s -dtensor-propagate="warn-gather-bytes=513" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWARN --allow-empty
// RUN: hp-opt %s -dtensor-propagate="print-strategies max-table-size=2" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CAP
// RUN: hp-opt %s -dtensor-propagate="print-strategies max-table-size=16777216" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: not hp-opt %s -dtensor-propagate="max-table-size=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADCAP
// RUN: not hp-opt %s -dtensor-propagate="max-table-size=16777217" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BIGCAP
// RUN: not hp-opt %s -dtensor-propagate="max-table-size=1099511627776" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HUGECAP
// RUN: not hp-opt %s -dtensor-propagate="flop-bytes=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not hp-opt %s -dtensor-propagate="axis-weights=-2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADW
// One rule for the weights in every pass that plans (as convert-dtensor-to-shard):
// RUN: not hp-opt %s -dtensor-propagate="axis-weights=1,0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZEROW
// RUN: not hp-opt %s -dtensor-propagate="axis-weights=inf" -o /dev/null 2>&1 | FileCheck %s --check-prefix=INFW

dtensor.mesh @tp shape = [4] names = ["tp"]

// x is split by rows, the weight replicated, the result wanted whole: the
// matmul runs on row blocks and its result (512 B) is gathered, fewer bytes
// than gathering x (2 KiB).
func.func @rows(%x: !dtensor.tensor<16x32xf32, @tp, [shard<0>]>,
                %w: !dtensor.tensor<32x8xf32, @tp, [replicate]>)
    -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x, %w)
      : (!dtensor.tensor<16x32xf32, @tp, [shard<0>]>, !dtensor.tensor<32x8xf32, @tp, [replicate]>)
     -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  ^bb0(%gx: tensor<16x32xf32>, %gw: tensor<32x8xf32>):
    %e = tensor.empty() : tensor<16x8xf32>
    %mm = linalg.matmul ins(%gx, %gw : tensor<16x32xf32>, tensor<32x8xf32>) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
    dtensor.yield %mm : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @tp, [replicate]>
}

// PRINT: remark: strategy [S(0)], [R], [S(0)] -> [S(0)]; linalg.matmul, loop 0 on tp; 2048 flops per device
// PRINT: remark: dtensor-choose-strategies: 1 ops; cost {{.*}} = redistributes {{.*}} + compute {{.*}} (flop-bytes 0.00045); variable elimination, optimal; greedy {{.*}}
// PRINT: remark: redistribute 'tensor<16x8xf32>' [R] -> [S(0)] for operand #2 of 'linalg.matmul': cost=0{{.*}} collectives=0 steps=[chunk(axes=[0], dim=0
// PRINT: remark: redistribute 'tensor<16x8xf32>' [S(0)] -> [R] for result #0 of the region: cost={{.*}} collectives=1 steps=[all_gather(axes=[0], dim=0
// PRINT: remark: dtensor-apply-strategies: 1 ops, 2 redistributes

// The dp x tp MLP moves 512 bytes in 2 collectives (the latency counts once
// per collective; the weights multiply the bytes on the tp axis, where all
// of them move).
// LAT0: remark: dtensor-choose-strategies: 5 ops; cost {{.*}} = redistributes 512 +
// LAT0: remark: dtensor-apply-strategies: 5 ops, 5 redistributes
// LAT8: remark: dtensor-choose-strategies: 5 ops; cost {{.*}} = redistributes 2.00001e+08 +
// LAT8: remark: dtensor-apply-strategies: 5 ops, 5 redistributes
// WEIGHTS: remark: dtensor-choose-strategies: 5 ops; cost {{.*}} = redistributes 182272 +
// WEIGHTS: remark: dtensor-apply-strategies: 5 ops, 5 redistributes
// PIPE: remark: dtensor-choose-strategies: {{.*}} (flop-bytes 0);

// The TP MLP's split init made partial for its sharded reduction is a local
// fill, and its all_reduce starts from partial sums: neither gathers.
// NOFILL-NOT: warning
// WARN: warning: gathers the whole 'tensor<16x8xf32>' (512 B) on every rank for result #0 of the region (warn-gather-bytes=512)
// NOWARN-NOT: warning

// With tables capped at 2 entries (fewer than the matmul's 6 strategies) no
// exact table fits: the search starts from greedy, finds the same strategy,
// and reports its gap to the per-factor lower bound.
// CAP: remark: strategy [S(0)], [R], [S(0)] -> [S(0)]; linalg.matmul, loop 0 on tp
// CAP: remark: dtensor-choose-strategies: 1 ops; cost {{.*}}; window search (tables over the cap) from greedy, lower bound {{.*}}, gap {{.*}}; greedy
// Tables of more than 2^24 entries (and up to 4 of them held) would not fit
// in memory: refused, not an out-of-memory abort halfway.
// BADCAP: error: dtensor-propagate: max-table-size must be between 1 and 2^24 (16777216 entries; the chooser holds up to 4 such tables), got 0
// BIGCAP: error: dtensor-propagate: max-table-size must be between 1 and 2^24 (16777216 entries; the chooser holds up to 4 such tables), got 16777217
// HUGECAP: error: dtensor-propagate: max-table-size must be between 1 and 2^24 (16777216 entries; the chooser holds up to 4 such tables), got 1099511627776

// BAD: error: dtensor-propagate: flop-bytes must be a finite number >= 0
// BADW: error: dtensor-propagate: axis-weights must be finite numbers above 0, got -2
// ZEROW: error: dtensor-propagate: axis-weights must be finite numbers above 0, got 0
// INFW: error: dtensor-propagate: axis-weights must be finite numbers above 0, got inf

// Everything replicated at the boundary: with compute free nothing moves and
// every rank multiplies whole tensors; with compute dear (1000 bytes a flop)
// the matmul runs on row blocks and the result is gathered.
// FREE-LABEL: func.func @whole
// FREE-NOT: dtensor.redistribute
// FREE: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<32x8xf32>)
// FREE-NOT: dtensor.redistribute
// FREE: return
// DEAR-LABEL: func.func @whole
// DEAR: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x32xf32>, tensor<32x8xf32>)
// DEAR: dtensor.redistribute %{{.*}} : !dtensor.tensor<16x8xf32, @tp, [shard<0>]> -> !dtensor.tensor<16x8xf32, @tp, [replicate]>
func.func @whole(%x: !dtensor.tensor<16x32xf32, @tp, [replicate]>,
                 %w: !dtensor.tensor<32x8xf32, @tp, [replicate]>)
    -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x, %w)
      : (!dtensor.tensor<16x32xf32, @tp, [replicate]>, !dtensor.tensor<32x8xf32, @tp, [replicate]>)
     -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  ^bb0(%gx: tensor<16x32xf32>, %gw: tensor<32x8xf32>):
    %e = tensor.empty() : tensor<16x8xf32>
    %mm = linalg.matmul ins(%gx, %gw : tensor<16x32xf32>, tensor<32x8xf32>) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
    dtensor.yield %mm : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @tp, [replicate]>
}
