// Every rule of #dtensor.strategy and of the dtensor.strategy attribute, one
// per case.
// RUN: hp-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{strategy needs one loop entry per mesh axis, got none}}
#s = #dtensor.strategy<[] -> [], loops = []>

// -----

// expected-error @+1 {{strategy loop on mesh axis 1 must be a loop index or -1 (none), got -2}}
#s = #dtensor.strategy<[] -> [], loops = [0, -2]>

// -----

// expected-error @+1 {{strategy operand #1 has 1 placements for 2 mesh axes}}
#s = #dtensor.strategy<[[replicate, replicate], [replicate]] -> [], loops = [0, -1]>

// -----

// expected-error @+1 {{strategy result #0 has 3 placements for 2 mesh axes}}
#s = #dtensor.strategy<[] -> [[replicate, replicate, replicate]], loops = [0, -1]>

// -----

// A list holds placements only (the parser's rule).
// expected-error @+1 {{expected a placement}}
#s = #dtensor.strategy<[[replicate, 1]] -> [], loops = [0, -1]>

// -----

// The syntax: operand lists, `->`, result lists, `loops = [...]`.
// expected-error @+1 {{expected '->'}}
#s = #dtensor.strategy<[[replicate]], loops = [0]>

// -----

dtensor.mesh @tp shape = [2] names = ["tp"]

func.func @not_a_strategy(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = dtensor.global_region on @tp args(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%g: tensor<4xf32>):
    // expected-error @+1 {{'dtensor.strategy' must be a #dtensor.strategy, got 1 : i64}}
    %a = arith.addf %g, %g {dtensor.strategy = 1 : i64} : tensor<4xf32>
    dtensor.yield %a : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

func.func @outside_global_region(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dtensor.strategy' is only meaningful on an op of a dtensor.global_region body}}
  %a = arith.addf %x, %x {dtensor.strategy = #dtensor.strategy<[[replicate], [replicate]] -> [[replicate]], loops = [-1]>} : tensor<4xf32>
  return %a : tensor<4xf32>
}
