// dtensor-lower-scans: a scan becomes a loop nest on tensors, the scan's dim
// innermost, carrying the running value from the kind's identity.
// RUN: hp-opt %s -dtensor-lower-scans | FileCheck %s

// f32 carried in f64 (as torch's CPU kernel), each element rounded.
// CHECK-LABEL: func.func @sum_1d
// CHECK-DAG: %[[EMPTY:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[ID:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[R:.*]]:2 = scf.for %[[I:.*]] = %[[C0]] to %[[C8]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[ID]], %[[T:.*]] = %[[EMPTY]]) -> (f64, tensor<8xf32>)
// CHECK-NEXT: %[[V:.*]] = tensor.extract %{{.*}}[%[[I]]] : tensor<8xf32>
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[V]] : f32 to f64
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[W]] : f64
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[S]] : f64 to f32
// CHECK-NEXT: %[[U:.*]] = tensor.insert %[[N]] into %[[T]][%[[I]]] : tensor<8xf32>
// CHECK-NEXT: scf.yield %[[S]], %[[U]] : f64, tensor<8xf32>
// CHECK: return %[[R]]#1
func.func @sum_1d(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = dtensor.scan sum %x dim = 0 : tensor<8xf32>
  return %c : tensor<8xf32>
}

// The other dims outside, in order; the scan's dim (0 here) innermost.
// CHECK-LABEL: func.func @prod_dim0
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[C5]]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[C3]] {{.*}} iter_args(%[[ACC:.*]] = %[[ONE]],
// CHECK: tensor.extract %{{.*}}[%[[I]], %[[J]]] : tensor<3x5xi32>
// CHECK: arith.muli %[[ACC]]
func.func @prod_dim0(%x: tensor<3x5xi32>) -> tensor<3x5xi32> {
  %c = dtensor.scan prod %x dim = 0 : tensor<3x5xi32>
  return %c : tensor<3x5xi32>
}

// CHECK-LABEL: func.func @max_min
// CHECK: arith.constant -9223372036854775808 : i64
// CHECK: arith.maxsi
// CHECK: arith.constant 0x7FF0000000000000 : f64
// CHECK: arith.minimumf
func.func @max_min(%x: tensor<4xi64>, %y: tensor<2x4xf32>) -> (tensor<4xi64>, tensor<2x4xf32>) {
  %a = dtensor.scan max %x dim = 0 : tensor<4xi64>
  %b = dtensor.scan min %y dim = 1 : tensor<2x4xf32>
  return %a, %b : tensor<4xi64>, tensor<2x4xf32>
}

// Dynamic sizes come from the input.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?xf64>
// CHECK: tensor.empty(%[[D]]) : tensor<?xf64>
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[D]]
func.func @dynamic(%x: tensor<?xf64>) -> tensor<?xf64> {
  %c = dtensor.scan sum %x dim = 0 : tensor<?xf64>
  return %c : tensor<?xf64>
}

// A row's init is where its running value starts; f16 is carried in f32.
// CHECK-LABEL: func.func @from_init
// CHECK: scf.for %[[J:.*]] = {{.*}} iter_args(%[[T:.*]] = %{{.*}}) -> (tensor<2x3xf16>)
// CHECK: %[[START:.*]] = tensor.extract %{{.*}}[%[[J]], %{{.*}}] : tensor<2x1xf32>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[START]], %{{.*}} = %[[T]]) -> (f32, tensor<2x3xf16>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.mulf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @from_init(%x: tensor<2x3xf16>, %i: tensor<2x1xf32>) -> tensor<2x3xf16> {
  %c = dtensor.scan prod %x dim = 1 from %i : tensor<2x1xf32> : tensor<2x3xf16>
  return %c : tensor<2x3xf16>
}
