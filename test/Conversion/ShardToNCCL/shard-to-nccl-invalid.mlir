// RUN: hp-opt %s -convert-shard-to-nccl -split-input-file -verify-diagnostics -allow-unregistered-dialect

shard.grid @g(shape = 4)
func.func @dtype(%x: tensor<4xi16>) -> tensor<16xi16> {
  // expected-error @+1 {{element type 'i16' has no NCCL data type}}
  %r = shard.all_gather %x on @g grid_axes = [0] gather_axis = 0 : tensor<4xi16> -> tensor<16xi16>
  return %r : tensor<16xi16>
}

// -----

shard.grid @g(shape = 4)
func.func @reduce_index(%x: tensor<4xindex>) -> tensor<4xindex> {
  // expected-error @+1 {{reduces 'index' into 'index'; NCCL reduces integers and floats only}}
  %r = shard.all_reduce %x on @g grid_axes = [0] : tensor<4xindex> -> tensor<4xindex>
  return %r : tensor<4xindex>
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
func.func @all_to_all_uneven(%x: tensor<6x4xf32>) -> tensor<?x16xf32> {
  // expected-error @+1 {{splits dim 0 of size 6 into 4 blocks, one per group member; the size must be a multiple of the group size}}
  %r = shard.all_to_all %x on @g grid_axes = [0] split_axis = 0 concat_axis = 1 : tensor<6x4xf32> -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @halo_pairs(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+1 {{has 1 halo sizes for 1 split dims; it needs a (lower, upper) pair per split dim}}
  %r = shard.update_halo %x on @g split_axes = [[0]] halo_sizes = [1] : tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @halo_dtype(%x: tensor<6x4xi16>) -> tensor<6x4xi16> {
  // expected-error @+1 {{element type 'i16' has no NCCL data type}}
  %r = shard.update_halo %x on @g split_axes = [[0]] halo_sizes = [1, 1] : tensor<6x4xi16>
  return %r : tensor<6x4xi16>
}

// -----

shard.grid @g(shape = 4)
func.func @shard_shape_of_argument(%s: !shard.sharding) -> index {
  // expected-error @+1 {{needs its sharding defined by a shard.sharding op in the same function; a sharding passed in as an argument has no runtime value in hp}}
  %n = shard.shard_shape dims = [8] sharding = %s device = [0] : index
  return %n : index
}

// -----

shard.grid @g(shape = 4)
func.func @sharding_used(%x: tensor<4xf32>) {
  %s = shard.sharding @g split_axes = [[0]] : !shard.sharding
  // expected-error @+1 {{'test.use' op uses a !shard.sharding value; shardings describe layouts at compile time and have no runtime value in hp}}
  "test.use"(%s) : (!shard.sharding) -> ()
  return
}

// -----

shard.grid @g(shape = 4)
func.func @recv_anywhere(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{needs a source to lower to ncclRecv}}
  %r = shard.recv %x on @g grid_axes = [0] : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Upstream's verifiers leave these axis lists unchecked; hp reports them
// (a fuzzed update_halo on axis 7 of a 2-D grid crashed the lowering).
shard.grid @g(shape = 1x4)
func.func @halo_axis_range(%x: tensor<6x7xf32>) -> tensor<6x7xf32> {
  // expected-error @+1 {{splits along grid axis 7, but @g has 2 axes}}
  %r = shard.update_halo %x on @g split_axes = [[7]] halo_sizes = [1, 1] : tensor<6x7xf32>
  return %r : tensor<6x7xf32>
}

// -----

shard.grid @g(shape = 1x4)
func.func @halo_axis_twice(%x: tensor<6x7xf32>) -> tensor<6x7xf32> {
  // expected-error @+1 {{lists grid axis 1 twice}}
  %r = shard.update_halo %x on @g split_axes = [[1], [1]] halo_sizes = [1, 1, 1, 1] : tensor<6x7xf32>
  return %r : tensor<6x7xf32>
}

// -----

shard.grid @g(shape = 1x4)
func.func @neighbors_axis_range(%i: index, %j: index) -> (index, index) {
  // expected-error @+1 {{splits along grid axis 5, but @g has 2 axes}}
  %d, %u = shard.neighbors_linear_indices on @g[%i, %j] split_axes = [5] : index, index
  return %d, %u : index, index
}

// -----

shard.grid @g(shape = 1x4)
func.func @shard_shape_axis_range() -> index {
  %s = shard.sharding @g split_axes = [[7]] : !shard.sharding
  // expected-error @+1 {{has a sharding that splits along grid axis 7, but @g has 2 axes}}
  %n = shard.shard_shape dims = [8] sharding = %s device = [0, 0] : index
  return %n : index
}

