// The shard ops that are not collectives: grid queries become index
// arithmetic, sharding metadata is erased.
// RUN: hp-opt %s -convert-shard-to-nccl -canonicalize -split-input-file | FileCheck %s
// The pass alone (no canonicalize) takes the dead grid_shape that upstream's
// shard-partition leaves behind and leaves no shard query.
// RUN: hp-opt %s -convert-shard-to-nccl -split-input-file | FileCheck %s --check-prefix=ALONE
// ALONE-NOT: shard.grid_shape
// ALONE-NOT: shard.neighbors_linear_indices
// ALONE-NOT: shard.shard_shape
// ALONE-NOT: shard.sharding

shard.grid @g(shape = 3x4x5)

// Device (1, 0, 4) of a 3x4x5 grid: linear 1*20 + 0*5 + 4 = 24. Along axis
// 0 its neighbours are (0, 0, 4) = 4 and (2, 0, 4) = 44; along axis 1 it is
// first (-1) and the next is (1, 1, 4) = 29; along axis 2 it is last: down
// (1, 0, 3) = 23, up -1.
// CHECK-LABEL: func @neighbors_static
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C44:.*]] = arith.constant 44 : index
// CHECK-DAG: %[[M1:.*]] = arith.constant -1 : index
// CHECK-DAG: %[[C29:.*]] = arith.constant 29 : index
// CHECK-DAG: %[[C23:.*]] = arith.constant 23 : index
// CHECK: return %[[C4]], %[[C44]], %[[M1]], %[[C29]], %[[C23]], %[[M1]]
func.func @neighbors_static() -> (index, index, index, index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a:2 = shard.neighbors_linear_indices on @g[%c1, %c0, %c4] split_axes = [0] : index, index
  %b:2 = shard.neighbors_linear_indices on @g[%c1, %c0, %c4] split_axes = [1] : index, index
  %c:2 = shard.neighbors_linear_indices on @g[%c1, %c0, %c4] split_axes = [2] : index, index
  return %a#0, %a#1, %b#0, %b#1, %c#0, %c#1 : index, index, index, index, index, index
}

// Two split axes step through their combined group, row-major: device
// (1, 3, 2) has group index 1*4 + 3 = 7 over axes [0, 1]; down is group
// index 6 = (1, 2), linear 1*20 + 2*5 + 2 = 32; up is 8 = (2, 0), linear 42.
// CHECK-LABEL: func @neighbors_two_axes
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C42:.*]] = arith.constant 42 : index
// CHECK: return %[[C32]], %[[C42]]
func.func @neighbors_two_axes() -> (index, index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %a:2 = shard.neighbors_linear_indices on @g[%c1, %c3, %c2] split_axes = [0, 1] : index, index
  return %a#0, %a#1 : index, index
}

// A dynamic device index stays arithmetic, with -1 selected at the ends.
// CHECK-LABEL: func @neighbors_dynamic
// CHECK-NOT: shard.
// CHECK: arith.select
// CHECK: return
func.func @neighbors_dynamic(%i: index, %j: index, %k: index) -> (index, index) {
  %a:2 = shard.neighbors_linear_indices on @g[%i, %j, %k] split_axes = [1] : index, index
  return %a#0, %a#1 : index, index
}

// grid_shape: constants; an unused one is simply dropped.
// CHECK-LABEL: func @grid_shape
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK: return %[[C5]], %[[C3]]
func.func @grid_shape() -> (index, index) {
  %s:2 = shard.grid_shape @g axes = [2, 0] : index, index
  %dead:3 = shard.grid_shape @g : index, index, index
  return %s#0, %s#1 : index, index
}

// shard_shape by upstream's definition: 10 rows over 3 shards are 3, 3, 4
// (the last 10 % 3 shards get one more); 14 columns over 4 are 3, 3, 4, 4.
// Device (2, 3, 0): 4 and 4; device (0, 1, 0): 3 and 3.
// CHECK-LABEL: func @shard_shape
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C7:.*]] = arith.constant 7 : index
// CHECK: return %[[C4]], %[[C4]], %[[C7]], %[[C3]], %[[C3]], %[[C7]]
func.func @shard_shape() -> (index, index, index, index, index, index) {
  %s = shard.sharding @g split_axes = [[0], [1]] : !shard.sharding
  %a:3 = shard.shard_shape dims = [10, 14, 7] sharding = %s device = [2, 3, 0] : index, index, index
  %b:3 = shard.shard_shape dims = [10, 14, 7] sharding = %s device = [0, 1, 0] : index, index, index
  return %a#0, %a#1, %a#2, %b#0, %b#1, %b#2 : index, index, index, index, index, index
}

// With sharded_dims_offsets a shard's size is the difference of
// consecutive offsets: dim 0 over axis 0 [0, 2, 7, 10], dim 1 over axis 2
// [0, 1, 2, 3, 4, 6]. Device (1, 0, 4): 7 - 2 = 5 and 6 - 4 = 2.
// CHECK-LABEL: func @shard_shape_offsets
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: return %[[C5]], %[[C2]]
func.func @shard_shape_offsets() -> (index, index) {
  %s = shard.sharding @g split_axes = [[0], [2]] sharded_dims_offsets = [0, 2, 7, 10, 0, 1, 2, 3, 4, 6] : !shard.sharding
  %a:2 = shard.shard_shape dims = [10, 6] sharding = %s device = [1, 0, 4] : index, index
  return %a#0, %a#1 : index, index
}

// -----

shard.grid @g(shape = 2x2)

// Shardings crossing function boundaries are compile-time metadata: they
// leave signatures, calls and returns; shard.shard forwards its source.
// CHECK-LABEL: func @returns_sharding
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[X]] : tensor<2x4xf32>
func.func @returns_sharding(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, !shard.sharding) {
  %s = shard.sharding @g split_axes = [[0, 1]] : !shard.sharding
  %t = shard.shard %x to %s : tensor<2x4xf32>
  %r = shard.get_sharding %t : tensor<2x4xf32> -> !shard.sharding
  return %t, %r : tensor<2x4xf32>, !shard.sharding
}

// CHECK-LABEL: func @takes_sharding
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>) -> tensor<2x4xf32>
func.func @takes_sharding(%x: tensor<2x4xf32>, %s: !shard.sharding) -> tensor<2x4xf32> {
  return %x : tensor<2x4xf32>
}

// CHECK-LABEL: func @caller
// CHECK: %[[A:.*]] = call @returns_sharding(%{{.*}}) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[B:.*]] = call @takes_sharding(%[[A]]) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: return %[[B]]
// CHECK-NOT: shard.
func.func @caller(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %t, %s = call @returns_sharding(%x) : (tensor<2x4xf32>) -> (tensor<2x4xf32>, !shard.sharding)
  %u = call @takes_sharding(%t, %s) : (tensor<2x4xf32>, !shard.sharding) -> tensor<2x4xf32>
  return %u : tensor<2x4xf32>
}

// -----

// The other arguments and results keep their own attributes.
// CHECK-LABEL: func private @ext
// CHECK-SAME: (tensor<2xf32> {test.x = 1 : i64}) -> (tensor<2xf32> {test.z = 3 : i64})
func.func private @ext(!shard.sharding {test.y = 2 : i64}, tensor<2xf32> {test.x = 1 : i64}) -> (!shard.sharding, tensor<2xf32> {test.z = 3 : i64})

// CHECK-LABEL: func @attrs
// CHECK-SAME: (%{{.*}}: tensor<2xf32> {test.a = 1 : i64}) -> (tensor<2xf32> {test.c = 3 : i64})
func.func @attrs(%s: !shard.sharding {test.b = 2 : i64}, %x: tensor<2xf32> {test.a = 1 : i64}) -> (!shard.sharding, tensor<2xf32> {test.c = 3 : i64}) {
  %t, %y = call @ext(%s, %x) : (!shard.sharding, tensor<2xf32>) -> (!shard.sharding, tensor<2xf32>)
  return %t, %y : !shard.sharding, tensor<2xf32>
}
