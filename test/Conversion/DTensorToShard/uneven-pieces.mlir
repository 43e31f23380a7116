// RUN: hp-opt %s -convert-dtensor-to-shard -canonicalize | FileCheck %s

// Nested uneven pieces packed for one reduce_scatter on the merged group
// (default latency): 10 split over 2 then 2 gives pieces 3,2,3,2 at 0,3,5,8;
// slot j of 3 holds piece j (digits j/2, j%2) and zeros after it. Slot 1
// position 2 is padding (3 + 2 >= 5); slot 3 position 0 reads element 8.
dtensor.mesh @m shape = [2, 2]
// CHECK-LABEL: func @nested_scatter
// CHECK-SAME: (%[[X:[^:]*]]: tensor<10xf32>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK: %[[P:.*]] = tensor.generate
// CHECK-NEXT: ^bb0(%[[Q:.*]]: index):
// CHECK-NEXT: %[[J:.*]] = arith.divui %[[Q]], %[[C3]]
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[Q]], %[[C3]]
// CHECK-NEXT: %[[D1:.*]] = arith.remui %[[J]], %[[C2]]
// CHECK-NEXT: %[[J1:.*]] = arith.divui %[[J]], %[[C2]]
// CHECK-NEXT: %[[D0:.*]] = arith.remui %[[J1]], %[[C2]]
// CHECK-NEXT: %[[OUTER:.*]] = arith.muli %[[D0]], %[[C5]]
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[D1]], %[[C3]]
// CHECK-NEXT: %[[START:.*]] = arith.minsi %[[S]], %[[C5]]
// CHECK-NEXT: %[[REST:.*]] = arith.subi %[[C5]], %[[START]]
// CHECK-NEXT: %[[M:.*]] = arith.minsi %[[REST]], %[[C3]]
// CHECK-NEXT: %[[LEN:.*]] = arith.maxsi %[[M]], %[[C0]]
// CHECK-NEXT: %[[OFF:.*]] = arith.addi %[[OUTER]], %[[START]]
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[R]], %[[LEN]]
// CHECK-NEXT: scf.if %[[IN]] -> (f32) {
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[OFF]], %[[R]]
// CHECK-NEXT: %[[E:.*]] = tensor.extract %[[X]][%[[AT]]] : tensor<10xf32>
// CHECK-NEXT: scf.yield %[[E]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[ZERO]] : f32
// CHECK: } : tensor<12xf32>
// CHECK: %[[RS:.*]] = shard.reduce_scatter %[[P]] on @m grid_axes = [0, 1] scatter_axis = 0 : tensor<12xf32> -> tensor<3xf32>
// This rank keeps clamp(5 - 3 c1, 0, 3) of its slot.
// CHECK: %[[I:.*]]:2 = shard.process_multi_index on @m : index, index
// CHECK: %[[S2:.*]] = arith.muli %[[I]]#1, %[[C3]]
// CHECK: %[[MINE:.*]] = tensor.extract_slice %[[RS]][0] [%{{.*}}] [1] : tensor<3xf32> to tensor<?xf32>
// CHECK: return %[[MINE]]
func.func @nested_scatter(%x: !dtensor.tensor<10xf32, @m, [partial<sum>, partial<sum>]>) -> !dtensor.tensor<10xf32, @m, [shard<0>, shard<0>]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<10xf32, @m, [partial<sum>, partial<sum>]> -> !dtensor.tensor<10xf32, @m, [shard<0>, shard<0>]>
  return %r : !dtensor.tensor<10xf32, @m, [shard<0>, shard<0>]>
}
