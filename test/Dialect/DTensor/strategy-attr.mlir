// #dtensor.strategy prints and parses back (dtensor-choose-strategies leaves
// it on the ops of a global region; dtensor-propagate reads it).
// RUN: hp-opt %s | hp-opt | FileCheck %s

dtensor.mesh @m shape = [2, 2] names = ["dp", "tp"]

// CHECK-LABEL: func.func @annotated
// CHECK: linalg.matmul {dtensor.strategy = #dtensor.strategy<{{\[}}[shard<0>, replicate], [replicate, shard<1>], [shard<0>, shard<1>]] -> {{\[}}[shard<0>, shard<1>]], loops = [0, 1]>}
// CHECK: arith.addf %{{.*}}, %{{.*}} {dtensor.strategy = #dtensor.strategy<{{\[}}[partial<sum>, strided_shard<0, 2>], [partial<max>, replicate]] -> {{\[}}[replicate, replicate]], loops = [-1, -1]>}
// An op without tensor operands or results: empty lists.
// CHECK: dtensor.strategy = #dtensor.strategy<[] -> [], loops = [-1, 3]>
func.func @annotated(%x: !dtensor.tensor<8x16xf32, @m, [shard<0>, replicate]>,
                     %w: !dtensor.tensor<16x8xf32, @m, [replicate, shard<1>]>)
    -> !dtensor.tensor<8x8xf32, @m, [replicate, replicate]> {
  %y = dtensor.global_region on @m args(%x, %w)
      : (!dtensor.tensor<8x16xf32, @m, [shard<0>, replicate]>, !dtensor.tensor<16x8xf32, @m, [replicate, shard<1>]>)
     -> !dtensor.tensor<8x8xf32, @m, [replicate, replicate]> {
  ^bb0(%gx: tensor<8x16xf32>, %gw: tensor<16x8xf32>):
    %e = tensor.empty() : tensor<8x8xf32>
    %mm = linalg.matmul {dtensor.strategy = #dtensor.strategy<[[shard<0>, replicate], [replicate, shard<1>], [shard<0>, shard<1>]] -> [[shard<0>, shard<1>]], loops = [0, 1]>}
        ins(%gx, %gw : tensor<8x16xf32>, tensor<16x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %a = arith.addf %mm, %mm {dtensor.strategy = #dtensor.strategy<[[partial<sum>, strided_shard<0, 2>], [partial<max>, replicate]] -> [[replicate, replicate]], loops = [-1, -1]>} : tensor<8x8xf32>
    %c = arith.constant {dtensor.strategy = #dtensor.strategy<[] -> [], loops = [-1, 3]>} 1 : index
    dtensor.yield %a : tensor<8x8xf32>
  }
  return %y : !dtensor.tensor<8x8xf32, @m, [replicate, replicate]>
}
