// RUN: hp-opt %s -dtensor-propagate="param-memory-weight=0" | FileCheck %s --check-prefix=BYTES
// RUN: hp-opt %s -dtensor-propagate | FileCheck %s --check-prefix=DEFAULT
// RUN: hp-opt %s -dtensor-propagate="param-memory-weight=100" | FileCheck %s --check-prefix=MEMORY
// RUN: not hp-opt %s -dtensor-propagate="param-memory-weight=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// The pipelines pass it on.
// RUN: hp-opt %s -hp-partition="param-memory-weight=100" | FileCheck %s --check-prefix=PIPELINE
// RUN: hp-opt %s -hp-partition | FileCheck %s --check-prefix=PIPELINE-DEFAULT
// RUN: not hp-opt %s -hp-partition="param-memory-weight=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// x (64x8, replicated) times a named weight w (8x8) split by rows: either
// gather w (256 B, every rank then holds it whole) or split x by columns
// and all_reduce the 64x8 partial product (2 KiB). By bytes alone the
// gather wins, and so by default (4 per byte a rank's piece of w grows:
// 192 B); at 100 per byte the weight stays split.
dtensor.mesh @tp shape = [4]

// BYTES: dtensor.redistribute %arg1 : !dtensor.tensor<8x8xf32, @tp, [shard<0>]> -> !dtensor.tensor<8x8xf32, @tp, [replicate]>
// BYTES-NOT: partial<sum>
// DEFAULT: dtensor.redistribute %arg1 : !dtensor.tensor<8x8xf32, @tp, [shard<0>]> -> !dtensor.tensor<8x8xf32, @tp, [replicate]>
// MEMORY-NOT: dtensor.redistribute %arg1
// MEMORY: dtensor.redistribute %{{.*}} : !dtensor.tensor<64x8xf32, @tp, [partial<sum>]> -> !dtensor.tensor<64x8xf32, @tp, [replicate]>
// NEGATIVE: error: dtensor-propagate: param-memory-weight must be a finite number of at least 0, got -1
// PIPELINE-NOT: shard.all_gather %arg1
// PIPELINE: shard.all_reduce %{{.*}} on @tp grid_axes = [0] : tensor<64x8xf32> -> tensor<64x8xf32>
// PIPELINE-DEFAULT: shard.all_gather %arg1 on @tp grid_axes = [0] gather_axis = 0 : tensor<2x8xf32> -> tensor<8x8xf32>
// PIPELINE-DEFAULT-NOT: shard.all_reduce
func.func @mm(%x: !dtensor.tensor<64x8xf32, @tp, [replicate]>,
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
