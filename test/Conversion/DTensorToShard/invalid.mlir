// RUN: hp-opt %s -convert-dtensor-to-shard -split-input-file -verify-diagnostics

dtensor.mesh @m shape = [2]
func.func @dynamic_global(%x: !dtensor.tensor<?x4xf32, @m, [shard<0>]>) -> !dtensor.tensor<?x4xf32, @m, [replicate]> {
  // expected-error @+1 {{cannot lower a redistribute of a dynamic global shape: the planner and the padding need static sizes}}
  %r = dtensor.redistribute %x : !dtensor.tensor<?x4xf32, @m, [shard<0>]> -> !dtensor.tensor<?x4xf32, @m, [replicate]>
  return %r : !dtensor.tensor<?x4xf32, @m, [replicate]>
}
