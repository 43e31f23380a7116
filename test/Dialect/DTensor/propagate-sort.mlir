// dtensor.sort's strategies (SortModel.cpp): any dim but the sorted one may
// be split, values and indices alike; a sorted dim that arrives split is
// gathered first.
// RUN: hp-opt %s -dtensor-propagate=print-strategies --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRAT
// RUN: hp-opt %s -dtensor-propagate 2>/dev/null | FileCheck %s

dtensor.mesh @tp shape = [4] names = ["tp"]

// 8 rows of 16 on 4 ranks: 2 rows each; a radix sort of f32 is 5 steps per
// element (one read counting its 4 bytes, 4 passes placing it): 2 x 16 x 5.
// STRAT: remark: strategy [S(0)] -> [S(0)], [S(0)]; dtensor.sort, loop 0 on tp; 160 flops per device
// CHECK-LABEL: func.func @rows_split
// CHECK-NOT: dtensor.redistribute
// CHECK: dtensor.sort %{{.*}} dim = 1 descending : tensor<2x16xf32> -> tensor<2x16xi64>
func.func @rows_split(%x: !dtensor.tensor<8x16xf32, @tp, [shard<0>]>)
    -> (!dtensor.tensor<8x16xf32, @tp, [shard<0>]>, !dtensor.tensor<8x16xi64, @tp, [shard<0>]>) {
  %v, %i = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x16xf32, @tp, [shard<0>]>)
      -> (!dtensor.tensor<8x16xf32, @tp, [shard<0>]>, !dtensor.tensor<8x16xi64, @tp, [shard<0>]>) {
  ^bb0(%g: tensor<8x16xf32>):
    %s, %j = dtensor.sort %g dim = 1 descending : tensor<8x16xf32> -> tensor<8x16xi64>
    dtensor.yield %s, %j : tensor<8x16xf32>, tensor<8x16xi64>
  }
  return %v, %i : !dtensor.tensor<8x16xf32, @tp, [shard<0>]>, !dtensor.tensor<8x16xi64, @tp, [shard<0>]>
}

// The sorted dim arrives split: the rows are made whole first (here the
// columns split instead, the cheapest way to keep every rank busy).
// STRAT: remark: strategy [S(0)] -> [S(0)], [S(0)]; dtensor.sort, loop 0 on tp
// STRAT: remark: redistribute 'tensor<8x16xf32>' [S(1)] -> [S(0)] for operand #0 of 'dtensor.sort'
// CHECK-LABEL: func.func @sorted_dim_split
// CHECK: dtensor.redistribute %{{.*}} : !dtensor.tensor<8x16xf32, @tp, [shard<1>]> -> !dtensor.tensor<8x16xf32, @tp, [shard<0>]>
// CHECK: dtensor.sort %{{.*}} dim = 1 : tensor<2x16xf32> -> tensor<2x16xi64>
func.func @sorted_dim_split(%x: !dtensor.tensor<8x16xf32, @tp, [shard<1>]>)
    -> (!dtensor.tensor<8x16xf32, @tp, [shard<0>]>, !dtensor.tensor<8x16xi64, @tp, [shard<0>]>) {
  %v, %i = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x16xf32, @tp, [shard<1>]>)
      -> (!dtensor.tensor<8x16xf32, @tp, [shard<0>]>, !dtensor.tensor<8x16xi64, @tp, [shard<0>]>) {
  ^bb0(%g: tensor<8x16xf32>):
    %s, %j = dtensor.sort %g dim = 1 : tensor<8x16xf32> -> tensor<8x16xi64>
    dtensor.yield %s, %j : tensor<8x16xf32>, tensor<8x16xi64>
  }
  return %v, %i : !dtensor.tensor<8x16xf32, @tp, [shard<0>]>, !dtensor.tensor<8x16xi64, @tp, [shard<0>]>
}
