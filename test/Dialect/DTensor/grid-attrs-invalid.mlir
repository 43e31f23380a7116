// The attributes a shard.grid keeps of the dtensor.mesh it came from
// (dtensor.axis_names, dtensor.devices) follow the mesh's rules.
// RUN: hp-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'dtensor.axis_names' is only meaningful on a shard.grid}}
func.func @not_a_grid() attributes {dtensor.axis_names = ["tp"]} {
  return
}

// -----

// expected-error @+1 {{'dtensor.axis_names' must be an array of strings}}
shard.grid @g(shape = 2) {dtensor.axis_names = "tp"}

// -----

// expected-error @+1 {{grid has 1 names for 2 dimensions}}
shard.grid @g(shape = 2x2) {dtensor.axis_names = ["dp"]}

// -----

// expected-error @+1 {{grid axis names must be strings, got 1}}
shard.grid @g(shape = 2) {dtensor.axis_names = [1]}

// -----

// expected-error @+1 {{grid axis names must not be empty}}
shard.grid @g(shape = 2) {dtensor.axis_names = [""]}

// -----

// expected-error @+1 {{grid axis name 'tp' is used more than once}}
shard.grid @g(shape = 2x2) {dtensor.axis_names = ["tp", "tp"]}

// -----

// expected-error @+1 {{'dtensor.devices' must be a DenseI64ArrayAttr}}
shard.grid @g(shape = 2) {dtensor.devices = [1, 0]}

// -----

// expected-error @+1 {{'dtensor.devices' needs a grid of static shape}}
shard.grid @g(shape = 2x?) {dtensor.devices = array<i64: 1, 0>}

// -----

// expected-error @+1 {{devices lists 3 ranks, but the grid has 4 devices}}
shard.grid @g(shape = 2x2) {dtensor.devices = array<i64: 0, 1, 2>}

// -----

// expected-error @+1 {{devices must be non-negative ranks, got -1}}
shard.grid @g(shape = 2) {dtensor.devices = array<i64: -1, 0>}

// -----

// expected-error @+1 {{devices lists rank 1 more than once}}
shard.grid @g(shape = 2x2) {dtensor.devices = array<i64: 0, 1, 1, 3>}

// -----

// expected-error @+1 {{devices must be a permutation of a contiguous rank range starting at 0, but rank 4 is out of it}}
shard.grid @g(shape = 2x2) {dtensor.devices = array<i64: 0, 1, 4, 3>}

// -----

// Valid.
shard.grid @g(shape = 2x2) {dtensor.axis_names = ["dp", "tp"], dtensor.devices = array<i64: 3, 1, 2, 0>}

// -----

// A dtensor attribute the dialect does not have is refused (a misspelt
// one would otherwise be ignored).
// expected-error @below {{'dtensor.other' is not an attribute of the dtensor dialect (on operations: dtensor.mesh, dtensor.axis_names, dtensor.devices, dtensor.p2p_group, dtensor.strategy)}}
func.func @other() attributes {dtensor.other = 1} {
  return
}

// -----

// dtensor.p2p_group marks the sends and receives of one planned permute.
// expected-error @+1 {{'dtensor.p2p_group' is only meaningful on a shard.send or shard.recv}}
func.func @not_p2p() attributes {dtensor.p2p_group = 0 : i64} {
  return
}

// -----

shard.grid @g(shape = 2)
func.func @bad_group_id(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dtensor.p2p_group' must be a non-negative i64 group id}}
  %s = shard.send %x on @g grid_axes = [0] destination = [1] {dtensor.p2p_group = -1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
