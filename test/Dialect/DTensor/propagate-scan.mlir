// dtensor.scan's strategies (ScanModel.cpp): split along another dim it runs
// on each piece; split along its own dim each rank scans its piece, gathers
// every piece's total (one value per row) and combines those of the pieces
// before its own into every element; a sum passes partial sums through.
// RUN: hp-opt %s -dtensor-propagate=print-strategies --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRAT
// RUN: hp-opt %s -dtensor-propagate 2>/dev/null | FileCheck %s

dtensor.mesh @tp shape = [4] names = ["tp"]
dtensor.mesh @m2 shape = [2, 2] names = ["a", "b"]

// STRAT: remark: strategy [S(1)] -> [S(1)]; dtensor.scan, loop 1 on tp; 12 flops per device
// CHECK-LABEL: func.func @along_split_dim
// CHECK-NOT: dtensor.redistribute
// CHECK: dtensor.local_region
// CHECK: ^bb0(%[[X:.*]]: tensor<3x4xf32>):
// CHECK: %[[ID:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[FRESH:.*]] = linalg.fill ins(%[[ID]] : f64) outs(%{{.*}} : tensor<3x1xf64>)
// CHECK: %[[TOTALS:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<3x4xf32>) outs(%[[FRESH]] : tensor<3x1xf64>)
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: %[[TP:.*]] = dtensor.axis_index @tp "tp" : index
// CHECK: %[[PIECE:.*]] = arith.addi %{{.*}}, %[[TP]] : index
// CHECK: %[[ALL:.*]] = dtensor.all_gather %[[TOTALS]] on @tp axes = ["tp"] gather_axis = 1 : tensor<3x1xf64> -> tensor<3x4xf64>
// CHECK: %[[PREFIX:.*]] = linalg.generic {{.*}} ins(%[[ALL]] : tensor<3x4xf64>) outs(%[[FRESH]] : tensor<3x1xf64>)
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : f64
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[BEFORE:.*]] = arith.cmpi ult, %[[J]], %[[PIECE]] : index
// CHECK: arith.select %[[BEFORE]], %[[SUM]], %{{.*}} : f64
// CHECK: %[[OUT:.*]] = dtensor.scan sum %[[X]] dim = 1 from %[[PREFIX]] : tensor<3x1xf64> : tensor<3x4xf32>
// CHECK: dtensor.yield %[[OUT]]
func.func @along_split_dim(%x: !dtensor.tensor<3x16xf32, @tp, [shard<1>]>) -> !dtensor.tensor<3x16xf32, @tp, [shard<1>]> {
  %r = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<3x16xf32, @tp, [shard<1>]>) -> !dtensor.tensor<3x16xf32, @tp, [shard<1>]> {
  ^bb0(%g: tensor<3x16xf32>):
    %c = dtensor.scan sum %g dim = 1 : tensor<3x16xf32>
    dtensor.yield %c : tensor<3x16xf32>
  }
  return %r : !dtensor.tensor<3x16xf32, @tp, [shard<1>]>
}

// STRAT: remark: strategy [S(0)] -> [S(0)]; dtensor.scan, loop 0 on tp; 6 flops per device
// CHECK-LABEL: func.func @along_other_dim
// CHECK-NOT: dtensor.all_gather
// CHECK: dtensor.scan prod %{{.*}} dim = 1 : tensor<2x3xf32>
// CHECK-NOT: dtensor.all_gather
// CHECK: return
func.func @along_other_dim(%x: !dtensor.tensor<8x3xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x3xf32, @tp, [shard<0>]> {
  %r = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x3xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x3xf32, @tp, [shard<0>]> {
  ^bb0(%g: tensor<8x3xf32>):
    %c = dtensor.scan prod %g dim = 1 : tensor<8x3xf32>
    dtensor.yield %c : tensor<8x3xf32>
  }
  return %r : !dtensor.tensor<8x3xf32, @tp, [shard<0>]>
}

// STRAT: remark: strategy [P(sum)] -> [P(sum)]; dtensor.scan, partial sums pass through on tp
// CHECK-LABEL: func.func @partial_sum
// CHECK-NOT: dtensor.redistribute
// CHECK: dtensor.scan sum %{{.*}} dim = 0 : tensor<6xi64>
func.func @partial_sum(%x: !dtensor.tensor<6xi64, @tp, [partial<sum>]>) -> !dtensor.tensor<6xi64, @tp, [partial<sum>]> {
  %r = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<6xi64, @tp, [partial<sum>]>) -> !dtensor.tensor<6xi64, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<6xi64>):
    %c = dtensor.scan sum %g dim = 0 : tensor<6xi64>
    dtensor.yield %c : tensor<6xi64>
  }
  return %r : !dtensor.tensor<6xi64, @tp, [partial<sum>]>
}

// A running max is not linear: the partial sum is reduced first.
// STRAT: remark: strategy [R] -> [R]; dtensor.scan; 6 flops per device
// STRAT: remark: redistribute 'tensor<6xi64>' [P(sum)] -> [R] for operand #0 of 'dtensor.scan'
// CHECK-LABEL: func.func @partial_max
// CHECK: dtensor.redistribute
// CHECK: dtensor.scan max
func.func @partial_max(%x: !dtensor.tensor<6xi64, @tp, [partial<sum>]>) -> !dtensor.tensor<6xi64, @tp, [replicate]> {
  %r = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<6xi64, @tp, [partial<sum>]>) -> !dtensor.tensor<6xi64, @tp, [replicate]> {
  ^bb0(%g: tensor<6xi64>):
    %c = dtensor.scan max %g dim = 0 : tensor<6xi64>
    dtensor.yield %c : tensor<6xi64>
  }
  return %r : !dtensor.tensor<6xi64, @tp, [replicate]>
}

// Split on both axes of a 2x2 mesh (7 elements: pieces of 2, 2, 2 and 1):
// the totals are gathered over both, outermost first, and this rank's piece
// is a * 2 + b.
// STRAT: remark: strategy [S(0), S(0)] -> [S(0), S(0)]; dtensor.scan, loop 0 on a, loop 0 on b
// CHECK-LABEL: func.func @nested
// CHECK: %[[A:.*]] = dtensor.axis_index @m2 "a" : index
// CHECK: %[[AA:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[PA:.*]] = arith.addi %[[AA]], %[[A]] : index
// CHECK: %[[B:.*]] = dtensor.axis_index @m2 "b" : index
// CHECK: %[[BB:.*]] = arith.muli %[[PA]], %{{.*}} : index
// CHECK: %[[P:.*]] = arith.addi %[[BB]], %[[B]] : index
// CHECK: dtensor.all_gather %{{.*}} on @m2 axes = ["a", "b"] gather_axis = 0 : tensor<1xf64> -> tensor<4xf64>
// CHECK: arith.cmpi ult, %{{.*}}, %[[P]] : index
// CHECK: dtensor.scan sum %{{.*}} dim = 0 from %{{.*}} : tensor<1xf64> : tensor<?xf32>
func.func @nested(%x: !dtensor.tensor<7xf32, @m2, [shard<0>, shard<0>]>) -> !dtensor.tensor<7xf32, @m2, [shard<0>, shard<0>]> {
  %r = dtensor.global_region on @m2 args(%x) : (!dtensor.tensor<7xf32, @m2, [shard<0>, shard<0>]>) -> !dtensor.tensor<7xf32, @m2, [shard<0>, shard<0>]> {
  ^bb0(%g: tensor<7xf32>):
    %c = dtensor.scan sum %g dim = 0 : tensor<7xf32>
    dtensor.yield %c : tensor<7xf32>
  }
  return %r : !dtensor.tensor<7xf32, @m2, [shard<0>, shard<0>]>
}

// A scan that starts from a given init, split along its dim: the init is
// replicated on the splitting axis and the prefix starts from it.
// STRAT: remark: strategy [S(0)], [R] -> [S(0)]; dtensor.scan, loop 0 on tp; 2 flops per device
// CHECK-LABEL: func.func @with_init
// CHECK: ^bb0(%[[X:.*]]: tensor<2xi64>, %[[INIT:.*]]: tensor<1xi64>):
// CHECK: %[[ALL:.*]] = dtensor.all_gather
// CHECK: %[[PREFIX:.*]] = linalg.generic {{.*}} ins(%[[ALL]] : tensor<4xi64>) outs(%[[INIT]] : tensor<1xi64>)
// CHECK: dtensor.scan sum %[[X]] dim = 0 from %[[PREFIX]] : tensor<1xi64> : tensor<2xi64>
func.func @with_init(%x: !dtensor.tensor<8xi64, @tp, [shard<0>]>, %i: !dtensor.tensor<1xi64, @tp, [replicate]>) -> !dtensor.tensor<8xi64, @tp, [shard<0>]> {
  %r = dtensor.global_region on @tp args(%x, %i) : (!dtensor.tensor<8xi64, @tp, [shard<0>]>, !dtensor.tensor<1xi64, @tp, [replicate]>) -> !dtensor.tensor<8xi64, @tp, [shard<0>]> {
  ^bb0(%g: tensor<8xi64>, %h: tensor<1xi64>):
    %c = dtensor.scan sum %g dim = 0 from %h : tensor<1xi64> : tensor<8xi64>
    dtensor.yield %c : tensor<8xi64>
  }
  return %r : !dtensor.tensor<8xi64, @tp, [shard<0>]>
}
