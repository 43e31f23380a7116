// A mesh symbol may name a static shard.grid (a program written against
// upstream's grid); dtensor ops resolve it like a dtensor.mesh.
// RUN: hp-opt %s | hp-opt | FileCheck %s

// CHECK: shard.grid @g(shape = 2x2)
shard.grid @g(shape = 2x2)

// CHECK-LABEL: func @on_grid
// CHECK: dtensor.from_local %{{.*}} : tensor<?x8xf32> -> !dtensor.tensor<10x8xf32, @g, [shard<0>, shard<0>]>
func.func @on_grid(%t: tensor<?x8xf32>) -> !dtensor.tensor<10x8xf32, @g, [shard<0>, shard<0>]> {
  %d = dtensor.from_local %t : tensor<?x8xf32> -> !dtensor.tensor<10x8xf32, @g, [shard<0>, shard<0>]>
  return %d : !dtensor.tensor<10x8xf32, @g, [shard<0>, shard<0>]>
}
