// The plan hp chooses for a redistribute, and the collective it becomes.
// verify-plans checks the plan by simulation at compile time.
// RUN: %hp-opt %s --hp-partition="verify-plans print-plans" --mlir-print-op-on-diagnostic=false 2>&1 | %FileCheck %s

dtensor.mesh @tp shape = [4] names = ["tp"]

// CHECK: remark: plan [S(1)] -> [R]: {{.*}}all_gather(axes=[0], dim=1
// CHECK-LABEL: func.func @gather_columns
// CHECK: shard.all_gather %{{.*}} on @tp grid_axes = [0] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
func.func @gather_columns(%x: !dtensor.tensor<8x16xf32, @tp, [shard<1>]>) -> !dtensor.tensor<8x16xf32, @tp, [replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8x16xf32, @tp, [shard<1>]> -> !dtensor.tensor<8x16xf32, @tp, [replicate]>
  return %r : !dtensor.tensor<8x16xf32, @tp, [replicate]>
}
