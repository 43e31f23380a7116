// RUN: hp-opt %s -convert-dtensor-to-shard -split-input-file -verify-diagnostics -allow-unregistered-dialect

dtensor.mesh @m shape = [2]
func.func @region_left(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{cannot be converted; run dtensor-expand-local-regions first}}
  dtensor.local_region on @m args(%x as "x") : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> () {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @foreign_user(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{cannot be converted: it takes or returns a DTensor; only dtensor ops, functions, calls, returns and scf control flow may carry DTensors}}
  "foo.use"(%x) : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> ()
  return
}

// -----

// On a grid (no dtensor.mesh to check signatures at verification), the
// conversion checks every DTensor type against its mesh before converting.
shard.grid @m(shape = 2)
// expected-error @+1 {{'func.func' op dtensor type has 2 placements, but the mesh has rank 1}}
func.func @signature_on_grid(%d: !dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) {
  return
}
