// RUN: hp-opt %s -split-input-file -verify-diagnostics

// dtensor.global_region and dtensor.constrain: one rule per case.

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @arg_type(%x: !dtensor.tensor<8x4xf32, @tp, [shard<0>]>) {
  // expected-error @+1 {{body argument #0 has type 'tensor<2x4xf32>', but operand #0 enters as its global type 'tensor<8x4xf32>'}}
  dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> () {
  ^bb0(%l: tensor<2x4xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @arg_count(%x: !dtensor.tensor<8x4xf32, @tp, [shard<0>]>) {
  // expected-error @+1 {{body has 0 arguments, but the region has 1 operands}}
  dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> () {
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @plain_operand(%s: f32, %t: tensor<3xf32>) {
  // expected-error @+1 {{body argument #1 has type 'tensor<12xf32>', but operand #1 enters as its global type 'tensor<3xf32>'}}
  dtensor.global_region on @tp args(%s, %t) : (f32, tensor<3xf32>) -> () {
  ^bb0(%gs: f32, %gt: tensor<12xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @yield_count(%x: !dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x4xf32, @tp, [shard<0>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x4xf32, @tp, [shard<0>]> {
  ^bb0(%g: tensor<8x4xf32>):
    // expected-error @+1 {{yields 0 values, but the global_region has 1 results}}
    dtensor.yield
  }
  return %y : !dtensor.tensor<8x4xf32, @tp, [shard<0>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @yield_type(%x: !dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x4xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x4xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<8x4xf32>):
    %s = tensor.extract_slice %g[0, 0] [2, 4] [1, 1] : tensor<8x4xf32> to tensor<2x4xf32>
    // expected-error @+1 {{yields 'tensor<2x4xf32>' as result #0, but the result '!dtensor.tensor<8x4xf32, @tp, [replicate]>' needs its global type 'tensor<8x4xf32>'}}
    dtensor.yield %s : tensor<2x4xf32>
  }
  return %y : !dtensor.tensor<8x4xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
dtensor.mesh @dp shape = [2] names = ["dp"]
func.func @operand_mesh(%x: !dtensor.tensor<8x4xf32, @dp, [shard<0>]>) {
  // expected-error @+1 {{operand #0 is on mesh @dp, but the region is on @tp}}
  dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @dp, [shard<0>]>) -> () {
  ^bb0(%g: tensor<8x4xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
dtensor.mesh @dp shape = [2] names = ["dp"]
func.func @result_mesh(%x: !dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x4xf32, @dp, [replicate]> {
  // expected-error @+1 {{result #0 is on mesh @dp, but the region is on @tp}}
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x4xf32, @dp, [replicate]> {
  ^bb0(%g: tensor<8x4xf32>):
    dtensor.yield %g : tensor<8x4xf32>
  }
  return %y : !dtensor.tensor<8x4xf32, @dp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @unknown_mesh(%s: f32) {
  // expected-error @+1 {{'@tq' does not name a dtensor.mesh or a static shard.grid; did you mean '@tp'?}}
  dtensor.global_region on @tq args(%s) : (f32) -> () {
  ^bb0(%g: f32):
    dtensor.yield
  }
  return
}

// -----

func.func @constrain_outside(%t: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{is only meaningful inside a dtensor.global_region}}
  %c = dtensor.constrain %t [replicate] : tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @constrain_count(%x: !dtensor.tensor<8x4xf32, @tp, [shard<0>]>) {
  dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> () {
  ^bb0(%g: tensor<8x4xf32>):
    // expected-error @+1 {{placement list has 2 placements, but the mesh has rank 1}}
    %c = dtensor.constrain %g [replicate, replicate] : tensor<8x4xf32>
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @constrain_dim(%x: !dtensor.tensor<8x4xf32, @tp, [shard<0>]>) {
  dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> () {
  ^bb0(%g: tensor<8x4xf32>):
    // expected-error @+1 {{placement list: shard dim 2 is out of range for a tensor of rank 2}}
    %c = dtensor.constrain %g [shard<2>] : tensor<8x4xf32>
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @constrain_in_local(%x: !dtensor.tensor<8x4xf32, @tp, [shard<0>]>) {
  dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> () {
  ^bb0(%g: tensor<8x4xf32>):
    %l = dtensor.local_region on @tp args(%g as "g") in_placements = {g = [shard<0>]} out_placements = [shard<0>] : (tensor<8x4xf32>) -> tensor<8x4xf32> {
    ^bb0(%b: tensor<2x4xf32>):
      // expected-error @+1 {{pins a global value; inside a local_region values are per-rank}}
      %c = dtensor.constrain %b [replicate] : tensor<2x4xf32>
      dtensor.yield %c : tensor<2x4xf32>
    }
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @local_needs_in(%x: !dtensor.tensor<8x4xf32, @tp, [shard<0>]>) {
  dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> () {
  ^bb0(%g: tensor<8x4xf32>):
    // expected-error @+1 {{inside a dtensor.global_region every tensor operand needs an in_placements list, but operand #0 ('g') has none}}
    %l = dtensor.local_region on @tp args(%g as "g") out_placements = [shard<0>] : (tensor<8x4xf32>) -> tensor<8x4xf32> {
    ^bb0(%b: tensor<8x4xf32>):
      dtensor.yield %b : tensor<8x4xf32>
    }
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @local_needs_out(%x: !dtensor.tensor<8x4xf32, @tp, [shard<0>]>) {
  dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> () {
  ^bb0(%g: tensor<8x4xf32>):
    // expected-error @+1 {{inside a dtensor.global_region tensor results need out_placements}}
    %l = dtensor.local_region on @tp args(%g as "g") in_placements = {g = [shard<0>]} : (tensor<8x4xf32>) -> tensor<2x4xf32> {
    ^bb0(%b: tensor<2x4xf32>):
      dtensor.yield %b : tensor<2x4xf32>
    }
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @local_block_type(%x: !dtensor.tensor<8x4xf32, @tp, [shard<0>]>) {
  dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> () {
  ^bb0(%g: tensor<8x4xf32>):
    // expected-error @+1 {{block argument #0 ('g') has type 'tensor<8x4xf32>', but the operand's local type is 'tensor<2x4xf32>'}}
    %l = dtensor.local_region on @tp args(%g as "g") in_placements = {g = [shard<0>]} out_placements = [shard<0>] : (tensor<8x4xf32>) -> tensor<8x4xf32> {
    ^bb0(%b: tensor<8x4xf32>):
      dtensor.yield %b : tensor<8x4xf32>
    }
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @local_result_type(%x: !dtensor.tensor<8x4xf32, @tp, [shard<0>]>) {
  dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> () {
  ^bb0(%g: tensor<8x4xf32>):
    // expected-error @+1 {{result #0 '!dtensor.tensor<4x4xf32, @tp, [shard<0>]>' has local type 'tensor<1x4xf32>', but the body yields 'tensor<2x4xf32>'}}
    %l = dtensor.local_region on @tp args(%g as "g") in_placements = {g = [shard<0>]} out_placements = [shard<0>] : (tensor<8x4xf32>) -> tensor<4x4xf32> {
    ^bb0(%b: tensor<2x4xf32>):
      dtensor.yield %b : tensor<2x4xf32>
    }
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @local_in_layout(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) {
  dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> () {
  ^bb0(%g: tensor<8xf32>):
    // expected-error @+1 {{operand #0 ('g'): dtensor type: shard dim 7 is out of range for a tensor of rank 1}}
    %p = dtensor.local_region on @tp args(%g as "g") in_placements = {g = [shard<7>]} out_placements = [shard<0>]
        : (tensor<8xf32>) -> tensor<8xf32> {
    ^bb0(%l: tensor<2xf32>):
      dtensor.yield %l : tensor<2xf32>
    }
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @local_out_layout(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) {
  dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> () {
  ^bb0(%g: tensor<8xf32>):
    // expected-error @+1 {{result #0: dtensor type: shard dim 3 is out of range for a tensor of rank 1}}
    %p = dtensor.local_region on @tp args(%g as "g") in_placements = {g = [shard<0>]} out_placements = [shard<3>]
        : (tensor<8xf32>) -> tensor<8xf32> {
    ^bb0(%l: tensor<2xf32>):
      dtensor.yield %l : tensor<2xf32>
    }
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @local_element_type(%x: tensor<8xi1>) {
  dtensor.global_region on @tp args(%x) : (tensor<8xi1>) -> () {
  ^bb0(%g: tensor<8xi1>):
    // expected-error @+1 {{operand #0 ('g'): dtensor element type 'i1' is not one a DTensor can hold}}
    %p = dtensor.local_region on @tp args(%g as "g") in_placements = {g = [shard<0>]} out_placements = [shard<0>]
        : (tensor<8xi1>) -> tensor<8xi1> {
    ^bb0(%l: tensor<2xi1>):
      dtensor.yield %l : tensor<2xi1>
    }
    dtensor.yield
  }
  return
}

// -----

// The placement list's element kind is an ODS constraint.
func.func @constrain_not_placements(%t: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'dtensor.constrain' op attribute 'placements' failed to satisfy constraint: list of placements}}
  %c = "dtensor.constrain"(%t) <{placements = [1 : i64]}> : (tensor<8xf32>) -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @nested(%x: !dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x4xf32, @tp, [shard<0>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x4xf32, @tp, [shard<0>]> {
  ^bb0(%g: tensor<8x4xf32>):
    // expected-error @+1 {{cannot be nested in another dtensor.global_region (its body is already global view: write its ops in the outer body)}}
    %i = dtensor.global_region on @tp args(%g) : (tensor<8x4xf32>) -> tensor<8x4xf32> {
    ^bb0(%h: tensor<8x4xf32>):
      dtensor.yield %h : tensor<8x4xf32>
    }
    dtensor.yield %i : tensor<8x4xf32>
  }
  return %y : !dtensor.tensor<8x4xf32, @tp, [shard<0>]>
}

// -----

// On a shard.grid no mesh op checks the function's DTensor types: the
// region checks its operands' and results' placements against the grid.
shard.grid @g(shape = 2x2)

func.func @placements_past_the_grid(%x: !dtensor.tensor<64x8xf32, @g, [replicate, replicate, replicate]>) {
  // expected-error @+1 {{dtensor type has 3 placements, but the mesh has rank 2}}
  %y = dtensor.global_region on @g args(%x) : (!dtensor.tensor<64x8xf32, @g, [replicate, replicate, replicate]>) -> !dtensor.tensor<64x8xf32, @g, [replicate, replicate, replicate]> {
  ^bb0(%gx: tensor<64x8xf32>):
    dtensor.yield %gx : tensor<64x8xf32>
  }
  return
}
