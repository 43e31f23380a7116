// RUN: hp-opt %s -dtensor-add-driver | FileCheck %s

// A DTensor argument is read whole and split locally; a replicated one and
// a plain tensor are passed as read; each DTensor result is brought back to
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
// CHECK-DAG:   func.func private @hp_write_tensor(i64, i64, i64)
// CHECK-LABEL: func.func @main() {
// CHECK:         %[[IN0:.*]] = memref.alloc() : memref<2x4xf32>
// CHECK:         %[[P0:.*]] = memref.extract_aligned_pointer_as_index %[[IN0]]
// CHECK-DAG:     %[[S0:.*]] = arith.constant 0 : i64
// CHECK-DAG:     %[[A0:.*]] = arith.index_cast %[[P0]] : index to i64
// CHECK-DAG:     %[[B0:.*]] = arith.constant 32 : i64
// CHECK:         call @hp_read_tensor(%[[S0]], %[[A0]], %[[B0]])
// CHECK:         %[[T0:.*]] = bufferization.to_tensor %[[IN0]] restrict : memref<2x4xf32> to tensor<2x4xf32>
// CHECK:         %[[R0:.*]] = dtensor.from_local %[[T0]] : tensor<2x4xf32> -> !dtensor.tensor<2x4xf32, @tp, [replicate]>
// CHECK:         %[[X:.*]] = dtensor.redistribute %[[R0]] : {{.*}} -> !dtensor.tensor<2x4xf32, @tp, [shard<1>]>
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
