// RUN: hp-opt %s -split-input-file | hp-opt -split-input-file | FileCheck %s

// The dtensor attributes of functions, arguments and results that the
// dialect verifies (DiscardableAttrs.cpp), valid: they round-trip.
dtensor.mesh @m shape = [2, 2]
// CHECK-LABEL: func.func @valid(
// CHECK-SAME: %{{.*}}: tensor<8x8xf32> {dtensor.arg_name = "w", dtensor.fsdp_axes = array<i64: 0>, dtensor.placements = [#dtensor.shard<0>, #dtensor.replicate]}
// CHECK-SAME: %{{.*}}: !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<1>]> {dtensor.arg_name = "v", dtensor.fsdp_axes = array<i64: 1, 0>}
// CHECK-SAME: -> (tensor<8x8xf32> {dtensor.placements = [#dtensor.replicate, #dtensor.partial<sum>]}, tensor<8x8xf32> {dtensor.constrain = [#dtensor.shard<1>, #dtensor.replicate]})
// CHECK-SAME: attributes {dtensor.mesh = @m}
func.func @valid(%w: tensor<8x8xf32> {dtensor.placements = [#dtensor.shard<0>, #dtensor.replicate], dtensor.arg_name = "w", dtensor.fsdp_axes = array<i64: 0>},
                 %v: !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<1>]> {dtensor.arg_name = "v", dtensor.fsdp_axes = array<i64: 1, 0>})
    -> (tensor<8x8xf32> {dtensor.placements = [#dtensor.replicate, #dtensor.partial<sum>]},
        tensor<8x8xf32> {dtensor.constrain = [#dtensor.shard<1>, #dtensor.replicate]})
    attributes {dtensor.mesh = @m} {
  return %w, %w : tensor<8x8xf32>, tensor<8x8xf32>
}
