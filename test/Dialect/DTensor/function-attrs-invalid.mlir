// RUN: hp-opt %s -split-input-file -verify-diagnostics
// The dialect's rules for the dtensor attributes of functions, arguments
// and results (DiscardableAttrs.cpp), one case each.

// expected-error @below {{'dtensor.mesh' must name a dtensor.mesh (@name)}}
func.func @mesh_string() attributes {dtensor.mesh = "m"} {
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @on_an_op() {
  // expected-error @below {{'dtensor.mesh' is only meaningful on a function}}
  %c = arith.constant {dtensor.mesh = @m} 0 : i32
  return
}

// -----

// expected-error @below {{argument #0 of 'not_a_list': 'dtensor.placements' must be an array of placements, got [1]}}
func.func @not_a_list(%a: tensor<4xf32> {dtensor.placements = [1]}) {
  return
}

// -----

// expected-error @below {{result #0 of 'scalar': 'dtensor.placements' needs a ranked tensor, not 'f32'}}
func.func @scalar(%a: f32) -> (f32 {dtensor.placements = [#dtensor.replicate]}) {
  return %a : f32
}

// -----

// expected-error @below {{argument #0 of 'constrain_arg': 'dtensor.constrain' applies to results only}}
func.func @constrain_arg(%a: tensor<4xf32> {dtensor.constrain = [#dtensor.replicate]}) {
  return
}

// -----

// expected-error @below {{result #0 of 'constrain_list': 'dtensor.constrain' must be an array of placements, got "shard"}}
func.func @constrain_list(%a: tensor<4xf32>) -> (tensor<4xf32> {dtensor.constrain = "shard"}) {
  return %a : tensor<4xf32>
}

// -----

// expected-error @below {{argument #0 of 'empty_name': 'dtensor.arg_name' must be a non-empty string, got ""}}
func.func @empty_name(%a: tensor<4xf32> {dtensor.arg_name = ""}) {
  return
}

// -----

// expected-error @below {{result #0 of 'result_name': 'dtensor.arg_name' names arguments only}}
func.func @result_name(%a: tensor<4xf32>) -> (tensor<4xf32> {dtensor.arg_name = "y"}) {
  return %a : tensor<4xf32>
}

// -----

// expected-error @below {{argument #0 of 'not_an_array': 'dtensor.fsdp_axes' must be a non-empty array<i64> of mesh axes, got [0]}}
func.func @not_an_array(%w: tensor<8x8xf32> {dtensor.arg_name = "w", dtensor.fsdp_axes = [0]}) {
  return
}

// -----

// expected-error @below {{argument #0 of 'unnamed': 'dtensor.fsdp_axes' is only meaningful on a parameter (an argument with a string 'dtensor.arg_name')}}
func.func @unnamed(%w: tensor<8x8xf32> {dtensor.fsdp_axes = array<i64: 0>}) {
  return
}

// -----

// expected-error @below {{argument #0 of 'negative': 'dtensor.fsdp_axes' names axis -1, which a mesh does not have}}
func.func @negative(%w: tensor<8x8xf32> {dtensor.arg_name = "w", dtensor.fsdp_axes = array<i64: -1>}) {
  return
}

// -----

dtensor.mesh @m shape = [2, 2]
// expected-error @below {{argument #0 of 'out_of_range': 'dtensor.fsdp_axes' names axis 2, which the 2-D mesh @m does not have}}
func.func @out_of_range(%w: !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]> {dtensor.arg_name = "w", dtensor.fsdp_axes = array<i64: 2>}) {
  return
}

// -----

// expected-error @below {{argument #0 of 'twice': 'dtensor.fsdp_axes' names axis 0 twice}}
func.func @twice(%w: tensor<8x8xf32> {dtensor.arg_name = "w", dtensor.fsdp_axes = array<i64: 0, 0>}) {
  return
}

// -----

dtensor.mesh @m shape = [2, 2]
// expected-error @below {{argument #0 of 'not_split': 'dtensor.fsdp_axes' names axis 1, which does not split the argument ('!dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>')}}
func.func @not_split(%w: !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]> {dtensor.arg_name = "w", dtensor.fsdp_axes = array<i64: 1>}) {
  return
}

// -----

// expected-error @below {{result #0 of 'result_fsdp': 'dtensor.fsdp_axes' applies to arguments only}}
func.func @result_fsdp(%a: tensor<4xf32>) -> (tensor<4xf32> {dtensor.fsdp_axes = array<i64: 0>}) {
  return %a : tensor<4xf32>
}

// -----

// expected-error @below {{argument #0 of 'sharding': 'dtensor.sharding' must be a #dtensor.sharding, got [#dtensor.replicate]}}
func.func @sharding(%a: tensor<4xf32> {dtensor.sharding = [#dtensor.replicate]}) {
  return
}

// -----

// expected-error @below {{argument #0 of 'misspelt': 'dtensor.placement' is not an attribute of the dtensor dialect (on arguments and results: dtensor.placements, dtensor.constrain, dtensor.arg_name, dtensor.fsdp_axes, dtensor.sharding)}}
func.func @misspelt(%a: tensor<4xf32> {dtensor.placement = [#dtensor.replicate]}) {
  return
}
