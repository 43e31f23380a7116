// A tensor-parallel MLP (Megatron style) on a 1-D "tp" mesh of 4 devices,
// written with local regions:
//   h = relu(x @ w1)   column-parallel: w1 sharded on its output dim
//   y = h @ w2         row-parallel:    w2 sharded on its input dim
// The row-parallel region yields per-rank partial sums; one redistribute
// (an all_reduce once lowered) makes y replicated.

dtensor.mesh @tp shape = [4] names = ["tp"]

func.func @tp_mlp(%x: !dtensor.tensor<8x16xf32, @tp, [replicate]>,
                  %w1: !dtensor.tensor<16x32xf32, @tp, [shard<1>]>,
                  %w2: !dtensor.tensor<32x16xf32, @tp, [shard<0>]>)
    -> !dtensor.tensor<8x16xf32, @tp, [replicate]> {
  %h = dtensor.local_region on @tp
      args(%x as "input", %w1 as "weight")
      in_placements = {input = [replicate], weight = [shard<1>]}
      out_placements = [shard<1>]
      : (!dtensor.tensor<8x16xf32, @tp, [replicate]>,
         !dtensor.tensor<16x32xf32, @tp, [shard<1>]>)
     -> !dtensor.tensor<8x32xf32, @tp, [shard<1>]> {
  ^bb0(%xl: tensor<8x16xf32>, %wl: tensor<16x8xf32>):
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<8x8xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
    %mm = linalg.matmul ins(%xl, %wl : tensor<8x16xf32>, tensor<16x8xf32>)
                        outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
    %relu = linalg.map { arith.maximumf } ins(%mm, %acc : tensor<8x8xf32>, tensor<8x8xf32>)
                                          outs(%init : tensor<8x8xf32>)
    dtensor.yield %relu : tensor<8x8xf32>
  }

  %y = dtensor.local_region on @tp
      args(%h as "hidden", %w2 as "weight")
      in_placements = {hidden = [shard<1>], weight = [shard<0>]}
      out_placements = [partial<sum>]
      : (!dtensor.tensor<8x32xf32, @tp, [shard<1>]>,
         !dtensor.tensor<32x16xf32, @tp, [shard<0>]>)
     -> !dtensor.tensor<8x16xf32, @tp, [partial<sum>]> {
  ^bb0(%hl: tensor<8x8xf32>, %wl: tensor<8x16xf32>):
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<8x16xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
    %mm = linalg.matmul ins(%hl, %wl : tensor<8x8xf32>, tensor<8x16xf32>)
                        outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
    dtensor.yield %mm : tensor<8x16xf32>
  }

  %r = dtensor.redistribute %y : !dtensor.tensor<8x16xf32, @tp, [partial<sum>]>
                               -> !dtensor.tensor<8x16xf32, @tp, [replicate]>
  return %r : !dtensor.tensor<8x16xf32, @tp, [replicate]>
}
