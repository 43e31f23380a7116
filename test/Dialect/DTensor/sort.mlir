// RUN: hp-opt %s | FileCheck %s
// RUN: hp-opt %s | hp-opt | FileCheck %s
// RUN: hp-opt %s --mlir-print-op-generic | hp-opt | FileCheck %s

// CHECK-LABEL: func.func @orders
func.func @orders(%x: tensor<4x8xf32>, %n: tensor<5xi32>, %z: tensor<0x3xf16>)
    -> (tensor<4x8xf32>, tensor<4x8xi64>, tensor<5xi32>, tensor<5xi64>, tensor<0x3xf16>, tensor<0x3xi64>) {
  // CHECK: dtensor.sort %{{.*}} dim = 1 : tensor<4x8xf32> -> tensor<4x8xi64>
  %a, %ai = dtensor.sort %x dim = 1 : tensor<4x8xf32> -> tensor<4x8xi64>
  // CHECK: dtensor.sort %{{.*}} dim = 0 descending : tensor<5xi32> -> tensor<5xi64>
  %b, %bi = dtensor.sort %n dim = 0 descending : tensor<5xi32> -> tensor<5xi64>
  // CHECK: dtensor.sort %{{.*}} dim = 0 : tensor<0x3xf16> -> tensor<0x3xi64>
  %c, %ci = dtensor.sort %z dim = 0 : tensor<0x3xf16> -> tensor<0x3xi64>
  return %a, %ai, %b, %bi, %c, %ci : tensor<4x8xf32>, tensor<4x8xi64>, tensor<5xi32>, tensor<5xi64>, tensor<0x3xf16>, tensor<0x3xi64>
}

// hp.torch writes the op in the generic form (torch-mlir's context does not
// know the dialect).
// CHECK-LABEL: func.func @generic
func.func @generic(%x: tensor<6xf64>) -> (tensor<6xf64>, tensor<6xi64>) {
  // CHECK: dtensor.sort %{{.*}} dim = 0 descending : tensor<6xf64> -> tensor<6xi64>
  %a:2 = "dtensor.sort"(%x) {dim = 0 : i64, descending} : (tensor<6xf64>) -> (tensor<6xf64>, tensor<6xi64>)
  return %a#0, %a#1 : tensor<6xf64>, tensor<6xi64>
}
