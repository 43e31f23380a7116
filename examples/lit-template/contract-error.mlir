// A broken contract is a located error; -verify-diagnostics checks it.
// RUN: %hp-opt %s --dtensor-check-contracts -verify-diagnostics -o /dev/null

dtensor.mesh @tp shape = [4] names = ["tp"]

func.func @claims_replicate(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<2xf32, @tp, [replicate]> {
  // expected-error @+1 {{out_placements declare result #0 replicate over mesh axis 'tp', but the yielded value varies over 'tp'}}
  %r = dtensor.local_region on @tp args(%x as "x") out_placements = [replicate]
      : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<2xf32, @tp, [replicate]> {
  ^bb0(%l: tensor<2xf32>):
    dtensor.yield %l : tensor<2xf32>
  }
  return %r : !dtensor.tensor<2xf32, @tp, [replicate]>
}
