// dtensor-apply-strategies rewrites by the annotations and never chooses:
// one case per rule it adds to the annotation rule of
// propagate-given-strategies.mlir.
// RUN: hp-opt %s -dtensor-apply-strategies -split-input-file -verify-diagnostics

dtensor.mesh @tp shape = [4] names = ["tp"]

// An op the region places without an annotation, though another has one.
func.func @one_bare(%x: !dtensor.tensor<16x8xf32, @tp, [shard<0>]>)
    -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<16x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<16x8xf32>):
    %a = arith.addf %g, %g {dtensor.strategy = #dtensor.strategy<[[replicate], [replicate]] -> [[replicate]], loops = [-1]>} : tensor<16x8xf32>
    // expected-error @+1 {{has no 'dtensor.strategy': dtensor-apply-strategies rewrites by the strategies dtensor-choose-strategies leaves on every op a dtensor.global_region places (dtensor-propagate runs both)}}
    %m = arith.mulf %a, %a : tensor<16x8xf32>
    dtensor.yield %m : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// A region none of whose ops has one: the error is at the first.
func.func @none_chosen(%x: !dtensor.tensor<16x8xf32, @tp, [shard<0>]>)
    -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<16x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<16x8xf32>):
    // expected-error @+1 {{has no 'dtensor.strategy'}}
    %a = arith.addf %g, %g : tensor<16x8xf32>
    dtensor.yield %a : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// Checked, not trusted, as dtensor-propagate checks it.
func.func @not_its_own(%x: !dtensor.tensor<16x8xf32, @tp, [shard<0>]>)
    -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<16x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<16x8xf32>):
    // expected-error @+1 {{is not one of the op's 4 strategies on mesh @tp}}
    %a = arith.addf %g, %g {dtensor.strategy = #dtensor.strategy<[[shard<0>], [shard<0>]] -> [[shard<0>]], loops = [-1]>} : tensor<16x8xf32>
    dtensor.yield %a : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @tp, [replicate]>
}
