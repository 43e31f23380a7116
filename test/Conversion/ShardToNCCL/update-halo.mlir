// update_halo swaps halos with the neighbours in one nccl.group per split
// dim, innermost dim first; the ends of a group keep their halos.
// RUN: hp-opt %s -convert-shard-to-nccl -canonicalize -split-input-file | FileCheck %s

shard.grid @g(shape = 4)

// 12 rows with halos (lower 2, upper 1): the core is rows [2, 11). A rank
// sends rows [2, 3) down (the down neighbour's upper halo) and rows [9, 11)
// up (the up neighbour's lower halo); it receives rows [11, 12) from up and
// [0, 2) from down. Neighbours wrap around; only ranks 0..2 take the upper
// halo and ranks 1..3 the lower one.
// CHECK-LABEL: func @halo_1d
// CHECK-SAME: (%[[X:.*]]: tensor<12x3xi32>)
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[COMM:.*]] = nccl.comm @g axes = [0]
// CHECK: %[[ME:.*]] = nccl.comm_rank %[[COMM]]
// CHECK: %[[D:.*]] = arith.addi %[[ME]], %[[C3]]
// CHECK: %[[DOWN:.*]] = arith.remui %[[D]], %[[C4]]
// CHECK: %[[U:.*]] = arith.addi %[[ME]], %[[C1]]
// CHECK: %[[UP:.*]] = arith.remui %[[U]], %[[C4]]
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[X]][2, 0] [1, 3] [1, 1]
// CHECK: %[[B1:.*]] = bufferization.to_buffer %[[S1]]
// CHECK: %[[R1:.*]] = memref.alloc() : memref<1x3xi32>
// CHECK: %[[S2:.*]] = tensor.extract_slice %[[X]][9, 0] [2, 3] [1, 1]
// CHECK: %[[B2:.*]] = bufferization.to_buffer %[[S2]]
// CHECK: %[[R2:.*]] = memref.alloc() : memref<2x3xi32>
// CHECK: nccl.group {
// CHECK-NEXT: nccl.send %[[B1]] to %[[DOWN]] on %[[COMM]]
// CHECK-NEXT: nccl.recv %[[R1]] from %[[UP]] on %[[COMM]]
// CHECK-NEXT: nccl.send %[[B2]] to %[[UP]] on %[[COMM]]
// CHECK-NEXT: nccl.recv %[[R2]] from %[[DOWN]] on %[[COMM]]
// CHECK-NEXT: }
// CHECK: %[[HASUP:.*]] = arith.cmpi ult, %[[ME]], %[[C3]]
// CHECK: %[[T1:.*]] = bufferization.to_tensor %[[R1]]
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[T1]] into %[[X]][11, 0] [1, 3] [1, 1]
// CHECK: %[[X1:.*]] = arith.select %[[HASUP]], %[[I1]], %[[X]]
// CHECK: %[[HASDOWN:.*]] = arith.cmpi ugt, %[[ME]], %{{.*}}
// CHECK: %[[T2:.*]] = bufferization.to_tensor %[[R2]]
// CHECK: %[[I2:.*]] = tensor.insert_slice %[[T2]] into %[[X1]][0, 0] [2, 3] [1, 1]
// CHECK: %[[X2:.*]] = arith.select %[[HASDOWN]], %[[I2]], %[[X1]]
// CHECK: return %[[X2]]
func.func @halo_1d(%x: tensor<12x3xi32>) -> tensor<12x3xi32> {
  %r = shard.update_halo %x on @g split_axes = [[0]] halo_sizes = [2, 1] : tensor<12x3xi32>
  return %r : tensor<12x3xi32>
}

// A zero halo moves nothing in its direction; on a memref the result is
// written back into the destination.
// CHECK-LABEL: func @halo_memref
// CHECK-SAME: (%[[M:.*]]: memref<12x3xf32>)
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[M]] restrict writable
// CHECK: nccl.group {
// CHECK-NEXT: nccl.send
// CHECK-NEXT: nccl.recv
// CHECK-NEXT: }
// CHECK: bufferization.materialize_in_destination %{{.*}} in writable %[[M]]
// CHECK: return %[[M]]
func.func @halo_memref(%m: memref<12x3xf32>) -> memref<12x3xf32> {
  %r = shard.update_halo %m on @g split_axes = [[0]] halo_sizes = [2, 0] : memref<12x3xf32>
  return %r : memref<12x3xf32>
}

// A dynamic halo size is cast to index and used as is.
// CHECK-LABEL: func @halo_dynamic
// CHECK: arith.index_cast %{{.*}} : i64 to index
// CHECK: nccl.group
func.func @halo_dynamic(%x: tensor<12x3xf32>, %h: i64) -> tensor<12x3xf32> {
  %r = shard.update_halo %x on @g split_axes = [[0]] halo_sizes = [%h, 1] : tensor<12x3xf32>
  return %r : tensor<12x3xf32>
}

// -----

shard.grid @g(shape = 2x2)

// Two split dims: dim 1 first on the core rows [1, 4), then dim 0 on every
// column (halos of dim 1 included, so corners arrive).
// CHECK-LABEL: func @halo_2d
// CHECK: nccl.comm @g axes = [1]
// CHECK: tensor.extract_slice %{{.*}}[1, 2] [3, 1] [1, 1]
// CHECK: tensor.extract_slice %{{.*}}[1, 4] [3, 2] [1, 1]
// CHECK: nccl.group
// CHECK: nccl.comm @g axes = [0]
// CHECK: tensor.extract_slice %{{.*}}[1, 0] [2, 7] [1, 1]
// CHECK: tensor.extract_slice %{{.*}}[3, 0] [1, 7] [1, 1]
// CHECK: nccl.group
func.func @halo_2d(%x: tensor<6x7xf32>) -> tensor<6x7xf32> {
  %r = shard.update_halo %x on @g split_axes = [[0], [1]] halo_sizes = [1, 2, 2, 1] : tensor<6x7xf32>
  return %r : tensor<6x7xf32>
}

// -----

shard.grid @g(shape = 1x4)

// A group of one has no neighbours: nothing moves.
// CHECK-LABEL: func @halo_alone
// CHECK-NEXT: return %arg0
func.func @halo_alone(%x: tensor<6x7xf32>) -> tensor<6x7xf32> {
  %r = shard.update_halo %x on @g split_axes = [[0]] halo_sizes = [1, 1] : tensor<6x7xf32>
  return %r : tensor<6x7xf32>
}
