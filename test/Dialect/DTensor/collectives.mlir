// RUN: hp-opt %s | hp-opt | FileCheck %s
// RUN: hp-opt %s --mlir-print-op-generic | hp-opt | FileCheck %s
// RUN: hp-opt %s -dtensor-expand-local-regions -convert-dtensor-to-shard | FileCheck %s --check-prefix=SHARD

// Axis-named collectives on local tensors, and their one-to-one mapping onto
// upstream shard ops (grid_axes in the listed order).

dtensor.mesh @mesh shape = [2, 4] names = ["ep", "tp"]

// CHECK-LABEL: func @collectives
// SHARD-LABEL: func @collectives
func.func @collectives(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>, %c: tensor<8x2x4xf32>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<2x16xf32>, tensor<4x4x4xf32>, tensor<8x16xf32>, index) {
  // CHECK: dtensor.all_gather %{{.*}} on @mesh axes = ["tp"] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
  // SHARD: shard.all_gather %{{.*}} on @mesh grid_axes = [1] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
  %g = dtensor.all_gather %a on @mesh axes = ["tp"] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
  // CHECK: dtensor.all_reduce %{{.*}} on @mesh axes = ["tp", "ep"] reduction = max : tensor<8x16xf32> -> tensor<8x16xf32>
  // SHARD: shard.all_reduce %{{.*}} on @mesh grid_axes = [1, 0] reduction = max : tensor<8x16xf32> -> tensor<8x16xf32>
  %s = dtensor.all_reduce %b on @mesh axes = ["tp", "ep"] reduction = max : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK: dtensor.reduce_scatter %{{.*}} on @mesh axes = ["tp"] reduction = sum scatter_axis = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
  // SHARD: shard.reduce_scatter %{{.*}} on @mesh grid_axes = [1] scatter_axis = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
  %r = dtensor.reduce_scatter %b on @mesh axes = ["tp"] reduction = sum scatter_axis = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
  // CHECK: dtensor.all_to_all %{{.*}} on @mesh axes = ["ep"] split_axis = 0 concat_axis = 1 : tensor<8x2x4xf32> -> tensor<4x4x4xf32>
  // SHARD: shard.all_to_all %{{.*}} on @mesh grid_axes = [0] split_axis = 0 concat_axis = 1 : tensor<8x2x4xf32> -> tensor<4x4x4xf32>
  %t = dtensor.all_to_all %c on @mesh axes = ["ep"] split_axis = 0 concat_axis = 1 : tensor<8x2x4xf32> -> tensor<4x4x4xf32>
  // CHECK: dtensor.shift %{{.*}} on @mesh axes = ["tp"] offset = 1 rotate : tensor<8x16xf32> -> tensor<8x16xf32>
  // SHARD: shard.shift %{{.*}} on @mesh grid_axes = [1] shift_axis = 1 offset = 1 rotate : tensor<8x16xf32> -> tensor<8x16xf32>
  %n = dtensor.shift %b on @mesh axes = ["tp"] offset = 1 rotate : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK: dtensor.axis_index @mesh "ep" : index
  // SHARD: shard.process_multi_index on @mesh axes = [0] : index
  %i = dtensor.axis_index @mesh "ep" : index
  return %g, %s, %r, %t, %n, %i : tensor<8x16xf32>, tensor<8x16xf32>, tensor<2x16xf32>, tensor<4x4x4xf32>, tensor<8x16xf32>, index
}

// Inside a local region, and without rotate.
// CHECK-LABEL: func @in_region
// CHECK: dtensor.shift %{{.*}} on @mesh axes = ["ep"] offset = -1 : tensor<4x16xf32> -> tensor<4x16xf32>
// SHARD-LABEL: func @in_region
// SHARD: shard.shift %{{.*}} on @mesh grid_axes = [0] shift_axis = 0 offset = -1 : tensor<4x16xf32> -> tensor<4x16xf32>
func.func @in_region(%x: !dtensor.tensor<8x16xf32, @mesh, [shard<0>, replicate]>) -> tensor<4x16xf32> {
  %r = dtensor.local_region on @mesh args(%x as "x") : (!dtensor.tensor<8x16xf32, @mesh, [shard<0>, replicate]>) -> tensor<4x16xf32> {
  ^bb0(%l: tensor<4x16xf32>):
    %s = dtensor.shift %l on @mesh axes = ["ep"] offset = -1 : tensor<4x16xf32> -> tensor<4x16xf32>
    dtensor.yield %s : tensor<4x16xf32>
  }
  return %r : tensor<4x16xf32>
}
