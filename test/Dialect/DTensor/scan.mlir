// RUN: hp-opt %s | FileCheck %s
// RUN: hp-opt %s | hp-opt | FileCheck %s
// RUN: hp-opt %s --mlir-print-op-generic | hp-opt | FileCheck %s

// CHECK-LABEL: func.func @kinds
func.func @kinds(%x: tensor<4x8xf32>, %n: tensor<5xi64>, %z: tensor<0x3xi32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<5xi64>, tensor<5xi64>, tensor<0x3xi32>) {
  // CHECK: dtensor.scan sum %{{.*}} dim = 1 : tensor<4x8xf32>
  %a = dtensor.scan sum %x dim = 1 : tensor<4x8xf32>
  // CHECK: dtensor.scan prod %{{.*}} dim = 0 : tensor<4x8xf32>
  %b = dtensor.scan prod %x dim = 0 : tensor<4x8xf32>
  // CHECK: dtensor.scan max %{{.*}} dim = 0 : tensor<5xi64>
  %c = dtensor.scan max %n dim = 0 : tensor<5xi64>
  // CHECK: dtensor.scan min %{{.*}} dim = 0 : tensor<5xi64>
  %d = dtensor.scan min %n dim = 0 : tensor<5xi64>
  // CHECK: dtensor.scan sum %{{.*}} dim = 0 : tensor<0x3xi32>
  %e = dtensor.scan sum %z dim = 0 : tensor<0x3xi32>
  return %a, %b, %c, %d, %e : tensor<4x8xf32>, tensor<4x8xf32>, tensor<5xi64>, tensor<5xi64>, tensor<0x3xi32>
}

// CHECK-LABEL: func.func @init
func.func @init(%x: tensor<4x8xf32>, %i: tensor<4x1xf64>, %n: tensor<5xi32>, %j: tensor<1xi32>, %h: tensor<3x2xbf16>, %k: tensor<1x2xf32>)
    -> (tensor<4x8xf32>, tensor<5xi32>, tensor<3x2xbf16>) {
  // CHECK: dtensor.scan sum %{{.*}} dim = 1 from %{{.*}} : tensor<4x1xf64> : tensor<4x8xf32>
  %a = dtensor.scan sum %x dim = 1 from %i : tensor<4x1xf64> : tensor<4x8xf32>
  // CHECK: dtensor.scan max %{{.*}} dim = 0 from %{{.*}} : tensor<1xi32> : tensor<5xi32>
  %b = dtensor.scan max %n dim = 0 from %j : tensor<1xi32> : tensor<5xi32>
  // CHECK: dtensor.scan min %{{.*}} dim = 0 from %{{.*}} : tensor<1x2xf32> : tensor<3x2xbf16>
  %c = dtensor.scan min %h dim = 0 from %k : tensor<1x2xf32> : tensor<3x2xbf16>
  return %a, %b, %c : tensor<4x8xf32>, tensor<5xi32>, tensor<3x2xbf16>
}

// hp.torch writes the op in the generic form, with the inherent attributes
// in the dictionary (torch-mlir's context does not know the dialect).
// CHECK-LABEL: func.func @generic
func.func @generic(%x: tensor<6xf64>) -> tensor<6xf64> {
  // CHECK: dtensor.scan sum %{{.*}} dim = 0 : tensor<6xf64>
  %a = "dtensor.scan"(%x) {dim = 0 : i64, kind = 0 : i32} : (tensor<6xf64>) -> tensor<6xf64>
  return %a : tensor<6xf64>
}
