// RUN: hp-opt %s --allow-unregistered-dialect --dtensor-widen-bool-tensors -split-input-file | FileCheck %s

// SDPA's safe softmax: a mask computed elementwise, reduced with andi over
// the keys ("is every key masked"), then read by a select. Both i1 tensors
// between ops become i8: the producer yields extui, the reduction reads and
// writes bytes through trunci/extui, its fill writes the byte 1.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @safe_softmax_mask
// CHECK-NOT: xi1>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xi8>
// CHECK: %[[M:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<4x8xi8>)
// CHECK: %[[C:.*]] = arith.cmpf oeq
// CHECK: %[[B:.*]] = arith.extui %[[C]] : i1 to i8
// CHECK: linalg.yield %[[B]] : i8
// CHECK: %[[TRUE:.*]] = arith.extui %true : i1 to i8
// CHECK: %[[F:.*]] = linalg.fill ins(%[[TRUE]] : i8) outs(%{{.*}} : tensor<4x1xi8>)
// CHECK: %[[ALL:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<4x8xi8>) outs(%[[F]] : tensor<4x1xi8>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: i8, %[[ACC:.*]]: i8):
// CHECK-DAG: %[[IN1:.*]] = arith.trunci %[[IN]] : i8 to i1
// CHECK-DAG: %[[ACC1:.*]] = arith.trunci %[[ACC]] : i8 to i1
// CHECK: %[[AND:.*]] = arith.andi %[[IN1]], %[[ACC1]] : i1
// CHECK: %[[AND8:.*]] = arith.extui %[[AND]] : i1 to i8
// CHECK: linalg.yield %[[AND8]] : i8
// CHECK: linalg.generic {{.*}} ins(%[[ALL]], %arg0 : tensor<4x1xi8>, tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[R:.*]]: i8, %{{.*}}: f32, %{{.*}}: f32):
// CHECK: %[[R1:.*]] = arith.trunci %[[R]] : i8 to i1
// CHECK: arith.select %[[R1]]
func.func @safe_softmax_mask(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %true = arith.constant true
  %e = tensor.empty() : tensor<4x8xi1>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xi1>) {
  ^bb0(%v: f32, %o: i1):
    %c = arith.cmpf oeq, %v, %ninf : f32
    linalg.yield %c : i1
  } -> tensor<4x8xi1>
  %e1 = tensor.empty() : tensor<4x1xi1>
  %f = linalg.fill ins(%true : i1) outs(%e1 : tensor<4x1xi1>) -> tensor<4x1xi1>
  %all = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<4x8xi1>) outs(%f : tensor<4x1xi1>) {
  ^bb0(%in: i1, %acc: i1):
    %a = arith.andi %in, %acc : i1
    linalg.yield %a : i1
  } -> tensor<4x1xi1>
  %ef = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%all, %x : tensor<4x1xi1>, tensor<4x8xf32>) outs(%ef : tensor<4x8xf32>) {
  ^bb0(%a: i1, %v: f32, %o: f32):
    %s = arith.select %a, %zero, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Ops that move elements change type; a constant is rebuilt on bytes; a
// transpose is rebuilt; a function argument stays i1 and its uses read an
// extui copy; a returned mask is narrowed back for the signature.
// CHECK-LABEL: func.func @moves
// CHECK-SAME: (%[[ARG:.*]]: tensor<2x6xi1>) -> tensor<3x4xi1>
// CHECK: %[[W:.*]] = arith.extui %[[ARG]] : tensor<2x6xi1> to tensor<2x6xi8>
// CHECK: %[[C:.*]] = arith.constant dense<[1, 0]> : tensor<2xi8>
// CHECK: tensor.expand_shape %[[C]] {{.*}} : tensor<2xi8> into tensor<2x1xi8>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[W]][0, 0] [2, 3] [1, 1] : tensor<2x6xi8> to tensor<2x3xi8>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[S]] : tensor<2x3xi8>) outs(%{{.*}} : tensor<3x2xi8>)
// CHECK: %[[CAT:.*]] = tensor.concat dim(1) %[[T]], %[[T]] : (tensor<3x2xi8>, tensor<3x2xi8>) -> tensor<3x4xi8>
// CHECK: %[[N:.*]] = arith.trunci %[[CAT]] : tensor<3x4xi8> to tensor<3x4xi1>
// CHECK: return %[[N]] : tensor<3x4xi1>
func.func @moves(%arg: tensor<2x6xi1>) -> tensor<3x4xi1> {
  %c = arith.constant dense<[true, false]> : tensor<2xi1>
  %x = tensor.expand_shape %c [[0, 1]] output_shape [2, 1] : tensor<2xi1> into tensor<2x1xi1>
  %s = tensor.extract_slice %arg[0, 0] [2, 3] [1, 1] : tensor<2x6xi1> to tensor<2x3xi1>
  %e = tensor.empty() : tensor<3x2xi1>
  %t = linalg.transpose ins(%s : tensor<2x3xi1>) outs(%e : tensor<3x2xi1>) permutation = [1, 0]
  %cat = tensor.concat dim(1) %t, %t : (tensor<3x2xi1>, tensor<3x2xi1>) -> tensor<3x4xi1>
  "test.use"(%x) : (tensor<2x1xi1>) -> ()
  return %cat : tensor<3x4xi1>
}

// -----

// An op the pass does not know reads the mask narrowed again, and its i1
// result is widened after it; a gather (tensor.extract in a body) of a
// widened tensor narrows what it reads.
#id1 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @unknown_and_gather
// CHECK: %[[W:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4xi8>)
// CHECK: %[[N:.*]] = arith.trunci %[[W]] : tensor<4xi8> to tensor<4xi1>
// CHECK: %[[U:.*]] = "test.op"(%[[N]]) : (tensor<4xi1>) -> tensor<4xi1>
// CHECK: %[[UW:.*]] = arith.extui %[[U]] : tensor<4xi1> to tensor<4xi8>
// CHECK: linalg.generic {{.*}} ins(%arg1, %arg0 : tensor<4xindex>, tensor<4xf32>)
// CHECK: %[[X:.*]] = tensor.extract %[[UW]][%{{.*}}] : tensor<4xi8>
// CHECK: %[[X1:.*]] = arith.trunci %[[X]] : i8 to i1
// CHECK: arith.select %[[X1]]
func.func @unknown_and_gather(%x: tensor<4xf32>, %idx: tensor<4xindex>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xi1>
  %m = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xi1>) {
  ^bb0(%v: f32, %o: i1):
    %c = arith.cmpf ogt, %v, %zero : f32
    linalg.yield %c : i1
  } -> tensor<4xi1>
  %u = "test.op"(%m) : (tensor<4xi1>) -> tensor<4xi1>
  %ef = tensor.empty() : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%idx, %x : tensor<4xindex>, tensor<4xf32>) outs(%ef : tensor<4xf32>) {
  ^bb0(%i: index, %v: f32, %o: f32):
    %b = tensor.extract %u[%i] : tensor<4xi1>
    %s = arith.select %b, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// A sort of booleans sorts their bytes (0 before 1, ties in order): its
// values stay i8 for the consumer, which narrows them in its body.
#id2 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @sort_of_booleans
// CHECK-NOT: xi1>
// CHECK: %[[M:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8xi8>)
// CHECK: %[[V:.*]], %[[I:.*]] = dtensor.sort %[[M]] dim = 0 descending : tensor<8xi8> -> tensor<8xi64>
// CHECK: linalg.generic {{.*}} ins(%[[V]] : tensor<8xi8>)
// CHECK: arith.trunci %{{.*}} : i8 to i1
// CHECK: return {{.*}}, %[[I]]
func.func @sort_of_booleans(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xi64>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xi1>
  %m = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xi1>) {
  ^bb0(%v: f32, %o: i1):
    %c = arith.cmpf ogt, %v, %zero : f32
    linalg.yield %c : i1
  } -> tensor<8xi1>
  %s, %i = dtensor.sort %m dim = 0 descending : tensor<8xi1> -> tensor<8xi64>
  %ef = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel"]}
      ins(%s : tensor<8xi1>) outs(%ef : tensor<8xf32>) {
  ^bb0(%b: i1, %o: f32):
    %f = arith.uitofp %b : i1 to f32
    linalg.yield %f : f32
  } -> tensor<8xf32>
  return %r, %i : tensor<8xf32>, tensor<8xi64>
}
