// RUN: hp-opt %s -dtensor-add-driver | FileCheck %s

// A split DTensor argument is read by blocks: each rank's offsets come from
// its coordinate (here column 2 * d0, two columns); a replicated one and a
// plain tensor are read whole and passed as read; each DTensor result is brought back to
// replicate before it is written. Slots count arguments and results apart.

dtensor.mesh @tp shape = [2]

func.func @forward(%x: !dtensor.tensor<2x4xf32, @tp, [shard<1>]>,
                   %r: !dtensor.tensor<3xi64, @tp, [replicate]>,
                   %p: tensor<5xi8>)
    -> (!dtensor.tensor<2x4xf32, @tp, [shard<0>]>, tensor<5xi8>) {
  %y = dtensor.redistribute %x : !dtensor.tensor<2x4xf32, @tp, [shard<1>]> -> !dtensor.tensor<2x4xf32, @tp, [shard<0>]>
  return %y, %p : !dtensor.tensor<2x4xf32, @tp, [shard<0>]>, tensor<5xi8>
}

// CHECK-LABEL: func.func @forward
// CHECK-DAG:   func.func private @hp_read_tensor(i64, i64, i64)
// CHECK-DAG:   func.func private @hp_read_tensor_block(i64, i64, i64, i64, i64)
// CHECK-DAG:   func.func private @hp_write_tensor(i64, i64, i64)
// CHECK-LABEL: func.func @main() {
// The block description lives in @main's entry block (a session loop
// would grow the stack with one per call).
// CHECK-NEXT:    %[[D:.*]] = memref.alloca() : memref<6xi64>
// CHECK:         %[[I:.*]] = dtensor.axis_index @tp "d0" : index
// CHECK:         %[[OFF:.*]] = arith.muli %[[I]], %[[C2:.*]] : index
// CHECK:         %[[IN0:.*]] = memref.alloc() : memref<2x2xf32>
// Dim 0: 2 rows from 0 of 2; dim 1: 2 columns from 2 * d0 of 4.
// CHECK:         %[[G0:.*]] = arith.constant 2 : i64
// CHECK:         %[[O0:.*]] = arith.constant 0 : i64
// CHECK:         %[[L0:.*]] = arith.constant 2 : i64
// CHECK:         memref.store %[[G0]], %[[D]][%{{.*}}]
// CHECK:         memref.store %[[O0]], %[[D]][%{{.*}}]
// CHECK:         memref.store %[[L0]], %[[D]][%{{.*}}]
// CHECK:         %[[G1:.*]] = arith.constant 4 : i64
// CHECK:         %[[O1:.*]] = arith.index_cast %[[OFF]] : index to i64
// CHECK:         %[[L1:.*]] = arith.constant 2 : i64
// CHECK:         memref.store %[[G1]], %[[D]][%{{.*}}]
// CHECK:         memref.store %[[O1]], %[[D]][%{{.*}}]
// CHECK:         memref.store %[[L1]], %[[D]][%{{.*}}]
// CHECK:         %[[S0:.*]] = arith.constant 0 : i64
// CHECK:         %[[P0:.*]] = memref.extract_aligned_pointer_as_index %[[IN0]]
// CHECK:         %[[A0:.*]] = arith.index_cast %[[P0]] : index to i64
// CHECK:         %[[PD:.*]] = memref.extract_aligned_pointer_as_index %[[D]]
// CHECK:         %[[AD:.*]] = arith.index_cast %[[PD]] : index to i64
// CHECK:         %[[RANK:.*]] = arith.constant 2 : i64
// CHECK:         %[[EB:.*]] = arith.constant 4 : i64
// CHECK:         call @hp_read_tensor_block(%[[S0]], %[[A0]], %[[AD]], %[[RANK]], %[[EB]])
// CHECK:         %[[T0:.*]] = bufferization.to_tensor %[[IN0]] restrict : memref<2x2xf32> to tensor<2x2xf32>
// CHECK:         %[[X:.*]] = dtensor.from_local %[[T0]] : tensor<2x2xf32> -> !dtensor.tensor<2x4xf32, @tp, [shard<1>]>
// CHECK:         memref.alloc() : memref<3xi64>
// CHECK:         arith.constant 1 : i64
// CHECK:         arith.constant 24 : i64
// CHECK:         call @hp_read_tensor
// CHECK:         %[[R:.*]] = dtensor.from_local %{{.*}} : tensor<3xi64> -> !dtensor.tensor<3xi64, @tp, [replicate]>
// CHECK-NOT:     dtensor.redistribute
// CHECK:         memref.alloc() : memref<5xi8>
// CHECK:         arith.constant 2 : i64
// CHECK:         arith.constant 5 : i64
// CHECK:         call @hp_read_tensor
// CHECK:         %[[P:.*]] = bufferization.to_tensor {{.*}} : memref<5xi8> to tensor<5xi8>
// CHECK:         %[[O:.*]]:2 = call @forward(%[[X]], %[[R]], %[[P]])
// CHECK:         %[[Q:.*]] = dtensor.redistribute %[[O]]#0 : !dtensor.tensor<2x4xf32, @tp, [shard<0>]> -> !dtensor.tensor<2x4xf32, @tp, [replicate]>
// CHECK:         %[[L:.*]] = dtensor.to_local %[[Q]] : {{.*}} -> tensor<2x4xf32>
// CHECK:         %[[OUT0:.*]] = memref.alloc() : memref<2x4xf32>
// CHECK:         bufferization.materialize_in_destination %[[L]] in restrict writable %[[OUT0]]
// CHECK:         arith.constant 0 : i64
// CHECK:         arith.constant 32 : i64
// CHECK:         call @hp_write_tensor
// CHECK:         %[[OUT1:.*]] = memref.alloc() : memref<5xi8>
// CHECK:         bufferization.materialize_in_destination %[[O]]#1 in restrict writable %[[OUT1]]
// CHECK:         arith.constant 1 : i64
// CHECK:         arith.constant 5 : i64
// CHECK:         call @hp_write_tensor
// CHECK-NEXT:    return
