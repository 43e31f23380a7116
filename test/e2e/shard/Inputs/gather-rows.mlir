// @f for upstream-shard-partition.mlir: shard.shard annotations that
// upstream shard-partition turns into an all_gather.
shard.grid @g(shape = 4)

func.func @f(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %s0 = shard.sharding @g split_axes = [[0]] : !shard.sharding
  %a = shard.shard %x to %s0 : tensor<8x4xf32>
  %s1 = shard.sharding @g split_axes = [[]] : !shard.sharding
  %b = shard.shard %a to %s1 annotate_for_users : tensor<8x4xf32>
  return %b : tensor<8x4xf32>
}

