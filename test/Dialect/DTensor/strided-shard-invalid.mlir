// RUN: hp-opt %s -split-input-file -verify-diagnostics

// One strided_shard rule per case.

dtensor.mesh @m shape = [2, 2]
// expected-error @+1 {{strided_shard dim must be non-negative, got -1}}
func.func private @f(!dtensor.tensor<8xf32, @m, [strided_shard<-1, 2>, shard<0>]>)

// -----

dtensor.mesh @m shape = [2, 2]
// expected-error @+1 {{strided_shard split factor must be at least 1, got 0}}
func.func private @f(!dtensor.tensor<8xf32, @m, [strided_shard<0, 0>, shard<0>]>)

// -----

dtensor.mesh @m shape = [2, 2]
// expected-error @+1 {{dtensor type: strided_shard dim 1 is out of range for a tensor of rank 1}}
func.func private @f(!dtensor.tensor<8xf32, @m, [strided_shard<1, 2>, shard<1>]>)

// -----

// The split factor is the product of the later mesh dims sharding the dim.
dtensor.mesh @m shape = [2, 4]
// expected-error @+1 {{'func.func' op dtensor type: strided_shard<0, 2> on mesh dim 0 needs split factor 4, the product of the sizes of the later mesh dims that shard tensor dim 0 (it splits inside them)}}
func.func private @f(!dtensor.tensor<8xf32, @m, [strided_shard<0, 2>, shard<0>]>)

// -----

// No later mesh dim shards the dim: only split factor 1 fits.
dtensor.mesh @m shape = [2, 2]
// expected-error @+1 {{strided_shard<0, 2> on mesh dim 0 needs split factor 1}}
func.func private @f(!dtensor.tensor<8xf32, @m, [strided_shard<0, 2>, replicate]>)

// -----

dtensor.mesh @m shape = [2, 2]
// expected-error @+1 {{tensor dim 0 has a strided_shard, so its size must be static}}
func.func private @f(!dtensor.tensor<?xf32, @m, [strided_shard<0, 2>, shard<0>]>)

// -----

// Uneven strided shards are refused: torch lays them out two ways.
dtensor.mesh @m shape = [2, 2]
// expected-error @+1 {{tensor dim 0 of size 5 has a strided_shard but does not divide evenly over the 4 devices that shard it}}
func.func private @f(!dtensor.tensor<5xf32, @m, [strided_shard<0, 2>, shard<0>]>)

// -----

// Checked on dtensor ops as well.
dtensor.mesh @m shape = [2, 2]
func.func @f(%x: tensor<3xf32>) {
  // expected-error @+1 {{'dtensor.from_local' op dtensor type: tensor dim 0 of size 6 has a strided_shard but does not divide evenly over the 4 devices}}
  %d = dtensor.from_local %x : tensor<3xf32> -> !dtensor.tensor<6xf32, @m, [strided_shard<0, 2>, shard<0>]>
  return
}

// -----

// And in a local region's declared placements.
dtensor.mesh @m shape = [2, 2]
func.func @f(%a: !dtensor.tensor<8xf32, @m, [replicate, replicate]>) {
  // expected-error @+1 {{in_placements entry 'x': strided_shard<0, 4> on mesh dim 0 needs split factor 2}}
  %r = dtensor.local_region on @m args(%a as "x")
      in_placements = {x = [strided_shard<0, 4>, shard<0>]} redistribute_inputs
      : (!dtensor.tensor<8xf32, @m, [replicate, replicate]>) -> tensor<2xf32> {
  ^bb0(%l: tensor<2xf32>):
    dtensor.yield %l : tensor<2xf32>
  }
  return
}

// -----

dtensor.mesh @m shape = [2, 2]
func.func @f(%a: !dtensor.tensor<6xf32, @m, [replicate, replicate]>) {
  // expected-error @+1 {{out_placements entry #0: tensor dim 0 of size 6 has a strided_shard but does not divide evenly}}
  %r = dtensor.local_region on @m args(%a as "x")
      out_placements = [strided_shard<0, 2>, shard<0>]
      : (!dtensor.tensor<6xf32, @m, [replicate, replicate]>) -> !dtensor.tensor<6xf32, @m, [strided_shard<0, 2>, shard<0>]> {
  ^bb0(%l: tensor<6xf32>):
    %s = tensor.extract_slice %l[0] [2] [1] : tensor<6xf32> to tensor<2xf32>
    dtensor.yield %s : tensor<2xf32>
  }
  return
}

// -----

// An upstream grid has no device limit: the product saturates instead of
// wrapping to a split factor that would match.
shard.grid @g(shape = 4294967296x4294967296x4294967296)
func.func @f(%x: tensor<1xf32>) {
  // expected-error @+1 {{strided_shard<0, 4> on mesh dim 0 needs split factor 9223372036854775807}}
  %d = dtensor.from_local %x : tensor<1xf32> -> !dtensor.tensor<8xf32, @g, [strided_shard<0, 4>, shard<0>, shard<0>]>
  return
}
