// RUN: hp-opt %s --dtensor-globalize -split-input-file -verify-diagnostics

// expected-error @below {{'dtensor.mesh' must name a dtensor.mesh (@name)}}
func.func @not_symbol(%a: tensor<4xf32>) attributes {dtensor.mesh = "tp"} {
  return
}

// -----

// expected-error @below {{'@nowhere' does not name a dtensor.mesh}}
func.func @no_mesh(%a: tensor<4xf32>) attributes {dtensor.mesh = @nowhere} {
  return
}

// -----

dtensor.mesh @tp shape = [2]
// expected-error @below {{'dtensor.mesh' on a declaration: there is no body to place}}
func.func private @decl(%a: tensor<4xf32>) attributes {dtensor.mesh = @tp}

// -----

dtensor.mesh @tp shape = [2]
// expected-error @below {{a function with 'dtensor.mesh' must not be called in the module: its signature becomes DTensors}}
func.func @called(%a: tensor<4xf32>) -> tensor<4xf32> attributes {dtensor.mesh = @tp} {
  return %a : tensor<4xf32>
}
func.func @caller(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = func.call @called(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

dtensor.mesh @tp shape = [2]
// expected-error @below {{a function with 'dtensor.mesh' must have one block}}
func.func @blocks(%a: tensor<4xf32>) attributes {dtensor.mesh = @tp} {
  cf.br ^bb1
^bb1:
  return
}

// -----

dtensor.mesh @tp shape = [2]
// expected-error @below {{argument #0 has element type 'i1', which a DTensor cannot hold}}
func.func @mask(%a: tensor<4xi1> {dtensor.placements = [#dtensor.replicate]}) attributes {dtensor.mesh = @tp} {
  return
}

// -----

dtensor.mesh @tp shape = [2]
// expected-error @below {{argument #0 has the dynamic shape 'tensor<?x4xf32>': placements need a static shape}}
func.func @dynamic(%a: tensor<?x4xf32> {dtensor.placements = [#dtensor.shard<1>]}) attributes {dtensor.mesh = @tp} {
  return
}

// -----

dtensor.mesh @tp shape = [2]
// expected-error @below {{argument #0: placements: shard dim 1 is out of range for a tensor of rank 1}}
func.func @dim(%a: tensor<4xf32> {dtensor.placements = [#dtensor.shard<1>]}) attributes {dtensor.mesh = @tp} {
  return
}

// -----

dtensor.mesh @tp shape = [2]
// expected-error @below {{result #0: placements}}
func.func @count(%a: tensor<4xf32>) -> (tensor<4xf32> {dtensor.placements = [#dtensor.replicate, #dtensor.replicate]}) attributes {dtensor.mesh = @tp} {
  return %a : tensor<4xf32>
}

// -----

dtensor.mesh @tp shape = [2]
// expected-error @below {{result #0 has both 'dtensor.placements' and 'dtensor.constrain'}}
func.func @both(%a: tensor<4xf32>) -> (tensor<4xf32> {dtensor.placements = [#dtensor.replicate], dtensor.constrain = [#dtensor.replicate]}) attributes {dtensor.mesh = @tp} {
  return %a : tensor<4xf32>
}
