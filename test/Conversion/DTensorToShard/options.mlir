// Each option of convert-dtensor-to-shard changes the plan.
// RUN: hp-opt %s -convert-dtensor-to-shard="latency-bytes=0 print-plans" --mlir-print-op-on-diagnostic=false -verify-diagnostics -split-input-file -o /dev/null
// RUN: hp-opt %s -convert-dtensor-to-shard="latency-bytes=0 axis-weights=8,1" -canonicalize -split-input-file | FileCheck %s --check-prefix=WEIGHTS
// RUN: hp-opt %s -convert-dtensor-to-shard="latency-bytes=100000" -canonicalize -split-input-file | FileCheck %s --check-prefix=ALPHA
// RUN: hp-opt %s -convert-dtensor-to-shard -canonicalize -split-input-file | FileCheck %s --check-prefix=DEFAULT
// print-plans also states, readably, the bytes per rank with units and each
// step with the layouts before and after it.
// RUN: hp-opt %s -convert-dtensor-to-shard="latency-bytes=0 print-plans" --mlir-print-op-on-diagnostic=false -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=READABLE
// READABLE: remark: plan [P(sum), P(sum)] -> [R, R]: cost=4.480000e+02 collectives=1
// READABLE-NEXT: 448 B sent per rank in 1 collective
// READABLE-NEXT: 1. all_reduce(axes=[0, 1], sum, cost=4.480000e+02): [P(sum), P(sum)] -> [R, R], sends 448 B per rank
// READABLE: remark: plan [S(0), S(0)] -> [R, R]: cost=3.200000e+01 collectives=2
// READABLE-NEXT: 32 B sent per rank in 2 collectives
// READABLE-NEXT: 1. all_gather(axes=[1], dim=0, cost=1.200000e+01): [S(0), S(0)] -> [S(0), R], sends 12 B per rank
// READABLE-NEXT: 2. all_gather(axes=[0], dim=0, cost=2.000000e+01): [S(0), R] -> [R, R], sends 20 B per rank
// print-totals sums each module's plans up.
// RUN: hp-opt %s -convert-dtensor-to-shard="latency-bytes=0 print-totals" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOTALS
// TOTALS: remark: convert-dtensor-to-shard planned 1 redistribute: 1 collective, 448 B sent per rank in all
// TOTALS: remark: convert-dtensor-to-shard planned 1 redistribute: 2 collectives, 32 B sent per rank in all
// --mlir-pass-statistics reports the same totals (hp-opt collects them itself:
// Debian's LLVM compiles Pass::Statistic out), once per split.
// RUN: hp-opt %s -convert-dtensor-to-shard="latency-bytes=0" --mlir-pass-statistics -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// STATS: Pass statistics report
// STATS: ConvertDTensorToShard
// STATS-NEXT: (S) 448 bytes-per-rank - Bytes one rank sends, summed over the plans
// STATS-NEXT: (S)   1 collectives    - Collectives in the plans
// STATS-NEXT: (S)   1 redistributes  - Redistributes planned
// STATS: Pass statistics report
// STATS: ConvertDTensorToShard
// STATS-NEXT: (S) 32 bytes-per-rank - Bytes one rank sends, summed over the plans
// STATS-NEXT: (S)  2 collectives    - Collectives in the plans
// STATS-NEXT: (S)  1 redistributes  - Redistributes planned
// RUN: not hp-opt %s -convert-dtensor-to-shard="axis-weights=1,0" -split-input-file 2>&1 | FileCheck %s --check-prefix=BADWEIGHT
// RUN: not hp-opt %s -convert-dtensor-to-shard="axis-weights=inf" -split-input-file 2>&1 | FileCheck %s --check-prefix=INFWEIGHT
// RUN: not hp-opt %s -convert-dtensor-to-shard="axis-weights=8,1,3" -split-input-file 2>&1 | FileCheck %s --check-prefix=EXTRAWEIGHT
// EXTRAWEIGHT: error: axis-weights has 3 entries, but no mesh has more than 2 axes

// P(sum) on both axes of a 2x4 mesh, 8x8 f32 (256 bytes).
// Bytes only: one all_reduce on the combined group, 2*7/8*256 = 448.
// With axis 0 eight times as expensive, the planner finds the hierarchical
// all-reduce: reduce_scatter on the fast axis (192), all_reduce of a quarter
// on the slow one (8 * 64 = 512), all_gather on the fast axis (192): 896
// instead of 8 * 448.
dtensor.mesh @m shape = [2, 4]

// WEIGHTS-LABEL: func @hierarchical
// WEIGHTS: shard.reduce_scatter %{{.*}} on @m grid_axes = [1] scatter_axis = 1 : tensor<8x8xf32> -> tensor<8x2xf32>
// WEIGHTS: shard.all_reduce %{{.*}} on @m grid_axes = [0] : tensor<8x2xf32> -> tensor<8x2xf32>
// WEIGHTS: shard.all_gather %{{.*}} on @m grid_axes = [1] gather_axis = 1 : tensor<8x2xf32> -> tensor<8x8xf32>
// ALPHA-LABEL: func @hierarchical
// ALPHA: shard.all_reduce %{{.*}} on @m grid_axes = [0, 1] : tensor<8x8xf32> -> tensor<8x8xf32>
// ALPHA-NOT: shard.{{all|reduce}}
func.func @hierarchical(%x: !dtensor.tensor<8x8xf32, @m, [partial<sum>, partial<sum>]>) -> !dtensor.tensor<8x8xf32, @m, [replicate, replicate]> {
  // expected-remark @+1 {{plan [P(sum), P(sum)] -> [R, R]: cost=4.480000e+02 collectives=1 steps=[all_reduce(axes=[0, 1], sum, cost=4.480000e+02)]}}
  %r = dtensor.redistribute %x : !dtensor.tensor<8x8xf32, @m, [partial<sum>, partial<sum>]> -> !dtensor.tensor<8x8xf32, @m, [replicate, replicate]>
  return %r : !dtensor.tensor<8x8xf32, @m, [replicate, replicate]>
}

// -----

// 10 rows nested over 2x2 (pieces 3,2 | 3,2 at 0,3,5,8). Bytes only: two
// gathers (12 + 20 = 32) beat one merged gather with more padding (36).
// A latency term makes the single merged collective cheaper; its slots of 3
// are reassembled by one tensor.generate. The default (65536) does the same.
dtensor.mesh @m shape = [2, 2]

// ALPHA-LABEL: func @merge
// ALPHA-DAG: %[[C2:.*]] = arith.constant 2 : index
// ALPHA-DAG: %[[C3:.*]] = arith.constant 3 : index
// ALPHA-DAG: %[[C5:.*]] = arith.constant 5 : index
// ALPHA-DAG: %[[C10:.*]] = arith.constant 10 : index
// ALPHA: %[[G:.*]] = shard.all_gather %{{.*}} on @m grid_axes = [0, 1] gather_axis = 0 : tensor<3xf32> -> tensor<12xf32>
// Element q of the result: outer piece q / 5 (chunks of ceil(10/2)), then
// inner piece of ceil(5/2) = 3 within it; slot (2 * outer + inner), offset
// the remainder. q = 4 -> slot 1 at 1 = 4; q = 5 -> 6; q = 9 -> 10.
// ALPHA: tensor.generate
// ALPHA-NEXT: ^bb0(%[[Q:.*]]: index):
// ALPHA-NEXT: %[[O:.*]] = arith.divui %[[Q]], %[[C5]]
// ALPHA-NEXT: %[[OS:.*]] = arith.muli %[[O]], %[[C5]]
// ALPHA-NEXT: %[[Q1:.*]] = arith.subi %[[Q]], %[[OS]]
// ALPHA-NEXT: %[[OS2:.*]] = arith.muli %[[O]], %[[C5]]
// ALPHA-NEXT: %[[REST:.*]] = arith.subi %[[C10]], %[[OS2]]
// ALPHA-NEXT: %[[LEN:.*]] = arith.minsi %[[REST]], %[[C5]]
// ALPHA-NEXT: %[[C:.*]] = arith.ceildivui %[[LEN]], %[[C2]]
// ALPHA-NEXT: %[[I:.*]] = arith.divui %[[Q1]], %[[C]]
// ALPHA-NEXT: %[[IS:.*]] = arith.muli %[[I]], %[[C]]
// ALPHA-NEXT: %[[R:.*]] = arith.subi %[[Q1]], %[[IS]]
// ALPHA-NEXT: %[[J0:.*]] = arith.muli %[[O]], %[[C2]]
// ALPHA-NEXT: %[[J:.*]] = arith.addi %[[J0]], %[[I]]
// ALPHA-NEXT: %[[S0:.*]] = arith.muli %[[J]], %[[C3]]
// ALPHA-NEXT: %[[S:.*]] = arith.addi %[[S0]], %[[R]]
// ALPHA-NEXT: tensor.extract %[[G]][%[[S]]] : tensor<12xf32>
// ALPHA: } : tensor<10xf32>
// DEFAULT-LABEL: func @merge
// DEFAULT: shard.all_gather %{{.*}} on @m grid_axes = [0, 1] gather_axis = 0
// DEFAULT-NOT: shard.all_gather
func.func @merge(%x: !dtensor.tensor<10xf32, @m, [shard<0>, shard<0>]>) -> !dtensor.tensor<10xf32, @m, [replicate, replicate]> {
  // expected-remark @+1 {{plan [S(0), S(0)] -> [R, R]: cost=3.200000e+01 collectives=2 steps=[all_gather(axes=[1], dim=0, cost=1.200000e+01); all_gather(axes=[0], dim=0, cost=2.000000e+01)]}}
  %r = dtensor.redistribute %x : !dtensor.tensor<10xf32, @m, [shard<0>, shard<0>]> -> !dtensor.tensor<10xf32, @m, [replicate, replicate]>
  return %r : !dtensor.tensor<10xf32, @m, [replicate, replicate]>
}

// BADWEIGHT: error: axis-weights must be finite numbers above 0, got 0
// INFWEIGHT: error: axis-weights must be finite numbers above 0, got inf
