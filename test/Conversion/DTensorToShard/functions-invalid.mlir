// RUN: hp-opt %s -dtensor-partition -split-input-file -verify-diagnostics -allow-unregistered-dialect

dtensor.mesh @m shape = [2]
func.func @region_left(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{cannot be partitioned; run dtensor-expand-local-regions first}}
  dtensor.local_region on @m args(%x as "x") : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> () {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @redistribute_left(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{cannot be partitioned; run dtensor-lower-redistribute first}}
  %r = dtensor.redistribute %x : !dtensor.tensor<8xf32, @m, [shard<0>]> -> !dtensor.tensor<8xf32, @m, [replicate]>
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @foreign_user(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{cannot be partitioned: it takes or returns a DTensor; only functions, calls, returns, scf control flow and to_local/from_local may carry DTensors here}}
  "foo.use"(%x) : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> ()
  return
}
