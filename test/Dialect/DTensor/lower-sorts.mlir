// dtensor-lower-sorts: a sort becomes a bottom-up merge sort on tensors:
// two passes per scf.while iteration (widths w and 2w), each merging every
// row's pairs of runs (the rows' loops, the runs' loop, the merge's
// scf.while), the first into the scratch tensors and the second back, so
// that each pair is yielded where it came from (rewritten in place). The
// numbers: test/e2e/cpu/global-sort.mlir.
// RUN: hp-opt %s -dtensor-lower-sorts | FileCheck %s
// RUN: hp-opt %s -dtensor-lower-sorts -one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=INPLACE

// CHECK-LABEL: func.func @descending_rows
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// Each element's position along the sorted dim: the first indices.
// CHECK: %[[POS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3x8xi64>)
// CHECK: linalg.index 1 : index
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[PASSES:.*]]:5 = scf.while (%[[W:.*]] = %{{.*}}, %[[FROM:.*]] = %{{.*}}, %[[FROMI:.*]] = %[[POS]], %[[TO:.*]] = %{{.*}}, %[[TOI:.*]] = %{{.*}})
// CHECK: arith.cmpi ult, %[[W]], %[[C8]] : index
// CHECK: } do {
// CHECK: %[[PAIR:.*]] = arith.muli
// CHECK: %[[FIRST:.*]]:2 = scf.for %[[ROW:.*]] = %{{.*}} to %[[C3]] {{.*}} iter_args(%{{.*}} = %[[TO]], %{{.*}} = %[[TOI]])
// CHECK: scf.for %[[LO:.*]] = %{{.*}} to %[[C8]] step %[[PAIR]]
// CHECK: scf.while
// Descending: the right run's element goes first when it is greater, or
// NaN against a number; otherwise the left's (stable).
// CHECK: %[[L:.*]] = tensor.extract %{{.*}}[%[[ROW]], %{{.*}}] : tensor<3x8xf32>
// CHECK: %[[R:.*]] = tensor.extract %{{.*}}[%[[ROW]], %{{.*}}] : tensor<3x8xf32>
// CHECK: arith.cmpf ogt, %[[R]], %[[L]] : f32
// CHECK: arith.cmpf ord, %[[L]], %[[L]] : f32
// CHECK: arith.cmpf uno, %[[R]], %[[R]] : f32
// CHECK: tensor.insert
// CHECK: tensor.insert
// The second pass merges the scratch tensors back into the first pair.
// CHECK: %[[SECOND:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %[[FROM]], %{{.*}} = %[[FROMI]])
// CHECK: scf.yield %{{.*}}, %[[SECOND]]#0, %[[SECOND]]#1, %[[FIRST]]#0, %[[FIRST]]#1 :
// CHECK: return %[[PASSES]]#1, %[[PASSES]]#2
// INPLACE-LABEL: func.func @descending_rows
// INPLACE-NOT: memref.copy
// INPLACE: return
func.func @descending_rows(%x: tensor<3x8xf32>) -> (tensor<3x8xf32>, tensor<3x8xi64>) {
  %v, %i = dtensor.sort %x dim = 1 descending : tensor<3x8xf32> -> tensor<3x8xi64>
  return %v, %i : tensor<3x8xf32>, tensor<3x8xi64>
}

// Ascending integers: the right's element first only when strictly less.
// CHECK-LABEL: func.func @ascending_ints
// CHECK: arith.cmpi slt
// CHECK-NOT: arith.cmpf
func.func @ascending_ints(%x: tensor<5x2xi32>) -> (tensor<5x2xi32>, tensor<5x2xi64>) {
  %v, %i = dtensor.sort %x dim = 0 : tensor<5x2xi32> -> tensor<5x2xi64>
  return %v, %i : tensor<5x2xi32>, tensor<5x2xi64>
}

// Dynamic sizes come from the input.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?xf64>
// CHECK: arith.cmpi ult, %{{.*}}, %[[N]] : index
func.func @dynamic(%x: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xi64>) {
  %v, %i = dtensor.sort %x dim = 0 : tensor<?xf64> -> tensor<?xi64>
  return %v, %i : tensor<?xf64>, tensor<?xi64>
}

// Booleans sort false first (unsigned i1), as torch sorts them.
// CHECK-LABEL: func.func @booleans
// CHECK: arith.cmpi ugt, %{{.*}}, %{{.*}} : i1
func.func @booleans(%x: tensor<6xi1>) -> (tensor<6xi1>, tensor<6xi64>) {
  %v, %i = dtensor.sort %x dim = 0 descending : tensor<6xi1> -> tensor<6xi64>
  return %v, %i : tensor<6xi1>, tensor<6xi64>
}
