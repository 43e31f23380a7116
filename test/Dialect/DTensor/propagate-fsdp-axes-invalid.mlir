// RUN: hp-opt %s -split-input-file -dtensor-propagate -verify-diagnostics

// dtensor-propagate's own rule of dtensor.fsdp_axes: by its stage the
// argument is a DTensor (the dialect checks the others wherever the
// attribute appears: function-attrs-invalid.mlir).

// expected-error @below {{argument #0 of 'plain': 'dtensor.fsdp_axes' is only meaningful on a !dtensor.tensor argument}}
func.func @plain(%w: tensor<8x8xf32> {dtensor.arg_name = "w", dtensor.fsdp_axes = array<i64: 0>}) {
  return
}
