// RUN: hp-opt %s -decompose-aggregated-ops | FileCheck %s

// linalg.softmax becomes a max reduction, exp(x - max), a sum reduction and
// a division, each a linalg op.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT: linalg.softmax
// CHECK: linalg.generic
// CHECK: arith.maxnumf
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK-NOT: linalg.softmax
func.func @softmax(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %p = linalg.softmax dimension(1) ins(%x : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %p : tensor<2x4xf32>
}

// On buffers the decomposition (tensor ops) does not apply: left as it is.
// CHECK-LABEL: func.func @softmax_buffers
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : memref<2x4xf32>) outs(%{{.*}} : memref<2x4xf32>)
func.func @softmax_buffers(%x: memref<2x4xf32>, %y: memref<2x4xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<2x4xf32>) outs(%y : memref<2x4xf32>)
  return
}
