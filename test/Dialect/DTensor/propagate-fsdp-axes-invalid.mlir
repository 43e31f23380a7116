// RUN: hp-opt %s -split-input-file -dtensor-propagate -verify-diagnostics

// One rule of dtensor.fsdp_axes (checked by dtensor-propagate, its user) a
// case.
dtensor.mesh @m shape = [2, 2]

// expected-error @below {{argument #0 of 'not_an_array': 'dtensor.fsdp_axes' must be a non-empty array<i64> of mesh axes, got [0]}}
func.func @not_an_array(%w: !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]> {dtensor.arg_name = "w", dtensor.fsdp_axes = [0]}) {
  return
}

// -----

dtensor.mesh @m shape = [2, 2]

// expected-error @below {{argument #0 of 'unnamed': 'dtensor.fsdp_axes' is only meaningful on a parameter (an argument with a string 'dtensor.arg_name')}}
func.func @unnamed(%w: !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]> {dtensor.fsdp_axes = array<i64: 0>}) {
  return
}

// -----

// expected-error @below {{argument #0 of 'plain': 'dtensor.fsdp_axes' is only meaningful on a !dtensor.tensor argument}}
func.func @plain(%w: tensor<8x8xf32> {dtensor.arg_name = "w", dtensor.fsdp_axes = array<i64: 0>}) {
  return
}

// -----

dtensor.mesh @m shape = [2, 2]

// expected-error @below {{argument #0 of 'out_of_range': 'dtensor.fsdp_axes' names axis 2, which the 2-D mesh @m does not have}}
func.func @out_of_range(%w: !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]> {dtensor.arg_name = "w", dtensor.fsdp_axes = array<i64: 2>}) {
  return
}

// -----

dtensor.mesh @m shape = [2, 2]

// expected-error @below {{argument #0 of 'twice': 'dtensor.fsdp_axes' names axis 0 twice}}
func.func @twice(%w: !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]> {dtensor.arg_name = "w", dtensor.fsdp_axes = array<i64: 0, 0>}) {
  return
}

// -----

dtensor.mesh @m shape = [2, 2]

// expected-error @below {{argument #0 of 'not_split': 'dtensor.fsdp_axes' names axis 1, which does not split the argument ('!dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>')}}
func.func @not_split(%w: !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]> {dtensor.arg_name = "w", dtensor.fsdp_axes = array<i64: 1>}) {
  return
}
