// RUN: hp-opt %s -convert-shard-to-nccl -split-input-file -verify-diagnostics

shard.grid @g(shape = 4)
func.func @dtype(%x: tensor<4xi16>) -> tensor<4xi16> {
  // expected-error @+1 {{element type 'i16' has no NCCL data type}}
  %r = shard.all_reduce %x on @g grid_axes = [0] : tensor<4xi16> -> tensor<4xi16>
  return %r : tensor<4xi16>
}

// -----

shard.grid @g(shape = 4)
func.func @reduction(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{reduction 'bitwise_and' has no NCCL equivalent}}
  %r = shard.all_reduce %x on @g grid_axes = [0] reduction = bitwise_and : tensor<4xi32> -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

shard.grid @g(shape = 4)
func.func @widening(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{NCCL reduces in the element type of its buffers; an all_reduce that changes the element type is not supported}}
  %r = shard.all_reduce %x on @g grid_axes = [0] : tensor<4xf32> -> tensor<4xf64>
  return %r : tensor<4xf64>
}

// -----

shard.grid @g(shape = 4)
func.func @dynamic_root(%x: tensor<4xf32>, %root: index) -> tensor<4xf32> {
  // expected-error @+1 {{a dynamic root is not supported: NCCL takes a static root}}
  %r = shard.broadcast %x on @g grid_axes = [0] root = [%root] : (tensor<4xf32>, index) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @recv_anywhere(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{needs a source to lower to ncclRecv}}
  %r = shard.recv %x on @g grid_axes = [0] : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @unsupported(%x: tensor<4xf32>) -> (index, index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{has no NCCL lowering}}
  %d, %u = shard.neighbors_linear_indices on @g[%c0] split_axes = [0] : index, index
  return %d, %u : index, index
}
