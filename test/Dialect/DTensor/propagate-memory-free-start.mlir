// RUN: hp-opt %s -dtensor-propagate="latency-bytes=0 param-memory-weight=4 max-table-size=1 print-strategies=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CAPPED
// RUN: hp-opt %s -dtensor-propagate="latency-bytes=0 param-memory-weight=0 max-table-size=1 print-strategies=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOMEMORY

// The window search's third start (docs/Propagation.md, "The algorithm"):
// the search's result with parameters' memory free, searched again with it
// priced. With max-table-size=1 no window or relaxation fits, and from
// greedy single-op moves cannot gather w0 and w1 (each move that gathers
// one costs more than it saves alone); from the memory-free choice the
// search ends lower, and the summary says which start won. Without a
// memory price there is no third start.
dtensor.mesh @m shape = [2, 2]

// CAPPED: remark: dtensor-choose-strategies: 4 ops; {{.*}}; window search (tables over the cap) from the memory-free choice,
// NOMEMORY: remark: dtensor-choose-strategies: 4 ops; {{.*}}; window search (tables over the cap) from {{greedy|the relaxation}},
func.func @chain(%x: !dtensor.tensor<64x8xf32, @m, [replicate, replicate]>,
                 %w0: !dtensor.tensor<8x8xf32, @m, [shard<1>, shard<0>]> {dtensor.arg_name = "w0"},
                 %w1: !dtensor.tensor<8x8xf32, @m, [shard<1>, shard<0>]> {dtensor.arg_name = "w1"})
    -> !dtensor.tensor<64x8xf32, @m, [replicate, replicate]> {
  %y = dtensor.global_region on @m args(%x, %w0, %w1) : (!dtensor.tensor<64x8xf32, @m, [replicate, replicate]>, !dtensor.tensor<8x8xf32, @m, [shard<1>, shard<0>]>, !dtensor.tensor<8x8xf32, @m, [shard<1>, shard<0>]>) -> !dtensor.tensor<64x8xf32, @m, [replicate, replicate]> {
  ^bb0(%gx: tensor<64x8xf32>, %g0: tensor<8x8xf32>, %g1: tensor<8x8xf32>):
    %z = arith.constant 0.0 : f32
    %e0 = tensor.empty() : tensor<64x8xf32>
    %f0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<64x8xf32>) -> tensor<64x8xf32>
    %m0 = linalg.matmul ins(%gx, %g0 : tensor<64x8xf32>, tensor<8x8xf32>) outs(%f0 : tensor<64x8xf32>) -> tensor<64x8xf32>
    %e1 = tensor.empty() : tensor<64x8xf32>
    %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<64x8xf32>) -> tensor<64x8xf32>
    %m1 = linalg.matmul ins(%m0, %g1 : tensor<64x8xf32>, tensor<8x8xf32>) outs(%f1 : tensor<64x8xf32>) -> tensor<64x8xf32>
    dtensor.yield %m1 : tensor<64x8xf32>
  }
  return %y : !dtensor.tensor<64x8xf32, @m, [replicate, replicate]>
}
