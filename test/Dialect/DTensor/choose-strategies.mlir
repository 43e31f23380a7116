// dtensor-choose-strategies: the choice dtensor-propagate makes, left in the
// IR as dtensor.strategy attributes; each of its options.
// RUN: hp-opt %s -dtensor-choose-strategies | FileCheck %s
// Rewriting by the annotations gives what dtensor-propagate gives alone.
// RUN: hp-opt %s -dtensor-choose-strategies | hp-opt -dtensor-apply-strategies | FileCheck %s --check-prefix=REWRITE
// RUN: hp-opt %s -dtensor-propagate | FileCheck %s --check-prefix=REWRITE
// RUN: hp-opt %s -dtensor-choose-strategies=print-strategies --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: hp-opt %s -dtensor-choose-strategies="flop-bytes=0" | FileCheck %s --check-prefix=FREE
// RUN: hp-opt %s -dtensor-choose-strategies="flop-bytes=1000" | FileCheck %s --check-prefix=DEAR
// Choosing again keeps the annotations (a decision, not a suggestion): the
// dear choice stays under free compute.
// RUN: hp-opt %s -dtensor-choose-strategies="flop-bytes=1000" | hp-opt -dtensor-choose-strategies="flop-bytes=0" | FileCheck %s --check-prefix=DEAR
// One op pinned by hand, the rest chosen given it (@pinned).
// RUN: hp-opt %s -dtensor-choose-strategies="flop-bytes=1e-6" | FileCheck %s --check-prefix=PIN
// RUN: hp-opt %s -dtensor-choose-strategies="flop-bytes=1e-6 print-strategies" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PINSUM
// RUN: hp-opt %hp_src_root/examples/global_dp_tp_mlp.mlir -dtensor-choose-strategies="print-strategies latency-bytes=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAT0
// RUN: hp-opt %hp_src_root/examples/global_dp_tp_mlp.mlir -dtensor-choose-strategies="print-strategies latency-bytes=100000000" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAT8
// RUN: hp-opt %hp_src_root/examples/global_dp_tp_mlp.mlir -dtensor-choose-strategies="print-strategies axis-weights=1,100" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=WEIGHTS
// RUN: hp-opt %s -dtensor-choose-strategies="print-strategies max-table-size=2" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CAP
// RUN: hp-opt %s -dtensor-choose-strategies="param-memory-weight=0" | FileCheck %s --check-prefix=BYTES
// RUN: hp-opt %s -dtensor-choose-strategies="param-memory-weight=100" | FileCheck %s --check-prefix=MEMORY
// RUN: not hp-opt %s -dtensor-choose-strategies="max-table-size=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADCAP
// RUN: not hp-opt %s -dtensor-choose-strategies="flop-bytes=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADFLOP
// RUN: not hp-opt %s -dtensor-choose-strategies="axis-weights=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADW
// RUN: not hp-opt %s -dtensor-choose-strategies="param-memory-weight=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADMEM

dtensor.mesh @tp shape = [4] names = ["tp"]

// x split by rows, the weight replicated, the result wanted whole: the
// matmul runs on row blocks (loop 0, the row loop, split on the one axis)
// and the result is gathered at the boundary; the constrained addf after
// it stays on those rows. The empty init runs in front (no strategy), the
// constrain keeps its own placements (none either). The region stays.
// CHECK-LABEL: func.func @rows
// CHECK: dtensor.global_region
// CHECK: tensor.empty() : tensor<16x8xf32>
// CHECK-NEXT: linalg.matmul {dtensor.strategy = #dtensor.strategy<{{\[}}[shard<0>], [replicate], [shard<0>]] -> {{\[}}[shard<0>]], loops = [0]>}
// CHECK-NEXT: dtensor.constrain %{{.*}} [shard<0>] : tensor<16x8xf32>
// CHECK-NEXT: arith.addf %{{.*}}, %{{.*}} {dtensor.strategy = #dtensor.strategy<{{\[}}[shard<0>], [shard<0>]] -> {{\[}}[shard<0>]], loops = [0]>}
// REWRITE-LABEL: func.func @rows
// REWRITE: %[[C:.*]] = dtensor.redistribute %{{.*}} : !dtensor.tensor<16x8xf32, @tp, [replicate]> -> !dtensor.tensor<16x8xf32, @tp, [shard<0>]>
// REWRITE: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x32xf32>, tensor<32x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// REWRITE: arith.addf %{{.*}}, %{{.*}} : tensor<4x8xf32>
// REWRITE: dtensor.redistribute %{{.*}} : !dtensor.tensor<16x8xf32, @tp, [shard<0>]> -> !dtensor.tensor<16x8xf32, @tp, [replicate]>
// REWRITE-NOT: dtensor.strategy
// PRINT: remark: strategy [S(0)], [R], [S(0)] -> [S(0)]; linalg.matmul, loop 0 on tp; 2048 flops per device
// PRINT: remark: strategy [S(0)], [S(0)] -> [S(0)]; arith.addf, loop 0 on tp; 32 flops per device
// PRINT: remark: dtensor-choose-strategies: 3 ops; cost {{.*}} = redistributes 65920 + compute {{.*}} (flop-bytes 0.00045); variable elimination, optimal; greedy
// CAP: remark: dtensor-choose-strategies: 3 ops; cost {{.*}}; window search (tables over the cap) from greedy, lower bound {{.*}}, gap {{.*}}; greedy
func.func @rows(%x: !dtensor.tensor<16x32xf32, @tp, [shard<0>]>,
                %w: !dtensor.tensor<32x8xf32, @tp, [replicate]>)
    -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x, %w)
      : (!dtensor.tensor<16x32xf32, @tp, [shard<0>]>, !dtensor.tensor<32x8xf32, @tp, [replicate]>)
     -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  ^bb0(%gx: tensor<16x32xf32>, %gw: tensor<32x8xf32>):
    %e = tensor.empty() : tensor<16x8xf32>
    %mm = linalg.matmul ins(%gx, %gw : tensor<16x32xf32>, tensor<32x8xf32>) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
    %c = dtensor.constrain %mm [shard<0>] : tensor<16x8xf32>
    %a = arith.addf %c, %c : tensor<16x8xf32>
    dtensor.yield %a : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @tp, [replicate]>
}

// Everything replicated at the boundary: with compute free every rank
// multiplies whole tensors; with compute dear (1000 bytes a flop) the
// matmul runs on row blocks.
// FREE-LABEL: func.func @whole
// FREE: linalg.matmul {dtensor.strategy = #dtensor.strategy<{{\[}}[replicate], [replicate], [replicate]] -> {{\[}}[replicate]], loops = [-1]>}
// DEAR-LABEL: func.func @whole
// DEAR: linalg.matmul {dtensor.strategy = #dtensor.strategy<{{\[}}[shard<0>], [replicate], [shard<0>]] -> {{\[}}[shard<0>]], loops = [0]>}
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

// A named weight split by rows: gathering it (256 B) wins by bytes; at 100
// per byte that a rank's piece of it grows, x is split by columns and the
// product left a partial sum (the reduction loop 2 split).
// BYTES-LABEL: func.func @named
// BYTES: linalg.matmul {dtensor.strategy = #dtensor.strategy<{{\[}}[replicate], [replicate], [replicate]] -> {{\[}}[replicate]], loops = [-1]>}
// MEMORY-LABEL: func.func @named
// MEMORY: linalg.matmul {dtensor.strategy = #dtensor.strategy<{{\[}}[shard<1>], [shard<0>], [partial<sum>]] -> {{\[}}[partial<sum>]], loops = [2]>}
func.func @named(%x: !dtensor.tensor<64x8xf32, @tp, [replicate]>,
                 %w: !dtensor.tensor<8x8xf32, @tp, [shard<0>]> {dtensor.arg_name = "w"})
    -> !dtensor.tensor<64x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<64x8xf32, @tp, [replicate]>, !dtensor.tensor<8x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<64x8xf32, @tp, [replicate]> {
  ^bb0(%gx: tensor<64x8xf32>, %gw: tensor<8x8xf32>):
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x8xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x8xf32>) -> tensor<64x8xf32>
    %m = linalg.matmul ins(%gx, %gw : tensor<64x8xf32>, tensor<8x8xf32>) outs(%f : tensor<64x8xf32>) -> tensor<64x8xf32>
    %c = dtensor.constrain %m [replicate] : tensor<64x8xf32>
    dtensor.yield %c : tensor<64x8xf32>
  }
  return %y : !dtensor.tensor<64x8xf32, @tp, [replicate]>
}

// The dp x tp MLP: the latency counts once per collective, the weights
// multiply the bytes on the tp axis (as for dtensor-propagate).
// LAT0: remark: dtensor-choose-strategies: 5 ops; cost {{.*}} = redistributes 512 +
// LAT8: remark: dtensor-choose-strategies: 5 ops; cost {{.*}} = redistributes 2.00001e+08 +
// WEIGHTS: remark: dtensor-choose-strategies: 5 ops; cost {{.*}} = redistributes 182272 +

// BADCAP: error: dtensor-choose-strategies: max-table-size must be between 1 and 2^24 (16777216 entries; the chooser holds up to 4 such tables), got 0
// BADFLOP: error: dtensor-choose-strategies: flop-bytes must be a finite number >= 0
// BADW: error: dtensor-choose-strategies: axis-weights must be finite numbers above 0, got 0
// BADMEM: error: dtensor-choose-strategies: param-memory-weight must be a finite number of at least 0, got -1

// The matmul pinned by hand to row blocks, which the chooser alone would
// not pick here (UNPINNED, in @unpinned: whole tensors, nothing moved);
// given the pin, the addf after it runs on the same rows and the rows are
// gathered once, at the boundary.
// PIN-LABEL: func.func @pinned
// PIN: linalg.matmul {dtensor.strategy = #dtensor.strategy<{{\[}}[shard<0>], [replicate], [shard<0>]] -> {{\[}}[shard<0>]], loops = [0]>}
// PIN-NEXT: arith.addf %{{.*}}, %{{.*}} {dtensor.strategy = #dtensor.strategy<{{\[}}[shard<0>], [shard<0>]] -> {{\[}}[shard<0>]], loops = [0]>}
// PIN-LABEL: func.func @unpinned
// PIN: linalg.matmul {dtensor.strategy = #dtensor.strategy<{{\[}}[replicate], [replicate], [replicate]] -> {{\[}}[replicate]], loops = [-1]>}
// PIN-NEXT: arith.addf %{{.*}}, %{{.*}} {dtensor.strategy = #dtensor.strategy<{{\[}}[replicate], [replicate]] -> {{\[}}[replicate]], loops = [-1]>}
// PINSUM: remark: dtensor-choose-strategies: 2 ops, 1 as annotated; cost
func.func @pinned(%x: !dtensor.tensor<16x32xf32, @tp, [replicate]>,
                  %w: !dtensor.tensor<32x8xf32, @tp, [replicate]>)
    -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x, %w)
      : (!dtensor.tensor<16x32xf32, @tp, [replicate]>, !dtensor.tensor<32x8xf32, @tp, [replicate]>)
     -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  ^bb0(%gx: tensor<16x32xf32>, %gw: tensor<32x8xf32>):
    %e = tensor.empty() : tensor<16x8xf32>
    %mm = linalg.matmul {dtensor.strategy = #dtensor.strategy<[[shard<0>], [replicate], [shard<0>]] -> [[shard<0>]], loops = [0]>}
        ins(%gx, %gw : tensor<16x32xf32>, tensor<32x8xf32>) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
    %a = arith.addf %mm, %mm : tensor<16x8xf32>
    dtensor.yield %a : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @tp, [replicate]>
}

func.func @unpinned(%x: !dtensor.tensor<16x32xf32, @tp, [replicate]>,
                    %w: !dtensor.tensor<32x8xf32, @tp, [replicate]>)
    -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x, %w)
      : (!dtensor.tensor<16x32xf32, @tp, [replicate]>, !dtensor.tensor<32x8xf32, @tp, [replicate]>)
     -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  ^bb0(%gx: tensor<16x32xf32>, %gw: tensor<32x8xf32>):
    %e = tensor.empty() : tensor<16x8xf32>
    %mm = linalg.matmul ins(%gx, %gw : tensor<16x32xf32>, tensor<32x8xf32>) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
    %a = arith.addf %mm, %mm : tensor<16x8xf32>
    dtensor.yield %a : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @tp, [replicate]>
}
